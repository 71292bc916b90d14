#pragma once
// What the dashboard shows (pure): each series' points in detect's order with the spread of their
// repeats and their provenance, detect's levels and change points, the marks of every kept
// investigation of the series (nightly window, hour window, culprit), broken points and
// environment changes. src/report/dashboard* draws it; app/dashboard builds it from a history.

#include "core/detect.hpp"
#include "core/environment.hpp"
#include "core/report_model.hpp"
#include "core/series.hpp"
#include "util/time.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfsweep::core {

/// What the x axis of a series is: UTC time (labels or timestamps are times) or the position of
/// the point in file order.
enum class AxisKind { time, order };

/// "time" / "order" (the dashboard's data-axis attribute and its chart JSON's "axis").
std::string_view to_string(AxisKind a);

/// One point of a series (all records of one label).
struct ViewPoint {
    std::string label;
    double x = 0;            ///< UTC seconds (time axis) or position 0, 1, ... (order axis)
    bool ok = false;         ///< it has values
    double value = 0;        ///< median of the repeats (exit-code series: the failure rate)
    double low = 0;          ///< smallest repeat (= value for exit-code series)
    double high = 0;         ///< largest repeat
    std::size_t repeats = 0; ///< values pooled from every record of the label
    bool outlier = false;    ///< left out of detect's fit as a lone outlier
    std::string problem;     ///< why it has no value ("failed: exit 139"), "" when ok
    std::string commits;     ///< "repo@sha12 repo@sha12" of its build, "" when unknown
    std::string image;       ///< image reference (with "@digest" when known)
    std::string runner;      ///< runner fingerprint in one line ("gpu · driver · host")
    std::string time;        ///< measurement timestamp of its latest record
};

/// A level detect fitted over the points `first_label` .. `last_label`.
struct ViewLevel {
    double x_from = 0;
    double x_to = 0;
    double level = 0;
    std::size_t points = 0;
    std::string first_label;
    std::string last_label;
};

/// A change between two adjacent points (detect's change point, an environment change).
struct ViewStep {
    double x_before = 0; ///< x of the last point before
    double x_after = 0;  ///< x of the first point after
    std::string last_before;
    std::string first_after;
};

/// A change point detect found.
struct ViewChange {
    ViewStep at;
    double old_level = 0;
    double new_level = 0;
    double relative_change = 0;
    ChangeKind kind = ChangeKind::regression;
};

/// The environment of adjacent points differed (runner driver or GPU, CUDA, cuDNN, ...).
struct ViewEnvironmentChange {
    ViewStep at;
    std::vector<EnvironmentChange> changes; ///< runner entries are keyed "runner.NAME"
};

/// One regression an investigation narrowed, placed on the series' x axis.
struct ViewNarrowed {
    std::size_t investigation = 0; ///< index into Dashboard::investigations
    std::string last_good;         ///< the last good nightly
    std::string first_bad;         ///< the first bad nightly
    double good_x = 0;
    double bad_x = 0;
    double relative_change = 0;      ///< of the daily boundary (0 when unknown)
    std::string cause;               ///< "source", "environment", ... ("" when unknown)
    bool has_hour = false;           ///< the hourly stage narrowed it to a window of source states
    util::UnixSeconds hour_from = 0; ///< last good state's time
    util::UnixSeconds hour_to = 0;   ///< first bad state's time
    double hour_from_x = 0;          ///< (time axis: the times; order axis: the nightly window)
    double hour_to_x = 0;
    std::string hour_from_commits; ///< "repo@sha12 ..."
    std::string hour_to_commits;
    std::string compare_url;        ///< the changed repo's compare URL, "" when unknown
    std::optional<Culprit> culprit; ///< the commit stage's culprit
    double culprit_x = 0;
    std::string culprit_url; ///< web URL of the culprit commit, "" when unknown
    std::string conclusion;  ///< the hourly stage's sentence ("" without one)
};

/// Everything the dashboard draws of one series.
struct SeriesView {
    SeriesKey key;
    std::string unit;
    Direction direction = Direction::higher_is_better;
    AxisKind axis = AxisKind::order;
    std::vector<ViewPoint> points; ///< in detect's order (ok and broken)
    DetectResult detect;           ///< detect over the series
    std::vector<ViewLevel> levels;
    std::vector<ViewChange> changes;
    std::vector<ViewEnvironmentChange> environment;
    std::vector<ViewNarrowed> narrowed; ///< every narrowed regression of its investigations
    double latest = 0;                  ///< the newest ok point's value
    std::string latest_label;           ///< its label ("" when no point is ok)
    double level = 0;                   ///< the present level (detect's latest segment)
};

/// A kept investigation result (`investigate` keeps one per narrowed regression night).
struct KeptInvestigation {
    std::string id; ///< unique among the kept ones (the file's name without ".json")
    Investigation investigation;
};

/// Every series of a history and the investigations kept beside it.
struct Dashboard {
    std::string title;              ///< page title
    std::string history;            ///< the history's description
    std::string generated;          ///< ISO 8601 time of generation
    std::vector<SeriesView> series; ///< ordered by key
    std::vector<KeptInvestigation> investigations;
    std::vector<std::string> warnings; ///< skipped records or investigation files
};

/// The series an investigation is about: detect's (else its first daily result's) benchmark and
/// metric, and the testbed of its first measured record (else of its runner fingerprint).
SeriesKey investigation_series(const Investigation& inv);

/// The view of series `key` from its records (any order: they are put in detect's order),
/// `detected` = detect over exactly these records, and the kept investigations `kept` (those of
/// another series are ignored; `Dashboard::investigations` indices are positions in `kept`).
SeriesView build_series_view(const SeriesKey& key, const std::vector<Measurement>& records,
                             const DetectResult& detected,
                             const std::vector<KeptInvestigation>& kept);

} // namespace perfsweep::core
