#pragma once
// Port: how to build a PointRunner (runtime, image, command template, repeats, GPUs, ...).

#include "core/model.hpp"
#include "ports/runner.hpp"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace perfsweep::ports {

/// Everything a runner needs; filled from flags or a config file.
struct RunnerConfig {
    std::string runtime = "none";  ///< none | docker | podman | slurm
    std::string image;             ///< image template, e.g. ghcr.io/nvidia/jax:nightly-{date}
    std::string test_command;      ///< benchmark command template
    std::string build_command;     ///< build command template (kept container / Builder)
    bool kept_container = false;   ///< docker/podman: one long-lived container, `exec` runs
    int warmup = 0;                ///< runs discarded before the measured ones
    double timeout_s = 1800;       ///< per run
    double grace_s = 10;           ///< SIGTERM → SIGKILL
    std::vector<std::string> gpus; ///< GPU pool; empty: one worker, GPUs untouched
    std::string metric = "MLUPS";  ///< metric name
    std::string metric_regex;      ///< empty: core::default_metric_regex(metric)
    std::string unit;              ///< empty: the metric name
    std::string benchmark;         ///< empty: core::default_benchmark_name(test command)
    std::string testbed;           ///< stored as runner["testbed"] when given (--testbed)
    /// `run`: several metrics read from the same runs (--metric repeated, each with its default
    /// regex, or `metric_regex` with a (?<name>...) group); each becomes its own measurement.
    /// Empty: only `metric`.
    std::vector<std::string> metrics;
    core::Direction direction = core::Direction::higher_is_better;
    std::string logs_dir = "perfsweep-logs"; ///< per-run logs go below it
    std::vector<std::string> mounts;         ///< docker -v / srun --container-mounts specs
    std::map<std::string, std::string> env;  ///< extra environment for the benchmark
    std::string workdir;                     ///< working directory ({workdir}); empty: current
    bool keep_images = false;                ///< do not `rmi` images perfsweep pulled
    std::vector<std::string> srun_args;      ///< extra srun arguments (partition, account, ...)
    /// slurm with kept_container (hourly): the allocation held for the whole search gets these
    /// extra salloc arguments and, when > 0, this time limit.
    std::vector<std::string> salloc_args;
    double allocation_time_s = 0;
    bool echo_logs = false; ///< echo each run's log through Progress
    /// Environment probe run once per image (not per repeat): "" or "none" = off, "default" =
    /// the built-in script, else a command template printing key=value lines.
    std::string env_probe;
    /// exit-code mode: each run's exit status decides (no metric); values are failure
    /// indicators (1 failed, 0 passed) and Measurement::exit_codes holds every status.
    bool exit_code_mode = false;
};

/// A runner over one environment that can also build (kept container for the hourly stage) and
/// run commands that are not benchmark runs (probes).
class BuildingRunner : public PointRunner, public Builder, public CommandRunner {};

/// Creates runners.
class Runners {
public:
    virtual ~Runners() = default;
    /// The runner for `config` (runtime none/docker/podman/slurm, kept container). Throws a usage
    /// error for a bad config.
    virtual std::unique_ptr<BuildingRunner> make(const RunnerConfig& config) = 0;
};

} // namespace perfsweep::ports
