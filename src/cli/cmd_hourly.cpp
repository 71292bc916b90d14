// `perfsweep hourly`: narrow a good→bad window over JAX/XLA (any repos) to an hour, then a commit.

#include "app/hourly.hpp"
#include "app/jax_toolbox.hpp"
#include "app/options.hpp"
#include "app/report.hpp"
#include "cli/context.hpp"
#include "cli/output.hpp"
#include "core/exit_policy.hpp"
#include "report/hourly_text.hpp"
#include "report/result_json.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

#include <cstdio>
#include <memory>

namespace perfsweep::cli {

namespace {

util::UnixSeconds parse_time(const std::string& s, const std::string& flag) {
    std::string why;
    auto t = util::parse_iso8601(s, &why);
    if (!t)
        throw_usage(flag + " '" + s + "': " + why +
                    " (expected ISO 8601 UTC such as 2023-08-24T13:00:00Z or with an offset)");
    return *t;
}

} // namespace

void run_hourly(const app::OptionValues& values, Context& ctx) {
    auto& a = ctx.adapters;
    auto req = app::resolve_hourly(values);
    auto& o = req.options;
    a.secrets.protect_env(o.token_env); // the builds and benchmarks must not inherit the token
    if (!req.from_result.empty()) {
        const auto w = app::read_daily_window(req.from_result, a);
        // The window runs from the newest recorded commit time of the last good build to that of
        // the first bad build.
        auto newest = [&](const std::map<std::string, std::string>& times, const char* key) {
            std::optional<util::UnixSeconds> best;
            for (const auto& [name, t] : times) {
                const auto v =
                    parse_time(t, "--from-result " + req.from_result + " " + key + "." + name);
                best = best ? std::max(*best, v) : v;
            }
            return *best;
        };
        o.from = newest(w.good_times, "last_before_commit_times");
        o.to = newest(w.bad_times, "first_after_commit_times");
    }
    o.secrets = a.secrets.values();
    app::Instruments with;
    std::unique_ptr<ports::BuildingRunner> runner;
    if (req.runner) {
        auto& rc = *req.runner;
        const auto mode = app::prepare_source_runner(rc, o, req.jax_toolbox, a.repos, a.files);
        if (req.jax_toolbox) // the mode wrote the build command
            o.settings_key = app::hourly_settings_key(rc, o.repeats);
        if (!mode.empty())
            a.progress.line(mode);
        runner = a.runners.make(rc);
        with.builder = runner.get();
        with.runner = runner.get();
    }
    const auto result = app::run_hourly(o, a, with);
    if (req.json)
        write_json(report::render_json(result));
    else
        write_inert(report::render_hourly_text(result));
    ctx.exit_code = core::hourly_exit_code(result);
}

} // namespace perfsweep::cli
