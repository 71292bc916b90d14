#include "adapters/json/record_format.hpp"
#include "app/options_data.hpp"
#include "cli/context.hpp"
#include "cli/output.hpp"
#include "core/exit_policy.hpp"
#include "report/detect_text.hpp"
#include "report/result_json.hpp"

namespace perfsweep::cli {

void run_detect(const app::OptionValues& values, Context& ctx) {
    auto& a = ctx.adapters;
    auto c = app::resolve_detect(values);
    c.request.read_json = adapters::read_json_import;
    const app::DetectOutcome out = app::run_detect(c.request, a);
    for (const auto& w : out.warnings)
        a.progress.line("warning: " + w);
    if (c.json)
        write_json(report::render_json(out.result));
    else
        write_inert(report::render_detect_text(out.result));
    a.actions.set_outputs( // the action's outputs (no-op outside GitHub Actions)
        app::detect_outputs(out.result));
    ctx.exit_code = core::exit_code_for(out.result.verdict);
}

} // namespace perfsweep::cli
