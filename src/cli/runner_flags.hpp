#pragma once
// The runner flags shared by run, daily, hourly, investigate and probe: one place declares them
// (names, standard help texts, shown defaults) and one place turns them into a RunnerConfig with
// the same checks and messages for every command.

#include "ports/runner_config.hpp"

#include <initializer_list>
#include <string>
#include <vector>

namespace CLI {
class App;
} // namespace CLI

namespace perfsweep::cli {

/// One runner flag a command offers.
enum class RunnerOption {
    runtime,         ///< --runtime (cfg.runtime)
    image,           ///< --image
    test,            ///< --test (cfg.test_command)
    build,           ///< --build (cfg.build_command)
    keep_container,  ///< --keep-container
    warmup,          ///< --warmup
    timeout,         ///< --timeout as a duration (90s, 30m, 2h), checked by runner_config
    timeout_seconds, ///< --timeout as a number of seconds (hourly), bound to cfg.timeout_s
    gpus,            ///< --gpus 0,1,2
    metric,          ///< --metric
    metric_regex,    ///< --metric-regex
    unit,            ///< --unit
    benchmark,       ///< --benchmark
    direction,       ///< --direction higher | lower, checked by runner_config
    logs,            ///< --logs (cfg.logs_dir)
    logs_dir,        ///< --logs-dir (cfg.logs_dir; hourly's name)
    mount,           ///< --mount (repeatable)
    env_probe,       ///< --env-probe (default "default")
    env,             ///< --env NAME=VALUE (repeatable), checked by runner_config
    workdir,         ///< --workdir
    keep_images,     ///< --keep-images
    srun_arg,        ///< --srun-arg (repeatable)
    mode,            ///< --mode metric | exit-code, checked by runner_config
};

/// A runner flag with its command's help text; no text: the standard one. Flags that show their
/// default in --help (runtime, warmup, timeout, metric, direction, logs, env-probe, mode) do so
/// unless show_default is false.
struct RunnerFlag {
    RunnerOption option;
    const char* help = nullptr;
    bool show_default = true;
    /// The flag with the standard help text.
    RunnerFlag(RunnerOption o) : option(o) {} // NOLINT(google-explicit-constructor)
    /// The flag with this command's help text.
    RunnerFlag(RunnerOption o, const char* text, bool show = true)
        : option(o), help(text), show_default(show) {}
};

/// The raw runner flags of one command; cfg receives the flags that need no check.
struct RunnerFlags {
    ports::RunnerConfig cfg;
    std::string timeout = "30m";
    std::string direction = "higher";
    std::string mode = "metric";
    std::string gpus;
    std::vector<std::string> env;
    /// Set by add_runner_flags for RunnerOption::timeout_seconds: cfg.timeout_s is the timeout.
    bool timeout_in_seconds = false;
};

/// Add `which` to `cmd`, in that order, bound to `f`.
void add_runner_flags(CLI::App* cmd, RunnerFlags& f, std::initializer_list<RunnerFlag> which);

/// The mode flag: true for exit-code, false for metric; a usage error naming --mode otherwise.
bool exit_code_mode(const RunnerFlags& f);

/// f.cfg completed from the flags that need checking (timeout, direction, mode, gpus, env), in
/// that order; a usage error naming the flag and what it expects on bad input.
ports::RunnerConfig runner_config(const RunnerFlags& f);

} // namespace perfsweep::cli
