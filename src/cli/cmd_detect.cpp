#include "adapters/json/record_format.hpp"
#include "app/comment.hpp"
#include "app/options_data.hpp"
#include "cli/context.hpp"
#include "cli/output.hpp"
#include "core/exit_policy.hpp"
#include "report/detect_text.hpp"
#include "report/markdown.hpp"
#include "report/result_json.hpp"
#include "report/series_table.hpp"

namespace perfsweep::cli {

void run_detect(const app::OptionValues& values, Context& ctx) {
    auto& a = ctx.adapters;
    auto c = app::resolve_detect(values);
    c.request.read_json = adapters::read_json_import;
    app::DetectAllOutcome out = app::run_detect_all(c.request, a);
    for (const auto& w : out.warnings)
        a.progress.line("warning: " + w);
    if (out.series.empty()) { // the first night: said as such, and not a failure of the step
        const app::DetectOutcome one = app::run_detect(c.request, a);
        if (c.json)
            write_json(report::render_json(one.result));
        else
            write_inert(report::render_detect_text(one.result));
        app::append_summary(a.actions, "### perfsweep detect\n\n" +
                                           report::escape_markdown(one.result.reason) + "\n");
        app::annotate(a.actions, "notice", "perfsweep", one.result.reason);
        a.actions.set_outputs(app::detect_outputs(one.result));
        ctx.exit_code = core::exit_code_for(one.result.verdict);
        return;
    }
    // One series selected (or the only one there is): its full result, as before.
    if (out.series.size() == 1) {
        core::DetectResult r = out.series.front().result;
        r.testbed = out.series.front().key.testbed;
        for (const auto& n : out.series.front().notes)
            a.progress.line("note: " + n);
        if (c.json)
            write_json(report::render_json(r));
        else
            write_inert(report::render_detect_text(r));
        app::append_summary(a.actions, report::render_markdown(r));
    } else {
        if (c.json)
            write_json(report::render_series_json(out.series));
        else
            write_inert(report::render_series_text(out.series));
        app::append_summary(a.actions, report::render_series_markdown(out.series));
    }
    a.actions.set_outputs(app::detect_all_outputs(out)); // no-op outside GitHub Actions
    ctx.exit_code = core::exit_code_for(core::worst_verdict(out.series));
}

} // namespace perfsweep::cli
