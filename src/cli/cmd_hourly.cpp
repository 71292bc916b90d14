// `perfsweep hourly`: narrow a good→bad window over JAX/XLA (any repos) to an hour, then a commit.

#include "app/hourly.hpp"
#include "app/jax_toolbox.hpp"
#include "app/options.hpp"
#include "cli/context.hpp"
#include "cli/output.hpp"
#include "core/exit_code.hpp"
#include "core/exit_policy.hpp"
#include "core/stats.hpp"
#include "report/log_excerpt.hpp"
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

void print_text(const core::HourlyResult& r) {
    auto commits = [](const std::map<std::string, std::string>& c) {
        std::string s;
        for (const auto& [name, sha] : c)
            s += (s.empty() ? "" : "  ") + name + "=" + sha.substr(0, 12);
        return s;
    };
    print_inert("%-21s  %-10s  %-9s  %s\n", "time", "status", "changed", "commits");
    for (const auto& s : r.states) {
        std::string values;
        if (!s.values.empty())
            values = "  median " + util::format_fixed(core::median(s.values), 3);
        print_inert("%-21s  %-10s  %-9s  %s%s\n", util::format_iso8601(s.time).c_str(),
                    s.status.c_str(), util::join(s.changed, ",").c_str(),
                    commits(s.commits).c_str(), values.c_str());
    }
    if (r.last_good && r.first_bad) {
        print_inert("\nlast good: %s  %s\n", util::format_iso8601(r.last_good->time).c_str(),
                    commits(r.last_good->commits).c_str());
        print_inert("first bad: %s  %s\n", util::format_iso8601(r.first_bad->time).c_str(),
                    commits(r.first_bad->commits).c_str());
        for (const auto& [name, list] : r.candidates) {
            print_inert("\n%s: %zu commit(s)", name.c_str(), list.size());
            auto url = r.compare_urls.find(name);
            if (url != r.compare_urls.end())
                print_inert("  %s", url->second.c_str());
            print_inert("\n");
            for (const auto& c : list)
                print_inert("  %s  %s  %s  %s\n", c.sha.substr(0, 12).c_str(),
                            util::format_iso8601(c.time).c_str(), c.author.c_str(),
                            c.subject.c_str());
        }
    }
    if (r.failure_rates && r.last_good && r.first_bad)
        print_inert("\n%s\n", core::describe_failure_change(r.good_runs, r.bad_runs).c_str());
    if (r.first_bad_log)
        write_inert("\nFirst bad state " + r.first_bad_log->point + ", " +
                    core::describe_exit_status(r.first_bad_log->exit_code) + ", last lines of " +
                    r.first_bad_log->log + ":\n" +
                    report::prefix_lines(r.first_bad_log->excerpt, "  | "));
    if (r.culprit)
        print_inert("\nculprit: %s %s  %s\n  %s\n", r.culprit->repo.c_str(),
                    r.culprit->commit.sha.c_str(), r.culprit->commit.subject.c_str(),
                    r.culprit->note.c_str());
    print_inert("\n%s: %s (builds %d, runs %d)\n", r.conclusion.c_str(), r.message.c_str(),
                r.builds, r.runs);
}

} // namespace

void run_hourly(const app::OptionValues& values, Context& ctx) {
    auto& a = ctx.adapters;
    auto req = app::resolve_hourly(values);
    auto& o = req.options;
    if (a.protect_secret_env) // the builds and benchmarks must not inherit the token
        a.protect_secret_env(o.token_env);
    if (!req.from_result.empty()) {
        const auto w = a.daily_window(a.files->read_text(req.from_result), req.from_result);
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
    if (a.secret_values)
        o.secrets = a.secret_values();
    app::HourlyPorts ports;
    ports.open_repo = a.open_source_repo;
    ports.files = a.files;
    ports.clock = a.clock;
    ports.progress = a.progress;
    std::unique_ptr<ports::BuildingRunner> runner;
    if (req.runner) {
        auto& rc = *req.runner;
        const auto mode =
            app::prepare_source_runner(rc, o, req.jax_toolbox, a.open_source_repo, *a.files);
        if (req.jax_toolbox) // the mode wrote the build command
            o.settings_key = app::hourly_settings_key(rc, o.repeats);
        if (!mode.empty() && a.progress)
            a.progress->line(mode);
        runner = a.make_runner(rc);
        ports.builder = runner.get();
        ports.runner = runner.get();
    }
    const auto result = app::run_hourly(o, ports);
    if (req.json)
        write_json(a.hourly_json(result));
    else
        print_text(result);
    ctx.exit_code = core::hourly_exit_code(result);
}

} // namespace perfsweep::cli
