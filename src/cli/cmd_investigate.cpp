#include "app/investigate.hpp"
#include "app/options.hpp"
#include "cli/context.hpp"
#include "cli/output.hpp"
#include "report/result_json.hpp"

#include <cstdio>

namespace perfsweep::cli {

void run_investigate(const app::OptionValues& values, Context& ctx) {
    auto& a = ctx.adapters;
    const auto req = app::resolve_investigate(values, {env_text("GITHUB_REPOSITORY"), a.actions});
    if (a.protect_secret_env) // the benchmarks must not inherit the token
        a.protect_secret_env(req.options.token_env);
    const auto r = app::run_investigate(req.options, a);
    if (req.json)
        write_json(report::render_json(r.investigation)); // the document result.json holds
    else
        write_inert(r.markdown + "\n");
    std::fflush(stdout);
    a.progress->line("report: " + r.report_path + "  result: " + r.result_path);
    ctx.exit_code = r.exit_code;
}

} // namespace perfsweep::cli
