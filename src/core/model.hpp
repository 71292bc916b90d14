#pragma once
// The measurement model shared by every stage: one benchmark result with its provenance.

#include "util/enum_names.hpp"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfsweep::core {

/// Whether larger or smaller values of a metric are better.
enum class Direction { higher_is_better, lower_is_better };

/// Outcome of one measurement attempt.
enum class Status {
    ok,      ///< the metric was read; `values` holds every repeat
    failed,  ///< non-zero exit, crash or no metric in the output; `reason` says which
    timeout, ///< killed after the per-run timeout
    missing, ///< the image or environment does not exist
};

/// Whether a change of level is for the worse or the better, given the metric's direction; unknown
/// while a sweep has not decided it. One kind for detect's change points and the sweeps'
/// boundaries.
enum class ChangeKind { regression, improvement, unknown };

/// Which narrowing stage produced a measurement.
enum class Stage { record, daily, hourly, commit };

/// What is known about a point of a sweep (a nightly date, a source state): one vocabulary for
/// the planners, the stages and the results.
enum class StateStatus {
    planned,      ///< `--plan`: listed, not to be measured
    untested,     ///< not measured (not needed, or the budget ran out)
    duplicate,    ///< the same commits as the previous grid point
    good,         ///< measured at the old (good) level
    bad,          ///< measured at the new (bad) level
    unknown,      ///< measured, level not decided
    build_failed, ///< the build failed
    test_failed,  ///< the test failed, timed out, printed no metric, or its image is missing
};

/// "planned" / "untested" / "duplicate" / "good" / "bad" / "unknown" / "build_failed" /
/// "test_failed".
std::string_view to_string(StateStatus s);
/// Parse a state status name; nullopt otherwise.
std::optional<StateStatus> parse_state_status(std::string_view s);
/// True for good, bad and unknown: the state was built and measured.
bool is_measured(StateStatus s);
/// True for build_failed and test_failed: the state could not be measured.
bool is_broken(StateStatus s);

/// A change of level between two points of a series: what detect's change points and the sweeps'
/// boundaries share.
struct LevelChange {
    double old_level = 0;                  ///< level before (median of the old segment)
    double new_level = 0;                  ///< level after
    double relative_change = 0;            ///< (new - old) / |old|
    double p_value = 1;                    ///< the test that decided it
    ChangeKind kind = ChangeKind::unknown; ///< regression/improvement; unknown = undecided
};

/// One benchmark result with everything needed to trust, reuse and reproduce it.
struct Measurement {
    std::string benchmark; ///< e.g. "MLUPS3d.py 256 200"
    std::string metric;    ///< e.g. "MLUPS"
    std::string unit;      ///< e.g. "MLUPS"; may be empty
    Direction direction = Direction::higher_is_better;
    std::vector<double> values;  ///< every raw repeat value (empty unless ok)
    std::string label;           ///< e.g. nightly date "2023-08-24" or an hour
    std::string timestamp;       ///< UTC ISO 8601 time of the measurement
    Stage stage = Stage::record; ///< which stage produced it
    std::string image;           ///< image reference, if any
    std::string digest;          ///< image digest, when known
    /// the build recipe: "" = the image's own build; else the command that rebuilt the sources
    /// (the hourly and commit stages' --build)
    std::string recipe;
    std::map<std::string, std::string> commits; ///< source repo name → commit sha
    std::map<std::string, std::string>
        commit_times;                          ///< repo → committer time (ISO 8601), when known
    std::map<std::string, std::string> runner; ///< runner fingerprint: gpu, driver, hostname, ...
    std::map<std::string, std::string>
        environment; ///< environment fingerprint: cuda, cudnn, nccl, jax, image labels, ...
    Status status = Status::ok;
    std::string reason; ///< why it is not ok (empty when ok)
    std::string log;    ///< path of the run's log file, if any
    std::vector<int>
        exit_codes;          ///< exit-code mode: each run's exit status (-N: killed by signal N)
    std::string failure_log; ///< exit-code mode: the log of the first run that failed, if any
};

/// "higher" / "lower".
std::string_view to_string(Direction d);
/// "ok" / "failed" / "timeout" / "missing".
std::string_view to_string(Status s);
/// "record" / "daily" / "hourly" / "commit".
std::string_view to_string(Stage s);
/// The names of ChangeKind, as the JSON's "kind" of a change holds them.
inline constexpr util::EnumName<ChangeKind> k_change_kind_names[] = {
    {ChangeKind::regression, "regression"},
    {ChangeKind::improvement, "improvement"},
    {ChangeKind::unknown, "unknown"},
};

/// "regression" / "improvement" / "unknown" (k_change_kind_names).
std::string_view to_string(ChangeKind k);
/// Parse "higher"/"lower" (also "higher_is_better"/"lower_is_better"); nullopt otherwise.
std::optional<Direction> parse_direction(std::string_view s);
/// Parse a status name; nullopt otherwise.
std::optional<Status> parse_status(std::string_view s);
/// Parse a stage name; nullopt otherwise.
std::optional<Stage> parse_stage(std::string_view s);
/// Parse "regression" / "improvement" / "unknown"; nullopt otherwise.
std::optional<ChangeKind> parse_change_kind(std::string_view s);

/// True when `a` is better than `b` for direction `d`.
bool is_better(Direction d, double a, double b);

/// Largest magnitude a metric value may have: beyond it a value is a parse accident, and the sums
/// of squares the statistics take over a million such values would overflow a double.
inline constexpr double k_max_metric_magnitude = 1e150;
/// Why `v` cannot be a metric value ("not a finite number", "absurd magnitude ..."), or "" when it
/// can. Negative and zero values are allowed (generic metrics may be deltas or log-ratios).
std::string metric_value_problem(double v);

/// A stable key for the runner fingerprint, so points from different machines are never mixed.
std::string fingerprint_key(const std::map<std::string, std::string>& runner);

} // namespace perfsweep::core
