#include "adapters/json/measurement_json.hpp"
#include "app/options_data.hpp"
#include "cli/context.hpp"
#include "cli/output.hpp"
#include "util/error.hpp"

#include <cstdio>

namespace perfsweep::cli {

void run_record(const app::OptionValues& values, Context& ctx) {
    const auto c = app::resolve_record(values);
    const core::Measurement m = app::run_record(c.request, ctx.adapters);
    if (c.json) {
        write_json(adapters::measurement_to_json(m) + "\n");
    } else {
        print_inert("recorded %s %s: %s (%zu value%s) into %s\n", m.label.c_str(), m.metric.c_str(),
                    std::string(core::to_string(m.status)).c_str(), m.values.size(),
                    m.values.size() == 1 ? "" : "s", c.request.history.c_str());
    }
    ctx.exit_code = exit_ok;
}

} // namespace perfsweep::cli
