#pragma once
// The Slurm equivalent of a kept container for the hourly stage: a runtime strategy
// (adapters/process/runtime) that holds one allocation for the whole search (`salloc --no-shell`,
// released with `scancel`) and runs every build and run as a job step in it (`srun --jobid=J`);
// with an image all steps share one named pyxis container (`--container-name`), so a build's
// files are still there for the next build and the tests.

#include "adapters/process/containment.hpp"
#include "adapters/process/process_runner.hpp"
#include "adapters/process/runtime.hpp"
#include "ports/clock.hpp"
#include "ports/progress.hpp"
#include "ports/runner_config.hpp"

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace perfsweep::adapters {

/// Time limit of an allocation when the search has no --max-time (24 h).
inline constexpr double k_default_allocation_s = 24 * 3600;

/// The allocation's time limit: `allocation_time_s` (--max-time plus 15 minutes) when set, else
/// k_default_allocation_s.
double allocation_limit_s(double allocation_time_s);

/// The salloc command line for `config` (pure; for tests and messages): --no-shell, a job name,
/// one node, --gpus=N for a GPU pool, --time (allocation_limit_s, in minutes), then
/// config.salloc_args (a --time there comes later and wins).
std::vector<std::string> salloc_argv(const ports::RunnerConfig& config, const std::string& name);

/// The job id in salloc's "Granted job allocation N" line; "" when there is none.
std::string granted_job_id(const std::string& salloc_output);

/// Runtime slurm with kept_container: one allocation, allocated on the first prepare (salloc
/// waits in the queue at most the allocation's time limit), every command a step of it;
/// scancel'd on destruction. While held it is in the run registry (adapters/process/containment)
/// with `scancel JOB` as its cleanup: a SIGKILL of perfsweep does not leave it running.
class HeldAllocationRuntime final : public Runtime {
public:
    /// Throws a usage error for a runtime other than slurm or an --srun-arg that names the job
    /// or the container (perfsweep sets both); allocates nothing yet.
    HeldAllocationRuntime(const ports::RunnerConfig& config, ports::Progress& progress);
    /// Releases the allocation (scancel), which also drops the job's named container.
    ~HeldAllocationRuntime() override;
    HeldAllocationRuntime(const HeldAllocationRuntime&) = delete;
    HeldAllocationRuntime& operator=(const HeldAllocationRuntime&) = delete;
    /// Allocate on first use; `failed` with salloc's words when no allocation was granted.
    Readiness prepare(const std::string& image) override;
    /// The same for a build.
    Readiness prepare_build(const std::string& image) override;
    /// `srun --jobid=J [--container-image=<pyxis spelling> --container-name=perfsweep-J] …`.
    Launch wrap(const Invocation& inv) override;
    bool in_container() const override { return false; }
    /// The allocation's job id ("" before the first prepare).
    std::string job_id() const;

private:
    ports::RunnerConfig m_cfg;
    ports::Progress& m_progress;
    mutable std::mutex m_mutex;
    std::string m_job;
    std::string m_failure;                    ///< salloc's refusal, repeated to later steps
    std::unique_ptr<SlurmRuntime> m_steps;    ///< job steps of the held allocation
    std::unique_ptr<RunContainment> m_record; ///< the allocation in the run registry
};

/// The measuring loop over a held allocation: what `--runtime slurm` with a kept container (the
/// hourly stage) runs on. Validates `config` like ProcessRunner; allocates nothing yet.
std::unique_ptr<ProcessRunner> make_held_allocation_runner(const ports::RunnerConfig& config,
                                                           ports::Progress& progress,
                                                           ports::Clock& clock);

} // namespace perfsweep::adapters
