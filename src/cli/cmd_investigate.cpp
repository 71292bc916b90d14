#include "app/detect.hpp"
#include "app/investigate.hpp"
#include "cli/context.hpp"
#include "cli/flag_values.hpp"
#include "cli/jax_toolbox_flags.hpp"
#include "cli/output.hpp"
#include "cli/runner_flags.hpp"
#include "core/exit_code.hpp"
#include "core/sweep_plan.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <memory>

namespace perfsweep::cli {

namespace {

struct InvestigateFlags {
    app::InvestigateOptions o;
    RunnerFlags runner; ///< the daily runner (o.daily_runner)
    std::string threshold = "0.02", strategy = "adaptive";
    std::string hourly_strategy = "adaptive", step = "1h", max_time, ref = "origin/main";
    std::string hourly_test, comment_repo, new_issue;
    std::vector<std::string> repos, labels, commit_labels;
    long long pr = 0, issue = 0;
    int hourly_repeats = 0;
    bool comment = false;
    JaxToolboxFlags jtb; ///< --jax-toolbox --bazel-cache --cherry-pick ...
};

void execute(InvestigateFlags& f, Context& ctx) {
    auto& o = f.o;
    if (ctx.adapters.protect_secret_env) // the benchmarks must not inherit the token
        ctx.adapters.protect_secret_env(o.token_env);
    o.threshold = app::parse_threshold(f.threshold);
    auto& d = o.daily_runner;
    d = runner_config(f.runner);
    o.daily.commit_labels = commit_labels_flag(f.commit_labels, d.runtime, d.env_probe);
    o.hourly_options.exit_code_mode = d.exit_code_mode;
    if (d.benchmark.empty())
        d.benchmark = d.test_command;
    o.daily.sweep.strategy = strategy_flag(f.strategy);
    o.daily.sweep.max_repeats = std::max(o.daily.sweep.max_repeats, o.daily.sweep.repeats);
    o.daily.sweep.direction = d.direction;
    o.daily.sweep.min_change = o.threshold;
    if (d.exit_code_mode)
        o.daily.sweep.comparison = core::ComparisonKind::pass_fail;
    if (!f.max_time.empty()) {
        const auto t = util::parse_duration(f.max_time);
        if (!t)
            throw_usage("--max-time '" + f.max_time + "': expected a duration such as 4h");
        o.daily.max_time_s = static_cast<double>(*t);
        o.hourly_options.max_time = static_cast<double>(*t);
    }
    for (const auto& r : f.repos) {
        auto [name, path] = name_value(r, "--repo");
        o.hourly_options.repos.push_back({name, path, f.ref});
    }
    const auto step = util::parse_duration(f.step);
    if (!step)
        throw_usage("--step '" + f.step + "': expected a duration such as 1h, 30m or 2h");
    o.hourly_options.step = *step;
    if (f.hourly_strategy != "adaptive" && f.hourly_strategy != "sequential")
        throw_usage("--hourly-strategy '" + f.hourly_strategy +
                    "': expected adaptive or sequential");
    o.hourly_options.strategy = f.hourly_strategy;
    o.hourly_options.repeats = f.hourly_repeats > 0 ? f.hourly_repeats : o.daily.sweep.repeats;
    o.hourly_options.max_repeats = std::max(o.daily.sweep.max_repeats, o.hourly_options.repeats);
    o.hourly_options.direction = d.direction;
    auto& h = o.hourly_runner;
    const std::string build = h.build_command; // --build binds here; keep it over the copy
    h = d;
    h.build_command = build;
    h.test_command = f.hourly_test.empty() ? d.test_command : f.hourly_test;
    // One environment per hourly search: a kept container or a held Slurm allocation.
    h.kept_container = d.runtime == "docker" || d.runtime == "podman" || d.runtime == "slurm";
    auto jtb_request = jax_toolbox_request(f.jtb, o.hourly_options.repos, o.state_dir);
    // Each tested source state gets OUTPUT_DIR/states/<state> for the benchmark's own files.
    o.hourly_options.outputs_dir = absolute_path(o.out_dir + "/states");
    jtb_request.outputs_host = o.hourly_options.outputs_dir;
    if (jax_toolbox_on(f.jtb)) {
        // Source states are rebuilt in the last good nightly with its own build-jax.sh; the
        // nightlies' commits come from the image (manifest or clones) unless a probe is given.
        const auto applied = app::apply_jax_toolbox(jtb_request, h, ctx.adapters.open_source_repo,
                                                    *ctx.adapters.files);
        if (o.commits_probe.empty())
            o.commits_probe = applied.plan.commits_probe;
        o.hourly_options.outputs_dir_in_runner = applied.plan.outputs_dir;
    } else if (d.runtime == "docker" || d.runtime == "podman" ||
               (d.runtime == "slurm" && !h.image.empty())) {
        for (const auto& r : o.hourly_options.repos)
            h.mounts.push_back(r.path + ":" + r.path);
        h.mounts.push_back(o.hourly_options.outputs_dir + ":" + o.hourly_options.outputs_dir);
    }
    if (!o.hourly_options.repos.empty() && h.build_command.empty())
        throw_usage("investigate: --repo needs --build (the command that rebuilds the sources) "
                    "or --jax-toolbox (which writes it)");
    if (f.comment) {
        app::CommentRequest req;
        req.repo = f.comment_repo;
        if (req.repo.empty()) {
            const char* env_repo = std::getenv("GITHUB_REPOSITORY");
            req.repo = env_repo ? env_repo : "";
        }
        if (req.repo.empty())
            throw_usage("--comment: name the repository with --comment-repo OWNER/NAME "
                        "(or run inside GitHub Actions)");
        if (f.pr > 0)
            req.number = f.pr;
        else if (f.issue > 0)
            req.number = f.issue;
        req.new_issue_title = f.new_issue;
        req.labels = f.labels;
        if (!req.number && req.new_issue_title.empty()) {
            if (!ctx.adapters.actions)
                throw_usage("--comment: give --pr, --issue or --new-issue");
            const auto t = ctx.adapters.actions->event_target();
            if (!t.number)
                throw_usage("--comment: no --pr, --issue or --new-issue, and " + t.why_none);
            req.number = t.number;
        }
        o.comment = req;
    }
    const auto r = app::run_investigate(o, ctx.adapters);
    write_inert(r.markdown + "\n");
    std::fflush(stdout);
    ctx.adapters.progress->line("report: " + r.report_path + "  result: " + r.result_path);
    ctx.exit_code = r.exit_code;
}

} // namespace

void add_investigate(CLI::App& app, Context& ctx) {
    auto f = std::make_shared<InvestigateFlags>();
    auto* cmd = app.add_subcommand(
        "investigate", "The whole pipeline: record (optional) → detect → daily → hourly → commit → "
                       "report → comment");
    auto& o = f->o;
    auto& d = o.daily_runner;
    cmd->add_option("--history", o.history, "History (file.jsonl, git:BRANCH, git+URL#BRANCH)")
        ->required();
    cmd->add_option("--record", o.record_date, "Record this nightly date first (today's run)");
    cmd->add_option("--threshold", f->threshold, "Relative change that counts (0.02 or 2%)")
        ->capture_default_str();
    cmd->add_option("--from", o.from, "Sweep this date range instead of detect's window");
    cmd->add_option("--to", o.to, "End of that range");
    cmd->add_option("--narrow", o.narrow, "latest | all: which regressions to narrow")
        ->capture_default_str();
    cmd->add_flag("--fail-on-regression", o.fail_on_regression,
                  "Exit 1 when a regression is found");
    auto& r = f->runner;
    r.cfg = d; // the defaults of InvestigateOptions::daily_runner
    using O = RunnerOption;
    add_runner_flags(cmd, r,
                     {O::runtime,
                      {O::image, "Nightly image template, e.g. ghcr.io/nvidia/jax:nightly-{date}"},
                      {O::test, "Benchmark command template"}});
    cmd->get_option("--test")->required();
    cmd->add_option("--hourly-test", f->hourly_test,
                    "Test command for source states (default --test)");
    cmd->add_option("--build", o.hourly_runner.build_command, "Rebuild command for source states");
    add_jax_toolbox_flags(cmd, f->jtb);
    add_runner_flags(cmd, r,
                     {O::benchmark,
                      {O::metric, "Metric name"},
                      {O::metric_regex, "Regex with one capture group"},
                      O::unit,
                      {O::direction, "higher | lower"}});
    cmd->add_option("--repeats", o.daily.sweep.repeats, "Values per point at first")
        ->capture_default_str();
    cmd->add_option("--max-repeats", o.daily.sweep.max_repeats, "Cap for undecided points")
        ->capture_default_str();
    cmd->add_option("--strategy", f->strategy, "Daily: exhaustive | adaptive | bisect")
        ->capture_default_str();
    cmd->add_option("--min-span", o.daily.sweep.min_span, "Daily: shortest level to catch (days)")
        ->capture_default_str();
    cmd->add_option("--max-runs", o.daily.sweep.max_runs, "Daily run budget (0 = none)");
    cmd->add_option("--max-builds", o.hourly_options.max_builds, "Hourly build budget (0 = none)");
    cmd->add_option("--max-time", f->max_time, "Wall-clock budget per stage (e.g. 6h)");
    add_runner_flags(cmd, r,
                     {{O::timeout, "Per-run timeout"}, {O::gpus, "GPU pool, e.g. 0,1,2,3"}});
    cmd->add_option(
        "--commits-probe", o.commits_probe,
        "Command printing a nightly's commits, e.g. cat /opt/manifest.d/git-clone.yaml");
    cmd->add_option("--commits-label", f->commit_labels,
                    "REPO=LABEL: the image label naming a nightly's commit of REPO (docker/podman; "
                    "repeatable), e.g. jax=org.opencontainers.image.revision");
    add_runner_flags(cmd, r, {O::mount, O::env_probe, O::env, O::logs});
    cmd->add_option("--repo", f->repos, "NAME=PATH of a full source clone (repeatable)");
    cmd->add_option("--ref", f->ref, "Ref whose main line is followed")->capture_default_str();
    cmd->add_option("--step", f->step, "Hourly grid step")->capture_default_str();
    cmd->add_option("--hourly-strategy", f->hourly_strategy, "adaptive | sequential")
        ->capture_default_str();
    cmd->add_option("--hourly-repeats", f->hourly_repeats,
                    "Values per source state (default --repeats)");
    cmd->add_flag("--any-parent", o.hourly_options.any_parent,
                  "States as git rev-list -1 --before=T (default: first-parent main line)");
    cmd->add_flag("--to-commit", o.hourly_options.to_commit, "Narrow the hour to one commit");
    cmd->add_option("--state", o.state_dir, "Resumable state directory for every stage");
    cmd->add_option("--output-dir", o.out_dir, "Where report.md and result.json go")
        ->capture_default_str();
    cmd->add_option("--key", o.key, "Sticky comment key")->capture_default_str();
    cmd->add_flag("--comment", f->comment, "Post the report as a sticky comment on a regression");
    cmd->add_option("--comment-repo", f->comment_repo, "OWNER/NAME (default $GITHUB_REPOSITORY)");
    cmd->add_option("--pr", f->pr, "Comment on this pull request");
    cmd->add_option("--issue", f->issue, "Comment on this issue");
    cmd->add_option("--new-issue", f->new_issue, "Open (or reuse) an issue with this title");
    cmd->add_option("--label", f->labels, "Label for --new-issue (repeatable)");
    cmd->add_option("--token-env", o.token_env, "Variable holding the GitHub token")
        ->capture_default_str();
    add_runner_flags(cmd, r,
                     {{O::mode, "metric | exit-code (exit status decides: 0 good, 1-127 bad, 125 "
                                "skip, >=128 abort); config key `mode`"}});
    cmd->callback([f, &ctx] { execute(*f, ctx); });
}

} // namespace perfsweep::cli
