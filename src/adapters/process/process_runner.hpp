#pragma once
// The measuring loop over a runtime strategy (adapters/process/runtime): for each point it
// prepares the image, runs warmups and repeats as child processes, enforces the timeout, reads
// the metric (or the exit status) from each run's output as it streams by, reports progress, and
// spreads points over the GPU pool. PointRunner, Builder and CommandRunner for every runtime.

#include "adapters/process/runtime.hpp"
#include "core/command_template.hpp"
#include "ports/clock.hpp"
#include "ports/progress.hpp"
#include "ports/runner_config.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace perfsweep::adapters {

/// Runs benchmark points as child processes in the runtime `RunnerConfig::runtime` asks for.
class ProcessRunner final : public ports::BuildingRunner {
public:
    /// Validate `config` (throws a usage error naming the flag) and prepare; starts nothing yet.
    ProcessRunner(ports::RunnerConfig config, ports::Progress& progress, ports::Clock& clock);
    /// The same over a runtime of the caller's choice (`config.runtime` is then only a name).
    ProcessRunner(ports::RunnerConfig config, std::unique_ptr<Runtime> runtime,
                  ports::Progress& progress, ports::Clock& clock);
    /// Ends the runtime: stops and removes a kept container, removes images perfsweep pulled.
    ~ProcessRunner() override;
    ProcessRunner(const ProcessRunner&) = delete;
    ProcessRunner& operator=(const ProcessRunner&) = delete;
    /// Measure each request (in parallel over the GPU pool); results in request order.
    std::vector<core::Measurement>
    run_points(const std::vector<ports::PointRequest>& requests) override;
    /// One thread per GPU asks for its next point as soon as it is free (no round barrier).
    void
    run_stream(const std::function<std::optional<ports::PointRequest>()>& next,
               const std::function<void(const ports::PointRequest& request,
                                        std::vector<core::Measurement> result)>& done) override;
    /// Size of the GPU pool, 1 without one.
    int workers() const override;
    /// Run the build command for `request` (in the kept container when there is one).
    ports::StepOutcome build(const ports::PointRequest& request) override;
    /// This machine's fingerprint (probed once; every measurement carries it).
    std::map<std::string, std::string> runner_fingerprint() override { return fingerprint(); }
    /// Run the test command once, not as a benchmark run (no metric, no run line, not counted).
    ports::CommandOutcome run_command(const ports::PointRequest& request,
                                      const std::string& name) override;

private:
    struct RunOutcome;
    struct Batch;
    struct MetricValues;
    /// What a run's output is read for: the metric, nothing (a build), or its first MiB (a
    /// probe).
    enum class Reading { metric, nothing, output };
    void configure();
    std::vector<core::Measurement> measure(const ports::PointRequest& request, size_t worker,
                                           Batch& batch);
    bool several_metrics() const;
    std::vector<core::Measurement> split_metrics(const core::Measurement& m,
                                                 const MetricValues& acc) const;
    RunOutcome run_once(const core::CommandTemplate& cmd,
                        const std::map<std::string, std::string>& values, size_t worker,
                        const std::string& image, const std::string& log, const std::string& title,
                        Reading reading);
    std::map<std::string, std::string> base_values(const ports::PointRequest& request,
                                                   size_t worker) const;
    std::string make_point_dir(const std::string& label);
    const std::map<std::string, std::string>& fingerprint();
    void attach_environment(core::Measurement& m, const ports::PointRequest& request,
                            size_t worker);

    ports::RunnerConfig m_cfg;
    std::size_t m_log_limit = k_default_log_limit; ///< bytes of a run's output its log keeps
    std::unique_ptr<Runtime> m_runtime;
    ports::Progress& m_progress;
    ports::Clock& m_clock;
    core::CommandTemplate m_test;
    core::CommandTemplate m_build;

    std::once_flag m_fingerprint_once;
    std::map<std::string, std::string> m_fingerprint;

    // Environment fingerprints (adapters/process/env_probe): probed once per image and probe.
    core::CommandTemplate m_env_probe; ///< empty words: no probe command
    bool m_env_on = false;             ///< false with --env-probe none: no labels either
    std::mutex m_env_mutex;
    std::map<std::string, std::map<std::string, std::string>> m_env_cache;
};

} // namespace perfsweep::adapters
