#pragma once
// PointRunner and Builder over child processes: a plain process (runtime none), a fresh
// docker/podman container per run, one kept container with `exec`, or a Slurm `srun` job step.

#include "core/command_template.hpp"
#include "ports/clock.hpp"
#include "ports/progress.hpp"
#include "ports/runner_config.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace perfsweep::adapters {

/// Runs benchmark points as child processes per `RunnerConfig::runtime`.
class ProcessRunner final : public ports::BuildingRunner {
public:
    /// Validate `config` (throws a usage error naming the flag) and prepare; starts nothing yet.
    ProcessRunner(ports::RunnerConfig config, ports::Progress& progress, ports::Clock& clock);
    /// Stops and removes a kept container and removes images perfsweep pulled (unless kept).
    ~ProcessRunner() override;
    ProcessRunner(const ProcessRunner&) = delete;
    ProcessRunner& operator=(const ProcessRunner&) = delete;
    /// Measure each request (in parallel over the GPU pool); results in request order.
    std::vector<core::Measurement>
    run_points(const std::vector<ports::PointRequest>& requests) override;
    /// Size of the GPU pool, 1 without one.
    int workers() const override;
    /// Run the build command for `request` (in the kept container when there is one).
    ports::StepOutcome build(const ports::PointRequest& request) override;

private:
    struct Launch;
    struct RunOutcome;
    struct Batch;
    core::Measurement run_one(const ports::PointRequest& request, size_t worker, Batch& batch);
    RunOutcome run_once(const core::CommandTemplate& cmd, std::map<std::string, std::string> values,
                        size_t worker, const std::string& image, const std::string& log,
                        const std::string& title, bool measure);
    std::map<std::string, std::string> base_values(const ports::PointRequest& request,
                                                   size_t worker) const;
    bool is_container() const;
    std::string check_image(const std::string& image, std::string& digest, core::Status& status);
    std::string ensure_container(const std::string& image, std::string& digest,
                                 core::Status& status);
    void remove_container();
    std::string make_point_dir(const std::string& label);
    const std::map<std::string, std::string>& fingerprint();

    ports::RunnerConfig m_cfg;
    ports::Progress& m_progress;
    ports::Clock& m_clock;
    core::CommandTemplate m_test;
    core::CommandTemplate m_build;
    std::string m_engine; ///< docker / podman / srun
    std::mutex m_mutex;
    std::set<std::string> m_pulled;
    std::string m_container;       ///< kept container name, empty when none runs
    std::string m_container_image; ///< image it was started from
    std::string m_container_digest;
    bool m_have_fingerprint = false;
    std::map<std::string, std::string> m_fingerprint;
    int m_container_seq = 0;

    // Environment fingerprints (adapters/process/env_probe): probed once per image and probe.
    void attach_environment(core::Measurement& m, const ports::PointRequest& request,
                            size_t worker);
    core::CommandTemplate m_env_probe; ///< empty words: no probe command
    bool m_env_on = false;             ///< false with --env-probe none: no labels either
    std::mutex m_env_mutex;
    std::map<std::string, std::map<std::string, std::string>> m_env_cache;
};

} // namespace perfsweep::adapters
