// `perfsweep hourly`: narrow a good→bad window over JAX/XLA (any repos) to an hour, then a commit.

#include "adapters/json/result_json.hpp"
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

void print_hourly(const app::HourlyRequest& req, const core::HourlyResult& result, Context& ctx) {
    if (req.json)
        write_json(report::render_json(result));
    else
        write_inert(report::render_hourly_text(result));
    ctx.exit_code = core::hourly_exit_code(result);
}

} // namespace

void run_hourly(const app::OptionValues& values, Context& ctx) {
    auto& a = ctx.adapters;
    auto req = app::resolve_hourly(values);
    auto& o = req.options;
    a.secrets.protect_env(o.token_env); // the builds and benchmarks must not inherit the token
    if (!req.from_result.empty()) {
        const auto& path = req.from_result;
        const auto w = app::daily_window_of(
            adapters::read_result_document(a.files.read_text(path), path), path);
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
        o.from = util::time_at(newest(w.good_times, "last_before_commit_times"));
        o.to = util::time_at(newest(w.bad_times, "first_after_commit_times"));
    }
    o.secrets = a.secrets.values();
    if (!req.runner) {
        print_hourly(req, app::plan_hourly(o, a), ctx);
        return;
    }
    auto& rc = *req.runner;
    const auto mode = app::prepare_source_runner(rc, o, req.jax_toolbox, a.repos, a.files);
    if (req.jax_toolbox) // the mode wrote the build command
        o.settings_key = app::journal_identity(o, rc);
    if (!mode.empty())
        a.progress.line(mode);
    auto runner = a.runners.make(rc);
    print_hourly(req, app::run_hourly(o, a, {*runner, *runner}), ctx);
}

} // namespace perfsweep::cli
