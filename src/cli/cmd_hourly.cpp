// `perfsweep hourly`: narrow a good→bad window over JAX/XLA (any repos) to an hour, then a commit.

#include "app/hourly.hpp"
#include "cli/context.hpp"
#include "cli/output.hpp"
#include "cli/runner_flags.hpp"
#include "core/exit_code.hpp"
#include "core/stats.hpp"
#include "report/log_excerpt.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>

namespace perfsweep::cli {

namespace {

struct HourlyFlags {
    std::vector<std::string> repos;
    std::string ref = "origin/main";
    std::vector<std::string> ref_for;
    bool fetch = false;
    std::string token_env = "PERFSWEEP_GIT_TOKEN";
    std::string from, to;
    std::string from_result;
    std::string good_commits, bad_commits;
    std::string step = "1h";
    bool plan = false;
    bool any_parent = false;
    std::string strategy = "adaptive";
    int repeats = 3;
    int max_repeats = 12;
    std::string state_dir;
    int max_builds = 0;
    std::string max_time;
    bool to_commit = false;
    bool json = false;
    RunnerFlags runner; ///< --build --test --runtime --image --metric ... --mode
};

std::pair<std::string, std::string> name_value(const std::string& s, const std::string& flag,
                                               const char* what) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
        throw_usage(flag + " '" + s + "': expected " + what);
    return {s.substr(0, eq), s.substr(eq + 1)};
}

std::map<std::string, std::string> commit_list(const std::string& s, const std::string& flag) {
    std::map<std::string, std::string> out;
    if (s.empty())
        return out;
    for (const auto& part : util::split(s, ',')) {
        auto [name, sha] = name_value(std::string(util::trim(part)), flag, "NAME=SHA,NAME=SHA...");
        if (!out.emplace(name, sha).second)
            throw_usage(flag + ": repo '" + name + "' is given twice");
    }
    return out;
}

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
    std::string spend =
        "builds " + std::to_string(r.spend.builds) + ", runs " + std::to_string(r.spend.runs);
    if (r.spend.resumed_builds || r.spend.resumed_runs)
        spend += "; resumed: builds " + std::to_string(r.spend.resumed_builds) + ", runs " +
                 std::to_string(r.spend.resumed_runs);
    print_inert("\n%s: %s (%s)\n", r.conclusion.c_str(), r.message.c_str(), spend.c_str());
}

void run_cmd(const HourlyFlags& f, Context& ctx) {
    if (ctx.adapters.protect_secret_env) // the builds and benchmarks must not inherit the token
        ctx.adapters.protect_secret_env(f.token_env);
    app::HourlyOptions o;
    std::map<std::string, std::string> refs;
    for (const auto& s : f.ref_for) {
        auto [name, ref] = name_value(s, "--ref-for", "NAME=REF");
        refs[name] = ref;
    }
    for (const auto& s : f.repos) {
        auto [name, path] = name_value(s, "--repo", "NAME=PATH");
        app::RepoSpec spec{name, path, f.ref};
        auto it = refs.find(name);
        if (it != refs.end()) {
            spec.ref = it->second;
            refs.erase(it);
        }
        o.repos.push_back(spec);
    }
    if (!refs.empty())
        throw_usage("--ref-for " + refs.begin()->first + ": no --repo has that name");
    o.fetch = f.fetch;
    o.token_env = f.token_env;
    if (!f.from.empty())
        o.from = parse_time(f.from, "--from");
    if (!f.to.empty())
        o.to = parse_time(f.to, "--to");
    if (!f.from_result.empty()) {
        if (!f.from.empty() || !f.to.empty() || !f.good_commits.empty() || !f.bad_commits.empty())
            throw_usage("--from-result cannot be combined with --from/--to/--good-commits/"
                        "--bad-commits");
        const auto w =
            ctx.adapters.daily_window(ctx.adapters.files->read_text(f.from_result), f.from_result);
        // The window runs from the newest recorded commit time of the last good build to that of
        // the first bad build.
        auto newest = [&](const std::map<std::string, std::string>& times, const char* key) {
            std::optional<util::UnixSeconds> best;
            for (const auto& [name, t] : times) {
                const auto v =
                    parse_time(t, "--from-result " + f.from_result + " " + key + "." + name);
                best = best ? std::max(*best, v) : v;
            }
            return *best;
        };
        o.from = newest(w.good_times, "last_before_commit_times");
        o.to = newest(w.bad_times, "first_after_commit_times");
    }
    o.good_commits = commit_list(f.good_commits, "--good-commits");
    o.bad_commits = commit_list(f.bad_commits, "--bad-commits");
    auto step = util::parse_duration(f.step);
    if (!step)
        throw_usage("--step '" + f.step + "': expected a duration such as 1h, 30m or 2h");
    o.step = *step;
    o.plan = f.plan;
    o.any_parent = f.any_parent;
    o.strategy = f.strategy;
    o.repeats = f.repeats;
    o.max_repeats = std::max(f.max_repeats, f.repeats);
    o.state_dir = f.state_dir;
    o.max_builds = f.max_builds;
    if (!f.max_time.empty()) {
        auto d = util::parse_duration(f.max_time);
        if (!d)
            throw_usage("--max-time '" + f.max_time + "': expected a duration such as 6h");
        o.max_time = static_cast<double>(*d);
    }
    o.to_commit = f.to_commit;
    const auto& c = f.runner.cfg;
    o.settings_key = "build=" + c.build_command + " test=" + c.test_command +
                     " runtime=" + c.runtime + " image=" + c.image + " metric=" + c.metric +
                     " regex=" + c.metric_regex + " repeats=" + std::to_string(f.repeats);
    o.exit_code_mode = exit_code_mode(f.runner);
    if (o.exit_code_mode)
        o.settings_key += " mode=exit-code";
    if (ctx.adapters.secret_values)
        o.secrets = ctx.adapters.secret_values();

    auto& a = ctx.adapters;
    app::HourlyPorts ports;
    ports.open_repo = a.open_source_repo;
    ports.files = a.files;
    ports.clock = a.clock;
    ports.progress = a.progress;
    std::unique_ptr<ports::BuildingRunner> runner;
    if (!f.plan) {
        if (c.build_command.empty() || c.test_command.empty())
            throw_usage("hourly: --build and --test are required unless --plan is given");
        auto rc = runner_config(f.runner);
        rc.kept_container = rc.runtime == "docker" || rc.runtime == "podman";
        o.direction = rc.direction;
        if (rc.kept_container)
            for (const auto& r : o.repos)
                rc.mounts.push_back(r.path + ":" + r.path);
        runner = a.make_runner(rc);
        ports.builder = runner.get();
        ports.runner = runner.get();
    }
    const auto result = app::run_hourly(o, ports);
    if (f.json)
        write_json(a.hourly_json(result));
    else
        print_text(result);
    ctx.exit_code = result.conclusion == "inconclusive" ? exit_inconclusive : exit_ok;
}

} // namespace

