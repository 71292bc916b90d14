#include "app/investigate.hpp"
#include "app/jax_toolbox.hpp"
#include "app/options.hpp"
#include "cli/context.hpp"
#include "cli/output.hpp"
#include "report/result_json.hpp"

#include <cstdio>

namespace perfsweep::cli {

void run_investigate(const app::OptionValues& values, Context& ctx) {
    auto& a = ctx.adapters;
    auto req = app::resolve_investigate(values, {env_text("GITHUB_REPOSITORY"), &a.actions});
    a.secrets.protect_env(req.options.token_env); // the benchmarks must not inherit the token
    // Source states are rebuilt in the last good nightly (with --jax-toolbox: with its own
    // build-jax.sh, and the nightlies' commits come from the image unless a probe is given).
    auto& o = req.options;
    const auto mode = app::prepare_source_runner(o.hourly_runner, o.hourly_options, req.jax_toolbox,
                                                 a.repos, a.files, &o.commits_probe);
    if (!mode.empty())
        a.progress.line(mode);
    const auto r = app::run_investigate(req.options, a);
    if (req.json)
        write_json(report::render_json(r.investigation)); // the document result.json holds
    else
        write_inert(r.markdown + "\n");
    std::fflush(stdout);
    a.progress.line("report: " + r.report_path + "  result: " + r.result_path);
    ctx.exit_code = r.exit_code;
}

} // namespace perfsweep::cli
