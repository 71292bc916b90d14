#include "app/run_point.hpp"
#include "cli/context.hpp"
#include "cli/output.hpp"
#include "core/exit_code.hpp"
#include "report/point_table.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>

namespace perfsweep::cli {

namespace {

struct RunFlags {
    ports::RunnerConfig cfg;
    std::string label, date, timeout = "30m", gpus, direction = "higher", history, stage = "record";
    int repeats = 1;
    bool json = false;
    std::vector<std::string> env, commits, paths;
    std::string mode = "metric";
};

// "NAME=VALUE" → pair; the flag is named in the error.
std::pair<std::string, std::string> key_value(const std::string& text, const std::string& flag) {
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0)
        throw_usage(flag + " '" + text + "': expected NAME=VALUE");
    return {text.substr(0, eq), text.substr(eq + 1)};
}

void execute(RunFlags& f, Context& ctx) {
    auto& a = ctx.adapters;
    if (!a.make_runner)
        throw_infra("no runner is available in this build");
    auto cfg = f.cfg;
    const auto timeout = util::parse_duration(f.timeout);
    if (!timeout)
        throw_usage("--timeout '" + f.timeout + "': expected a duration such as 90s, 30m or 2h");
    cfg.timeout_s = static_cast<double>(*timeout);
    const auto dir = core::parse_direction(f.direction);
    if (!dir)
        throw_usage("--direction '" + f.direction + "': expected higher or lower");
    cfg.direction = *dir;
    const auto mode = core::parse_run_mode(f.mode);
    if (!mode)
        throw_usage("--mode '" + f.mode + "': expected metric or exit-code");
    cfg.exit_code_mode = *mode == core::RunMode::exit_code;
    if (!f.gpus.empty())
        for (const auto& g : util::split(f.gpus, ','))
            cfg.gpus.emplace_back(util::trim(g));
    for (const auto& kv : f.env)
        cfg.env.insert(key_value(kv, "--env"));
    if (f.repeats < 1)
        throw_usage("--repeats " + std::to_string(f.repeats) + ": expected 1 or more");

    ports::PointRequest req;
    req.repeats = f.repeats;
    const auto stage = core::parse_stage(f.stage);
    if (!stage)
        throw_usage("--stage '" + f.stage + "': expected record, daily, hourly or commit");
    req.stage = *stage;
    if (!f.date.empty()) {
        if (!util::parse_date(f.date))
            throw_usage("--date '" + f.date + "': expected a calendar date YYYY-MM-DD");
        req.values["date"] = f.date;
    }
    for (const auto& kv : f.commits) {
        auto [name, sha] = key_value(kv, "--commit");
        req.values["commit:" + name] = sha;
        req.commits[name] = sha;
    }
    for (const auto& kv : f.paths) {
        auto [name, path] = key_value(kv, "--path");
        req.values["path:" + name] = path;
    }
    req.label = !f.label.empty() ? f.label
                : !f.date.empty()
                    ? f.date
                    : util::format_iso8601(static_cast<util::UnixSeconds>(a.clock->now()));

    std::unique_ptr<ports::HistoryStore> history;
    if (!f.history.empty()) {
        if (!a.open_history)
            throw_infra("no history store is available in this build");
        history = a.open_history(f.history);
    }
    auto runner = a.make_runner(cfg);
    auto m = app::run_point(*runner, cfg.build_command.empty() ? nullptr : runner.get(), req,
                            history.get());
    if (m.metric.empty()) { // a failed build never reached the runner
        m.metric = cfg.metric;
        m.unit = cfg.unit.empty() ? cfg.metric : cfg.unit;
        m.benchmark = cfg.benchmark.empty() ? cfg.test_command : cfg.benchmark;
        m.direction = cfg.direction;
    }
    if (f.json) {
        if (!a.measurement_json)
            throw_infra("no JSON encoder is available in this build");
        write_json(a.measurement_json(m) + "\n");
    } else {
        write_inert(report::render_points({m}));
        if (history)
            print_inert("recorded in %s\n", history->describe().c_str());
    }
    std::fflush(stdout);
    ctx.exit_code = m.status == core::Status::ok ? exit_ok : exit_inconclusive;
}

} // namespace