void add_hourly(CLI::App& app, Context& ctx) {
    auto f = std::make_shared<HourlyFlags>();
    auto* cmd = app.add_subcommand(
        "hourly", "Rebuild source repos (JAX, XLA, ...) at states over time inside one environment "
                  "and narrow a good→bad window to an hour, then (--to-commit) to a commit");
    cmd->add_option("--repo", f->repos, "NAME=PATH of a full local clone (repeatable)")->required();
    cmd->add_option("--ref", f->ref, "ref whose main line is followed (default origin/main)");
    cmd->add_option("--ref-for", f->ref_for, "NAME=REF: another ref for one repo (repeatable)");
    cmd->add_flag("--fetch", f->fetch, "fetch origin in every repo first (libgit2)");
    cmd->add_option("--token-env", f->token_env,
                    "environment variable holding an HTTPS token for --fetch");
    cmd->add_option("--from", f->from, "window start (last good), ISO 8601 with Z or offset");
    cmd->add_option("--to", f->to, "window end (first bad), ISO 8601 with Z or offset");
    cmd->add_option("--from-result", f->from_result,
                    "DAILY.json: take the window from a `perfsweep daily --json` result");
    cmd->add_option("--good-commits", f->good_commits, "NAME=SHA,...: the last good state");
    cmd->add_option("--bad-commits", f->bad_commits, "NAME=SHA,...: the first bad state");
    cmd->add_option("--step", f->step, "grid step (default 1h; 30m, 2h, ...)");
    cmd->add_flag("--plan", f->plan, "print the states only; check out, build and run nothing");
    cmd->add_flag("--any-parent", f->any_parent,
                  "state = newest commit by date reachable from the ref (git rev-list -1 "
                  "--before=T) instead of the first-parent main line");
    using O = RunnerOption;
    add_runner_flags(cmd, f->runner,
                     {{O::build, "build command ({commit:NAME} {path:NAME} {time})"},
                      {O::test, "test command printing the metric"},
                      {O::runtime, "none | docker | podman (one kept container)", false},
                      {O::image, "image of the last good environment (docker/podman)"}});
    cmd->add_option("--strategy", f->strategy, "adaptive (bisect, default) | sequential");
    cmd->add_option("--repeats", f->repeats, "test runs per state (default 3)");
    cmd->add_option(
           "--max-repeats", f->max_repeats,
           "undecided states (and, in exit-code mode, window ends) double their runs up to this")
        ->capture_default_str();
    add_runner_flags(cmd, f->runner,
                     {{O::env_probe, "environment fingerprint of the image: default | none | a "
                                     "command printing KEY=VALUE lines"}});
    cmd->add_option("--state", f->state_dir, "state dir: resume without redoing builds or runs");
    cmd->add_option("--max-builds", f->max_builds, "stop after this many builds (0 = no limit)");
    cmd->add_option("--max-time", f->max_time, "stop after this long (e.g. 6h)");
    cmd->add_flag("--to-commit", f->to_commit, "narrow the window to the culprit commit");
    cmd->add_flag("--json", f->json, "print the result as JSON");
    add_runner_flags(cmd, f->runner,
                     {{O::metric, "metric name (default MLUPS)", false},
                      {O::metric_regex, "regex with one group for the value"},
                      {O::direction, "higher | lower is better (default higher)", false},
                      O::timeout_seconds,
                      O::logs_dir,
                      O::mode});
    cmd->callback([f, &ctx] { run_cmd(*f, ctx); });
}

} // namespace perfsweep::cli
