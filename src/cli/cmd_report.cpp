#include "app/options_data.hpp"
#include "cli/context.hpp"
#include "cli/output.hpp"

namespace perfsweep::cli {

void run_report(const app::OptionValues& values, Context& ctx) {
    const auto req = app::resolve_report(values);
    const std::string out = app::make_report(req, ctx.adapters);
    if (req.output.empty())
        req.format == "json" ? write_json(out) : write_inert(out);
    ctx.exit_code = exit_ok;
}

} // namespace perfsweep::cli
