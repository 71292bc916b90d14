#include "cli/runner_flags.hpp"

#include "core/exit_code.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <CLI/CLI.hpp>

namespace perfsweep::cli {

namespace {

const char* standard_help(RunnerOption o) {
    switch (o) {
    case RunnerOption::runtime:
        return "none | docker | podman | slurm";
    case RunnerOption::image:
        return "Image template, e.g. ghcr.io/nvidia/jax:nightly-{date}";
    case RunnerOption::test:
        return "Benchmark command template (split once, no shell), e.g. 'python3 b.py {gpu}'";
    case RunnerOption::build:
        return "Build command run before the test (in the kept container with --keep-container)";
    case RunnerOption::keep_container:
        return "docker/podman: one long-lived container; build and test run with exec";
    case RunnerOption::warmup:
        return "Runs discarded first";
    case RunnerOption::timeout:
        return "Per-run timeout (90s, 30m, 2h)";
    case RunnerOption::timeout_seconds:
        return "per run timeout in seconds (default 1800)";
    case RunnerOption::gpus:
        return "GPU pool, e.g. 0,1,2,3 (one worker per GPU)";
    case RunnerOption::metric:
        return "Metric name; default regex '<M>: <number>'";
    case RunnerOption::metric_regex:
        return "ECMAScript regex with one capture group holding the number";
    case RunnerOption::unit:
        return "Unit (default: the metric name)";
    case RunnerOption::benchmark:
        return "Benchmark name (default: the test command)";
    case RunnerOption::direction:
        return "higher | lower (which is better)";
    case RunnerOption::logs:
        return "Directory for per-run logs";
    case RunnerOption::logs_dir:
        return "where run logs go (default perfsweep-logs)";
    case RunnerOption::mount:
        return "Container mount SRC:DST[:ro] (repeatable)";
    case RunnerOption::env_probe:
        return "Environment fingerprint probe, run once per image: default (built-in script: CUDA, "
               "cuDNN, NCCL, cuBLAS, driver, GPU, Python packages), none, or a command "
               "printing key=value lines";
    case RunnerOption::env:
        return "Extra environment NAME=VALUE (repeatable)";
    case RunnerOption::workdir:
        return "Working directory ({workdir})";
    case RunnerOption::keep_images:
        return "Do not remove images perfsweep pulled";
    case RunnerOption::srun_arg:
        return "Extra srun argument, e.g. --partition=gpu (repeatable)";
    case RunnerOption::mode:
        return "metric | exit-code (exit status decides: 0 good, 1-127 bad, 125 skip, >=128 abort)";
    }
    return "";
}

// Adds one flag; returns the option, or nullptr for a flag (no value, no default to show).
CLI::Option* add_one(CLI::App* cmd, RunnerFlags& f, RunnerOption o, const std::string& help) {
    auto& c = f.cfg;
    switch (o) {
    case RunnerOption::runtime:
        return cmd->add_option("--runtime", c.runtime, help);
    case RunnerOption::image:
        return cmd->add_option("--image", c.image, help);
    case RunnerOption::test:
        return cmd->add_option("--test", c.test_command, help);
    case RunnerOption::build:
        return cmd->add_option("--build", c.build_command, help);
    case RunnerOption::keep_container:
        cmd->add_flag("--keep-container", c.kept_container, help);
        return nullptr;
    case RunnerOption::warmup:
        return cmd->add_option("--warmup", c.warmup, help);
    case RunnerOption::timeout:
        return cmd->add_option("--timeout", f.timeout, help);
    case RunnerOption::timeout_seconds:
        f.timeout_in_seconds = true;
        return cmd->add_option("--timeout", c.timeout_s, help);
    case RunnerOption::gpus:
        return cmd->add_option("--gpus", f.gpus, help);
    case RunnerOption::metric:
        return cmd->add_option("--metric", c.metric, help);
    case RunnerOption::metric_regex:
        return cmd->add_option("--metric-regex", c.metric_regex, help);
    case RunnerOption::unit:
        return cmd->add_option("--unit", c.unit, help);
    case RunnerOption::benchmark:
        return cmd->add_option("--benchmark", c.benchmark, help);
    case RunnerOption::direction:
        return cmd->add_option("--direction", f.direction, help);
    case RunnerOption::logs:
        return cmd->add_option("--logs", c.logs_dir, help);
    case RunnerOption::logs_dir:
        return cmd->add_option("--logs-dir", c.logs_dir, help);
    case RunnerOption::mount:
        return cmd->add_option("--mount", c.mounts, help);
    case RunnerOption::env_probe:
        c.env_probe = "default";
        return cmd->add_option("--env-probe", c.env_probe, help);
    case RunnerOption::env:
        return cmd->add_option("--env", f.env, help);
    case RunnerOption::workdir:
        return cmd->add_option("--workdir", c.workdir, help);
    case RunnerOption::keep_images:
        cmd->add_flag("--keep-images", c.keep_images, help);
        return nullptr;
    case RunnerOption::srun_arg:
        return cmd->add_option("--srun-arg", c.srun_args, help);
    case RunnerOption::mode:
        return cmd->add_option("--mode", f.mode, help);
    }
    return nullptr;
}

bool shows_default(RunnerOption o) {
    switch (o) {
    case RunnerOption::runtime:
    case RunnerOption::warmup:
    case RunnerOption::timeout:
    case RunnerOption::metric:
    case RunnerOption::direction:
    case RunnerOption::logs:
    case RunnerOption::env_probe:
    case RunnerOption::mode:
        return true;
    default:
        return false;
    }
}

} // namespace

void add_runner_flags(CLI::App* cmd, RunnerFlags& f, std::initializer_list<RunnerFlag> which) {
    for (const auto& w : which) {
        auto* opt = add_one(cmd, f, w.option, w.help ? w.help : standard_help(w.option));
        if (opt && w.show_default && shows_default(w.option))
            opt->capture_default_str();
    }
}

bool exit_code_mode(const RunnerFlags& f) {
    const auto mode = core::parse_run_mode(f.mode);
    if (!mode)
        throw_usage("--mode '" + f.mode + "': expected metric or exit-code");
    return *mode == core::RunMode::exit_code;
}

ports::RunnerConfig runner_config(const RunnerFlags& f) {
    auto cfg = f.cfg;
    if (!f.timeout_in_seconds) {
        const auto timeout = util::parse_duration(f.timeout);
        if (!timeout)
            throw_usage("--timeout '" + f.timeout +
                        "': expected a duration such as 90s, 30m or 2h");
        cfg.timeout_s = static_cast<double>(*timeout);
    }
    const auto dir = core::parse_direction(f.direction);
    if (!dir)
        throw_usage("--direction '" + f.direction + "': expected higher or lower");
    cfg.direction = *dir;
    cfg.exit_code_mode = exit_code_mode(f);
    if (!f.gpus.empty())
        for (const auto& g : util::split(f.gpus, ','))
            cfg.gpus.emplace_back(util::trim(g));
    for (const auto& kv : f.env) {
        const auto eq = kv.find('=');
        if (eq == std::string::npos || eq == 0 || (f.env_needs_value && eq + 1 == kv.size()))
            throw_usage("--env '" + kv + "': expected NAME=VALUE");
        if (f.env_first_wins)
            cfg.env.emplace(kv.substr(0, eq), kv.substr(eq + 1));
        else
            cfg.env[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    return cfg;
}

} // namespace perfsweep::cli
