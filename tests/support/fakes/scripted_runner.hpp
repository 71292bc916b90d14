#pragma once
// A scripted benchmark behind ports::Runners: what each run gives is a value of the script
// (a metric, a failure, a hang that the runner reports as a timeout, a missing image), builds and
// commands (the commits probe) too. It measures like ProcessRunner (same fields, the first failing
// run ends the point and drops its values) and counts everything it was asked to do.

#include "ports/clock.hpp"
#include "ports/files.hpp"
#include "ports/runner_config.hpp"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace perfsweep::fakes {

/// What one run of the benchmark does.
struct Run {
    enum class Kind { value, fail, hang, missing, exit } kind = Kind::value;
    double value = 0;   ///< the metric (Kind::value)
    std::string reason; ///< why not (fail, missing)
    int code = 0;       ///< the exit status (Kind::exit; a value exits 0)
    std::string output; ///< what the run printed (its log, when the runners have `logs`)
    /// Several metrics (RunnerConfig::metrics): each one's value (a configured metric missing
    /// here has no value in the run); when empty, `value` is the first metric's and only its.
    std::map<std::string, double> metrics = {};
    /// Prints `v`.
    static Run of(double v) { return {Kind::value, v, "", 0, ""}; }
    /// Prints one value per metric name ("MLUPS_128: 5505.5", ...).
    static Run of_metrics(std::map<std::string, double> values) {
        return {Kind::value, 0, "", 0, "", std::move(values)};
    }
    /// Exits non-zero (`why` like "exit code 1").
    static Run failed(std::string why = "exit code 1") {
        return {Kind::fail, 0, std::move(why), 0, ""};
    }
    /// Never ends: the runner's timeout stops it.
    static Run hang() { return {Kind::hang, 0, "", 0, ""}; }
    /// The image of the point does not exist (not a run: nothing is counted).
    static Run missing() { return {Kind::missing, 0, "image not found", 0, ""}; }
    /// Exits with `status` after printing `printed`; in exit-code mode the status is the result
    /// (git bisect run's contract), else a non-zero status is a failed run.
    static Run exit(int status, std::string printed = "") {
        return {Kind::exit, 0, "exit code " + std::to_string(status), status, std::move(printed)};
    }
};

/// The benchmark: run number `repeat` ({repeat}) of `request` (label, commits, placeholders).
using RunScript = std::function<Run(const ports::PointRequest& request, int repeat)>;
/// A build of a source state: ok, or a failure reason.
using BuildScript = std::function<ports::StepOutcome(const ports::PointRequest& request)>;
/// A command that is not a benchmark run (the commits probe): what it prints, or a failure.
using CommandScript = std::function<ports::CommandOutcome(const ports::PointRequest& request)>;

/// Everything the scripted runners were asked to do, across every runner made.
struct RunLog {
    std::vector<ports::RunnerConfig> configs; ///< every make(), in order
    std::vector<ports::PointRequest> points;  ///< every point asked for
    std::map<std::string, int> runs;          ///< label → benchmark runs (warmups included)
    std::map<std::string, int> builds;        ///< "repo@sha ..." → builds
    std::map<std::string, int> commands;      ///< label → commands run
    long total_runs() const;                  ///< sum of runs
    long total_builds() const;                ///< sum of builds
};

/// Makes runners that run the scripts.
class ScriptedRunners final : public ports::Runners {
public:
    /// Runs read `clock` for timestamps; a hang advances it by the config's timeout.
    explicit ScriptedRunners(ports::Clock& clock) : m_clock(clock) {}
    /// A runner for `config` (recorded in log.configs). Refuses an unknown runtime like the real
    /// factory does.
    std::unique_ptr<ports::BuildingRunner> make(const ports::RunnerConfig& config) override;

    RunScript run;                ///< required before a run
    BuildScript build;            ///< default: every build succeeds
    CommandScript command;        ///< default: the command fails ("no probe scripted")
    double seconds_per_run = 30;  ///< how far each run moves the clock
    ports::Files* logs = nullptr; ///< when set, each run's output is written to its log file
    /// The machine: each measurement's runner fingerprint, also told up front like ProcessRunner.
    std::map<std::string, std::string> machine = {{"host", "fake"}};
    RunLog log;

private:
    ports::Clock& m_clock;
};

/// "name@sha name@sha" of a request's commits (RunLog::builds keys).
std::string state_key(const std::map<std::string, std::string>& commits);

} // namespace perfsweep::fakes
