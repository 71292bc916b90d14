#pragma once
// Regression detection over a measurement series: change points and a verdict about the present.
// Result types live here so that report and other stages can use them. Pure.

#include "core/model.hpp"
#include "util/enum_names.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfsweep::core {

/// Tunables of `detect`; the defaults are the documented ones (docs/detection.md).
struct DetectOptions {
    double threshold = 0.02;       ///< smallest relative change reported (and acted on)
    double alpha = 0.001;          ///< a change point's p-value must be below this
    double penalty_factor = 4.0;   ///< penalty per change point = factor * ln(n) noise variances
    double outlier_k = 4.0;        ///< a run of <= 2 points this many noise scales off is outliers
    double level_k = 25.0;         ///< ... unless every point is this far off: then it is a level
    std::size_t min_points = 4;    ///< fewer ok points than this: inconclusive
    double dof_factor = 0.3;       ///< effective degrees of freedom of the noise scale per point
    double dof_min = 3.0;          ///< never fewer degrees of freedom than this
    std::size_t noise_window = 15; ///< local noise scale: differences within +-this many points
    double noise_band = 2.0;       ///< ... used where it differs from the series' by more
    std::size_t established_points = 5; ///< a level of at least this many points is a reference
    std::size_t excursion_points = 10;  ///< at most this many points away and back: recovered
};

/// How the points of a series were put in time order.
enum class PointOrder {
    label_time, ///< every label is a date or ISO 8601 time
    timestamp,  ///< every point has a measurement timestamp (imports: the run date)
    file,       ///< neither: the order of the input, which may not be time order
};

/// The names of PointOrder, as the JSON's "order" and the reports print them.
inline constexpr util::EnumName<PointOrder> k_point_order_names[] = {
    {PointOrder::label_time, "label dates"},
    {PointOrder::timestamp, "timestamps"},
    {PointOrder::file, "file order"},
};

/// The verdict about the latest level.
enum class Verdict { regression, improvement, no_regression, inconclusive };

/// The names of Verdict, as the JSON's "verdict" and the reports print them.
inline constexpr util::EnumName<Verdict> k_verdict_names[] = {
    {Verdict::regression, "regression"},
    {Verdict::improvement, "improvement"},
    {Verdict::no_regression, "no_regression"},
    {Verdict::inconclusive, "inconclusive"},
};

/// One level shift between two adjacent segments.
/// (The levels are medians of each segment's point medians; p_value is the two-sided t-test of
/// the segment means with the noise scale; kind is regression or improvement, never unknown.)
struct ChangePoint : LevelChange {
    std::size_t index = 0;   ///< position of `first_after` among the used (ok) points
    std::string last_before; ///< label of the last point of the old level
    std::string first_after; ///< label of the first point of the new level
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
    std::string testbed; ///< the series' testbed (core/series); "" when unknown
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
    PointOrder order = PointOrder::file; ///< how the points were ordered
    std::string order_note;              ///< why, when the order is the file's (else "")
    /// The level the present is judged against: an earlier level of at least `established_points`
    /// points that the present is back at after at most `excursion_points` points away
    /// (`recovered`), else the last level of at least `established_points` points before the
    /// present one (shorter runs in between are an excursion), else the first. Empty (points = 0)
    /// without change points.
    Segment reference;
    Segment present;           ///< the newest level (the last segment)
    double present_change = 0; ///< (present - reference) / |reference|
    bool recovered = false;    ///< change points, but the present is back at the reference
};

/// One point of a series as `detect` sees it: every ok value of one label.
struct SeriesPoint {
    std::string label;
    std::vector<double> values; ///< empty when the point failed
};

/// The points of `series` in the order `detect` uses: measurements pooled by label (the first
/// appearance fixes the position), then put in time order as `order` says (see PointOrder).
std::vector<SeriesPoint> ordered_points(const std::vector<Measurement>& series,
                                        PointOrder* order = nullptr);

/// Detect change points over `series` (all one benchmark and metric; repeats of one label may be
/// separate measurements and are pooled; points are put in time order as `order` says) and decide
/// the verdict from the present level against the reference level: regression or improvement when
/// they differ by at least the threshold, else no_regression (`recovered` when an excursion came
/// back). Measurements whose status is not ok or that have no values are listed in `failed`.
/// Deterministic.
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

/// "label dates" / "timestamps" / "file order" (k_point_order_names).
std::string_view to_string(PointOrder o);
/// Parse a point order name (k_point_order_names); nullopt otherwise.
std::optional<PointOrder> parse_point_order(std::string_view s);
/// "regression" / "improvement" / "no_regression" / "inconclusive" (k_verdict_names).
std::string_view to_string(Verdict v);
/// Parse a verdict name (k_verdict_names); nullopt otherwise.
std::optional<Verdict> parse_verdict(std::string_view s);
/// The process exit code for `v` (util/exit_codes.hpp: 1, 5, 0, 4); defined with the other
/// commands' exit codes in core/exit_policy.cpp.
int exit_code_for(Verdict v);

} // namespace perfsweep::core