void add_run(CLI::App& app, Context& ctx) {
    auto f = std::make_shared<RunFlags>();
    auto* cmd = app.add_subcommand(
        "run",
        "Run the benchmark for one point (repeats, timeout, runtime) and print or record it");
    cmd->add_option("--runtime", f->cfg.runtime, "none | docker | podman | slurm")
        ->capture_default_str();
    cmd->add_option("--image", f->cfg.image,
                    "Image template, e.g. ghcr.io/nvidia/jax:nightly-{date}");
    cmd->add_option("--test", f->cfg.test_command,
                    "Benchmark command template (split once, no shell), e.g. 'python3 b.py {gpu}'")
        ->required();
    cmd->add_option("--build", f->cfg.build_command,
                    "Build command run before the test (in the kept container with "
                    "--keep-container)");
    cmd->add_flag("--keep-container", f->cfg.kept_container,
                  "docker/podman: one long-lived container; build and test run with exec");
    cmd->add_option("--label", f->label, "Label of the point (default: --date, else now)");
    cmd->add_option("--date", f->date, "Date of the point, YYYY-MM-DD ({date}, {yyyy}...)");
    cmd->add_option("--stage", f->stage, "record | daily | hourly | commit")->capture_default_str();
    cmd->add_option("--repeats", f->repeats, "Values wanted")->capture_default_str();
    cmd->add_option("--warmup", f->cfg.warmup, "Runs discarded first")->capture_default_str();
    cmd->add_option("--timeout", f->timeout, "Per-run timeout (90s, 30m, 2h)")
        ->capture_default_str();
    cmd->add_option("--gpus", f->gpus, "GPU pool, e.g. 0,1,2,3 (one worker per GPU)");
    cmd->add_option("--metric", f->cfg.metric, "Metric name; default regex '<M>: <number>'")
        ->capture_default_str();
    cmd->add_option("--metric-regex", f->cfg.metric_regex,
                    "ECMAScript regex with one capture group holding the number");
    cmd->add_option("--unit", f->cfg.unit, "Unit (default: the metric name)");
    cmd->add_option("--benchmark", f->cfg.benchmark, "Benchmark name (default: the test command)");
    cmd->add_option("--direction", f->direction, "higher | lower (which is better)")
        ->capture_default_str();
    cmd->add_option("--logs", f->cfg.logs_dir, "Directory for per-run logs")->capture_default_str();
    cmd->add_option("--history", f->history, "Append the measurement to this history");
    cmd->add_flag("--json", f->json, "Print the measurement as JSON");
    cmd->add_option("--mount", f->cfg.mounts, "Container mount SRC:DST[:ro] (repeatable)");
    f->cfg.env_probe = "default";
    cmd->add_option(
           "--env-probe", f->cfg.env_probe,
           "Environment fingerprint probe, run once per image: default (built-in script: CUDA, "
           "cuDNN, NCCL, cuBLAS, driver, GPU, Python packages), none, or a command "
           "printing key=value lines")
        ->capture_default_str();
    cmd->add_option("--env", f->env, "Extra environment NAME=VALUE (repeatable)");
    cmd->add_option("--workdir", f->cfg.workdir, "Working directory ({workdir})");
    cmd->add_option("--commit", f->commits, "NAME=SHA for {commit:NAME} (repeatable)");
    cmd->add_option("--path", f->paths, "NAME=DIR for {path:NAME} (repeatable)");
    cmd->add_flag("--keep-images", f->cfg.keep_images, "Do not remove images perfsweep pulled");
    cmd->add_option("--srun-arg", f->cfg.srun_args,
                    "Extra srun argument, e.g. --partition=gpu (repeatable)");
    cmd->add_option("--mode", f->mode,
                    "metric | exit-code (exit status decides: 0 good, 1-127 bad, 125 skip, "
                    ">=128 abort)")
        ->capture_default_str();
    cmd->callback([f, &ctx] { execute(*f, ctx); });
}

} // namespace perfsweep::cli
