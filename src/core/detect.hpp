#pragma once
// Regression detection over a measurement series: change points and a verdict about the present.
// Result types live here so that report and other stages can use them. Pure.

#include "core/model.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace perfsweep::core {

/// Tunables of `detect`; the defaults are the documented ones (docs/detection.md).
struct DetectOptions {
    double threshold = 0.02;     ///< smallest relative change reported (and acted on)
    double alpha = 0.001;        ///< a change point's p-value must be below this
    double penalty_factor = 5.0; ///< penalty per change point = factor * ln(n) noise variances
    double outlier_k = 4.0;      ///< a lone point further than k noise scales is an outlier
    std::size_t min_points = 4;  ///< fewer ok points than this: inconclusive
    double dof_factor = 0.3;     ///< effective degrees of freedom of the noise scale per point
};

/// The verdict about the latest level.
enum class Verdict { regression, improvement, no_regression, inconclusive };

/// One level shift between two adjacent segments.
struct ChangePoint {
    std::size_t index = 0;      ///< position of `first_after` among the used (ok) points
    std::string last_before;    ///< label of the last point of the old level
    std::string first_after;    ///< label of the first point of the new level
    double old_level = 0;       ///< median of the old segment's point medians
    double new_level = 0;       ///< median of the new segment's point medians
    double relative_change = 0; ///< (new - old) / |old|
    double p_value = 1;         ///< two-sided t-test of the segment means with the noise scale
    ChangeKind kind = ChangeKind::regression; ///< regression or improvement (never unknown)
};

/// A run of points at one level.
struct Segment {
    std::string first_label;
    std::string last_label;
    std::size_t points = 0;
    double level = 0; ///< median of the point medians
};

/// A point left out of the statistics.
struct FailedPoint {
    std::string label;
    std::string reason;
};

/// Everything `detect` found.
struct DetectResult {
    std::string benchmark;
    std::string metric;
    std::string unit;
    Direction direction = Direction::higher_is_better;
    Verdict verdict = Verdict::inconclusive;
    std::string reason;                ///< one sentence explaining the verdict
    double threshold = 0.02;           ///< the threshold used
    std::size_t points = 0;            ///< ok points used
    double noise = 0;                  ///< estimated noise of one point, in the metric's unit
    double relative_noise = 0;         ///< noise / |median level|
    std::vector<std::string> outliers; ///< labels of lone outliers left out of the step fit
    std::vector<ChangePoint> change_points;
    std::vector<Segment> segments;
    std::vector<FailedPoint> failed;
    /// Exit-code series: levels are failure rates (0..1) and `relative_change` is their
    /// difference; `detect_failures` sets it.
    bool failure_rates = false;
};

/// Detect change points over `series` (all one benchmark and metric, in time order; repeats of
/// one label may be separate measurements and are pooled) and decide the verdict. Measurements
/// whose status is not ok or that have no values are listed in `failed`. Deterministic.
DetectResult detect(const std::vector<Measurement>& series, const DetectOptions& options = {});

/// Whether `series` holds exit-code measurements (`--mode exit-code`): some carry exit statuses
/// and every one with values does, so its values are failure indicators (core/exit_code).
bool is_exit_code_series(const std::vector<Measurement>& series);

/// Detect changes of the failure rate over an exit-code series (values are failure indicators):
/// binary segmentation of the points' pass/fail counts (core::segment_failure_counts) with
/// Fisher's exact test at `options.alpha`, or complete separation with at least two runs on each
/// side; changes of the rate smaller than `options.threshold` (absolute) are merged. A newest
/// point that fails without enough runs to be a new level makes the verdict inconclusive.
DetectResult detect_failures(const std::vector<Measurement>& series,
                             const DetectOptions& options = {});

/// "regression" / "improvement" / "no_regression" / "inconclusive".
std::string_view to_string(Verdict v);
/// The process exit code for `v` (util/exit_codes.hpp: 1, 5, 0, 4); defined with the other
/// commands' exit codes in core/exit_policy.cpp.
int exit_code_for(Verdict v);

} // namespace perfsweep::core
