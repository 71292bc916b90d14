#pragma once
// Port: run the user's benchmark for one or more points and turn its output into measurements.

#include "core/model.hpp"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace perfsweep::ports {

/// One point to measure. `values` fills the command placeholders ({date}, {image}, {time},
/// {commit:NAME}, {path:NAME}, ...); the runner adds {gpu}, {repeat} and {workdir} itself.
struct PointRequest {
    std::string label;                          ///< e.g. "2023-08-24" or "2023-08-24T13:00:00Z"
    core::Stage stage = core::Stage::record;    ///< recorded into the measurement
    std::map<std::string, std::string> values;  ///< placeholder name → value
    std::map<std::string, std::string> commits; ///< repo → sha, recorded into the measurement
    std::map<std::string, std::string> commit_times; ///< repo → ISO time, recorded
    int repeats = 1;                                 ///< values wanted for this point
    /// {repeat} of the first run: a point measured by several calls (one run each, so every
    /// finished run is recorded before the next) numbers its runs on across the calls.
    int first_repeat = 1;
};

/// Result of a build step (hourly stage): ok, or a reason and log path.
struct StepOutcome {
    bool ok = false;
    std::string reason;
    std::string log;
};

/// What a command that is not a benchmark run gave back (CommandRunner).
struct CommandOutcome {
    bool ok = false;    ///< it ran and exited 0 (its output is not searched for a metric)
    std::string reason; ///< why not: "exit code 2", "timed out after 30s", "image … not found"
    std::string output; ///< what it printed (stdout and stderr, secrets masked), first 1 MiB
    std::string log;    ///< the log file of its whole output ("" when it did not start)
};

/// Runs a command through the same runtime as the benchmark without it being a benchmark run:
/// no metric is read, no run progress line is printed and it is not a run (the commits probe).
class CommandRunner {
public:
    virtual ~CommandRunner() = default;
    /// Run the configured command once with `request`'s placeholder values ({repeat} is `name`);
    /// its log is `<logs>/<label>/<name>.log`. A failure is an outcome, not an exception; an
    /// interruption (Ctrl-C) throws.
    virtual CommandOutcome run_command(const PointRequest& request, const std::string& name) = 0;
};

/// Runs benchmark points. Implementations exist per runtime (none, docker, podman, kept container,
/// slurm); a pool of GPUs makes `run_points` run independent points in parallel.
class PointRunner {
public:
    virtual ~PointRunner() = default;
    /// Measure every request; returns one measurement per request, in request order (with
    /// RunnerConfig::metrics: one per request and metric, grouped by request). Failures are
    /// measurements with a non-ok status, never exceptions.
    virtual std::vector<core::Measurement>
    run_points(const std::vector<PointRequest>& requests) = 0;
    /// How many points can run at once (the GPU pool size, 1 without a pool).
    virtual int workers() const = 0;
    /// Measure a stream of points without a round barrier: whenever a worker is free, `next` is
    /// asked for its point (none: nothing to start until a point in flight reports), and `done`
    /// gets each point's measurements as soon as it finishes (as run_points returns them). The
    /// two are never called at the same time. Returns when `next` gives none with no point in
    /// flight; an exception of either callback stops the stream and is rethrown. This default
    /// measures one point at a time.
    virtual void
    run_stream(const std::function<std::optional<PointRequest>()>& next,
               const std::function<void(const PointRequest& request,
                                        std::vector<core::Measurement> result)>& done) {
        while (const auto q = next())
            done(*q, run_points({*q}));
    }
    /// The fingerprint its measurements will carry (`runner`: gpu, driver, ...), known before
    /// any run so that history points of this machine are reused before the first round; empty
    /// when only a measurement tells.
    virtual std::map<std::string, std::string> runner_fingerprint() { return {}; }
};

/// A build environment for source states (hourly and commit stages): builds the checked-out
/// sources before the test runs, e.g. `build-jax.sh` inside a kept container.
class Builder {
public:
    virtual ~Builder() = default;
    /// Run the build command for `request`; a failure is a value, not an exception.
    virtual StepOutcome build(const PointRequest& request) = 0;
};

} // namespace perfsweep::ports
