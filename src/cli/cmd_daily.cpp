#include "app/daily.hpp"
#include "cli/context.hpp"
#include "cli/flag_values.hpp"
#include "cli/history_option.hpp"
#include "cli/output.hpp"
#include "cli/runner_flags.hpp"
#include "core/exit_code.hpp"
#include "report/daily_text.hpp"
#include "report/log_excerpt.hpp"
#include "report/result_json.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>

namespace perfsweep::cli {

namespace {

struct DailyFlags {
    RunnerFlags runner;
    std::string from, to, strategy = "adaptive";
    std::string state, history, max_time, probe;
    std::vector<std::string> commit_labels;
    int repeats = 3, max_repeats = 12, min_span = 5;
    double min_change = 0.02;
    long max_runs = 0;
    bool rerun = false, json = false;
};

// Exit-code mode: the first failing run of each regression's first bad nightly, as an excerpt
// whose lines cannot start a workflow command.
void print_failure_logs(const core::DailyResult& r) {
    for (const auto& f : r.failure_logs)
        write_inert("\nFirst bad nightly " + f.point + ", " +
                    core::describe_exit_status(f.exit_code) + ", last lines of " + f.log + ":\n" +
                    report::prefix_lines(f.excerpt, "  | "));
}

void execute(DailyFlags& f, Context& ctx) {
    auto& a = ctx.adapters;
    if (!a.make_runner || !a.measurement_json || !a.measurement_from_json)
        throw_infra("no runner or JSON codec is available in this build");
    auto cfg = runner_config(f.runner);
    if (cfg.benchmark.empty())
        cfg.benchmark = cfg.test_command;

    app::DailyOptions o;
    o.from = f.from;
    o.to = f.to;
    o.benchmark = cfg.benchmark;
    o.sweep.strategy = strategy_flag(f.strategy);
    o.sweep.repeats = f.repeats;
    o.sweep.max_repeats = std::max(f.max_repeats, f.repeats);
    o.sweep.min_span = f.min_span;
    o.sweep.min_change = f.min_change;
    o.sweep.max_runs = f.max_runs;
    o.sweep.direction = cfg.direction;
    if (cfg.exit_code_mode)
        o.sweep.comparison = core::ComparisonKind::pass_fail;
    if (!f.max_time.empty()) {
        const auto t = util::parse_duration(f.max_time);
        if (!t)
            throw_usage("--max-time '" + f.max_time + "': expected a duration such as 2h or 90m");
        o.max_time_s = static_cast<double>(*t);
    }
    o.state_dir = f.state;
    o.rerun = f.rerun;
    o.commit_labels = commit_labels_flag(f.commit_labels, cfg.runtime, cfg.env_probe);
    if (a.secret_values)
        o.secrets = a.secret_values();
    o.identity = "from=" + f.from + "\nto=" + f.to + "\nimage=" + cfg.image +
                 "\nruntime=" + cfg.runtime + "\ntest=" + cfg.test_command +
                 "\nbenchmark=" + cfg.benchmark + "\nmetric=" + cfg.metric +
                 "\nstrategy=" + f.strategy + "\nrepeats=" + std::to_string(f.repeats) +
                 "\nmax_repeats=" + std::to_string(o.sweep.max_repeats) +
                 "\nmin_span=" + std::to_string(f.min_span) +
                 "\nmin_change=" + std::to_string(f.min_change) + "\n";
    if (cfg.exit_code_mode)
        o.identity += "mode=exit-code\n";

    auto history = open_history_option(a, f.history);
    auto runner = a.make_runner(cfg);
    std::unique_ptr<ports::BuildingRunner> probe;
    if (!f.probe.empty()) {
        auto pc = cfg;
        pc.test_command = f.probe;
        pc.warmup = 0;
        pc.logs_dir = cfg.logs_dir + "/probe";
        pc.env_probe = "none"; // the environment is probed by the benchmark's runner
        probe = a.make_runner(pc);
    }
    app::MeasurementCodec codec{a.measurement_json, a.measurement_from_json};
    auto r = app::run_daily(o, *runner, probe.get(), *a.files, *a.clock, *a.progress, history.get(),
                            codec);
    r.image = cfg.image;
    if (r.metric.empty()) {
        r.metric = cfg.metric;
        r.unit = cfg.unit.empty() ? cfg.metric : cfg.unit;
    }
    if (f.json) {
        write_json(report::render_json(r));
    } else {
        write_inert(report::render_daily(r));
        print_failure_logs(r);
    }
    std::fflush(stdout);
    bool undecided = !r.sweep.complete;
    for (const auto& b : r.sweep.boundaries)
        undecided = undecided || b.kind == core::ChangeKind::unknown;
    ctx.exit_code = undecided ? exit_inconclusive : exit_ok;
}

} // namespace

void add_daily(CLI::App& app, Context& ctx) {
    auto f = std::make_shared<DailyFlags>();
    auto* cmd = app.add_subcommand(
        "daily", "Sweep dated nightly images between two dates and find every change of level");
    cmd->add_option("--from", f->from, "First date YYYY-MM-DD (tag date, publisher's time zone)")
        ->required();
    cmd->add_option("--to", f->to, "Last date YYYY-MM-DD")->required();
    using O = RunnerOption;
    add_runner_flags(
        cmd, f->runner,
        {{O::image, "Image template with {date} or {yyyy} {mm} {dd}, e.g. "
                    "ghcr.io/nvidia/jax:nightly-{date} or ghcr.io/nvidia/jax:jax-{date}"},
         O::runtime,
         {O::test, "Benchmark command template (split once, no shell)"}});
    cmd->get_option("--test")->required();
    cmd->add_option("--strategy", f->strategy, "exhaustive | adaptive | bisect")
        ->capture_default_str();
    cmd->add_option("--repeats", f->repeats, "Values per date at first")->capture_default_str();
    cmd->add_option("--max-repeats", f->max_repeats, "Cap when undecided dates double repeats")
        ->capture_default_str();
    cmd->add_option("--min-span", f->min_span,
                    "A change lasting at least this many days is always seen (adaptive)")
        ->capture_default_str();
    cmd->add_option("--min-change", f->min_change,
                    "Smallest relative change to find (0.02 = 2 %); smaller ones are ignored")
        ->capture_default_str();
    add_runner_flags(cmd, f->runner,
                     {{O::gpus, "GPU pool, e.g. 0,1 (that many dates run in parallel)"}});
    cmd->add_option("--state", f->state,
                    "State directory: every finished run is committed there; rerunning the same "
                    "command resumes");
    cmd->add_option("--history", f->history,
                    "History to reuse points from (same benchmark and runner) and append to");
    cmd->add_flag("--rerun", f->rerun, "Do not reuse history points");
    cmd->add_option("--max-runs", f->max_runs, "Budget of benchmark runs (0 = none)")
        ->capture_default_str();
    cmd->add_option("--max-time", f->max_time, "Wall-clock budget (e.g. 4h)");
    cmd->add_option("--commits-probe", f->probe,
                    "Command run once per measured date whose output names the build's commits "
                    "('NAME SHA [ISO-TIME]' lines or git-clone.yaml), e.g. cat "
                    "/opt/manifest.d/git-clone.yaml");
    cmd->add_option("--commits-label", f->commit_labels,
                    "REPO=LABEL: the image label naming the commit REPO was built from, read "
                    "without pulling (docker/podman; repeatable), e.g. "
                    "jax=org.opencontainers.image.revision");
    cmd->add_flag("--json", f->json, "Print the result as JSON");
    add_runner_flags(cmd, f->runner,
                     {O::timeout, O::warmup, O::metric, O::metric_regex, O::unit, O::benchmark,
                      O::direction, O::logs, O::mount, O::env_probe, O::env, O::workdir,
                      O::srun_arg, O::mode});
    cmd->callback([f, &ctx] { execute(*f, ctx); });
}

} // namespace perfsweep::cli
