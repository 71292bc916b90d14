#pragma once
// The Slurm equivalent of a kept container for the hourly stage: one allocation held for the whole
// search (`salloc --no-shell`, released with `scancel`), every build and run a job step in it
// (`srun --jobid=J`), and with an image all steps share one named pyxis container
// (`--container-name`), so a build's files are still there for the next build and the tests.

#include "adapters/process/process_runner.hpp"
#include "ports/clock.hpp"
#include "ports/progress.hpp"
#include "ports/runner_config.hpp"

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace perfsweep::adapters {

/// The salloc command line for `config` (pure; for tests and messages): --no-shell, a job name,
/// one node, --gpus=N for a GPU pool, --time when a limit is given, then config.salloc_args.
std::vector<std::string> salloc_argv(const ports::RunnerConfig& config, const std::string& name);

/// The job id in salloc's "Granted job allocation N" line; "" when there is none.
std::string granted_job_id(const std::string& salloc_output);

/// A runner whose steps run in one held Slurm allocation (runtime slurm with kept_container).
class HeldAllocationRunner final : public ports::BuildingRunner {
public:
    /// Validates like ProcessRunner; allocates nothing until the first build or run.
    HeldAllocationRunner(ports::RunnerConfig config, ports::Progress& progress,
                         ports::Clock& clock);
    /// Releases the allocation (scancel), which also drops the job's named container.
    ~HeldAllocationRunner() override;
    HeldAllocationRunner(const HeldAllocationRunner&) = delete;
    HeldAllocationRunner& operator=(const HeldAllocationRunner&) = delete;
    /// Run the points as job steps of the allocation.
    std::vector<core::Measurement>
    run_points(const std::vector<ports::PointRequest>& requests) override;
    /// The GPU pool size (1 without a pool).
    int workers() const override;
    /// Run the build as a job step of the allocation (in the named container with an image).
    ports::StepOutcome build(const ports::PointRequest& request) override;
    /// The allocation's job id ("" before the first step).
    const std::string& job_id() const { return m_job; }

private:
    /// Allocate on first use; false with `why` when salloc failed.
    bool ensure(std::string& why);

    ports::RunnerConfig m_cfg;
    ports::Progress& m_progress;
    ports::Clock& m_clock;
    std::unique_ptr<ProcessRunner> m_inner;
    std::string m_job;
    std::mutex m_mutex;
};

} // namespace perfsweep::adapters
