#include "app/comment.hpp"
#include "app/options_data.hpp"
#include "cli/context.hpp"
#include "cli/output.hpp"
#include "report/compare_text.hpp"

namespace perfsweep::cli {

void run_compare(const app::OptionValues& values, Context& ctx) {
    auto& a = ctx.adapters;
    const auto c = app::resolve_compare(values, {env_text("GITHUB_REPOSITORY"), &a.actions});
    const auto result = app::run_compare(c.request, a);
    const auto rep = app::compare_report(result);
    if (c.json)
        write_json(report::render_compare_json(rep));
    else
        write_inert(report::render_compare_text(rep));
    const std::string markdown = report::render_compare_markdown(rep);
    app::append_summary(a.actions, markdown);
    auto outputs = app::compare_outputs(result);
    if (c.comment) { // one sticky comment, updated on every push of the PR
        auto req = *c.comment;
        req.body = markdown;
        auto host = a.code_hosts.open(c.token_env);
        const auto posted = app::post_sticky_comment(*host, req);
        outputs["comment-url"] = posted.url;
        a.progress.line("comment " + posted.action + ": " + posted.url);
    }
    a.actions.set_outputs(outputs);
    ctx.exit_code = app::compare_exit_code(result, c.report_only);
    for (const auto& s : rep.rows)
        if (s.failed || s.verdict == core::CompareVerdict::regression)
            app::annotate(a.actions, "error", "perfsweep compare: " + core::to_string(s.key),
                          s.reason);
}

} // namespace perfsweep::cli
