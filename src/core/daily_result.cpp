#include "core/daily_result.hpp"

#include "core/environment.hpp"
#include "core/narrow.hpp"
#include "util/error.hpp"

namespace perfsweep::core {

PointBuild point_build(const DailyResult& r, std::size_t index) {
    PointBuild b;
    if (index >= r.measurements.size())
        return b;
    const auto& records = r.measurements[index];
    for (auto it = records.rbegin(); it != records.rend(); ++it) {
        if (b.image.empty())
            b.image = it->image;
        if (b.digest.empty())
            b.digest = it->digest;
        if (b.commit_times.empty())
            b.commit_times = it->commit_times;
    }
    auto fp = build_fingerprint(records);
    b.commits = std::move(fp.commits);
    b.environment = std::move(fp.environment);
    return b;
}

DailyWindow regression_window(const DailyResult& r, const std::string& where,
                              const Boundary* boundary) {
    // The regression the report shows first (core/narrow), else the first boundary.
    const Boundary* pick = boundary ? boundary : latest_regression_of(r.sweep.boundaries);
    if (!pick && !r.sweep.boundaries.empty())
        pick = &r.sweep.boundaries.front();
    if (!pick)
        throw_usage(where + ": the daily result has no boundary (no good→bad window)");
    const auto& points = r.sweep.points;
    if (pick->last_before >= points.size() || pick->first_after >= points.size())
        throw_usage(where + ": a boundary names a point the result does not list");
    DailyWindow w;
    w.last_good_label = points[pick->last_before].label;
    w.first_bad_label = points[pick->first_after].label;
    const auto good = point_build(r, pick->last_before);
    const auto bad = point_build(r, pick->first_after);
    w.good_commits = good.commits;
    w.bad_commits = bad.commits;
    w.good_times = good.commit_times;
    w.bad_times = bad.commit_times;
    if (w.good_times.empty() || w.bad_times.empty())
        throw_usage(where + ": boundary " + w.last_good_label + " → " + w.first_bad_label +
                    " has no recorded commit times (run daily with a commits probe); expected "
                    "'commit_times' on both points");
    return w;
}

} // namespace perfsweep::core
