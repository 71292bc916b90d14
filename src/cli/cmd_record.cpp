#include "adapters/json/measurement_json.hpp"
#include "app/options_data.hpp"
#include "cli/context.hpp"
#include "cli/output.hpp"
#include "cli/points_outcome.hpp"
#include "util/error.hpp"

#include <cstdio>

namespace perfsweep::cli {

void run_record(const app::OptionValues& values, Context& ctx) {
    const auto c = app::resolve_record(values);
    const auto ms = app::run_record(c.request, ctx.adapters);
    for (const auto& m : ms) {
        if (c.json) {
            write_json(adapters::measurement_to_json(m) + "\n");
        } else {
            print_inert("recorded %s %s: %s (%zu value%s) into %s\n", m.label.c_str(),
                        m.metric.c_str(), std::string(core::to_string(m.status)).c_str(),
                        m.values.size(), m.values.size() == 1 ? "" : "s",
                        c.request.history.c_str());
        }
    }
    // An output without the metric is kept as a failed point, and the step fails (exit 4).
    const bool given_status = c.request.status && *c.request.status != "ok";
    const int code = report_points(ctx.adapters, "record", ms, c.request.history);
    ctx.exit_code = given_status ? exit_ok : code;
}

} // namespace perfsweep::cli
