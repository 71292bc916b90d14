#include "core/newest_point.hpp"

#include "core/stats.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <cmath>

namespace perfsweep::core {

namespace {

/// A level or a value in a sentence ("465.0", "0.512").
std::string newest_value_text(double v) {
    return util::format_fixed(v, std::fabs(v) >= 100 ? 1 : 3);
}

/// A signed relative change in a sentence ("-7.0 %").
std::string newest_change_text(double r) {
    return (r >= 0 ? "+" : "") + util::format_fixed(100 * r, 1) + " %";
}

} // namespace

std::optional<LoneNewest> lone_newest_point(const DetectResult& result,
                                            const std::vector<SeriesPoint>& points) {
    if (result.verdict != Verdict::inconclusive || result.outliers.empty() || points.size() < 2)
        return std::nullopt;
    const auto& newest = points.back();
    if (newest.values.empty() || result.outliers.back() != newest.label)
        return std::nullopt;
    LoneNewest lone;
    lone.label = newest.label;
    lone.values = newest.values;
    // The level before it: the points of the present segment (the outlier is not part of it),
    // else the ok point before it.
    const auto at = [&](const std::string& label) {
        for (std::size_t i = 0; i + 1 < points.size(); ++i)
            if (points[i].label == label)
                return i;
        return points.size();
    };
    std::size_t first = at(result.present.first_label), last = at(result.present.last_label);
    for (std::size_t i = points.size() - 1; i-- > 0;)
        if (!points[i].values.empty()) {
            lone.last_before = points[i].label;
            if (first >= points.size() || last >= points.size())
                first = last = i;
            break;
        }
    if (lone.last_before.empty())
        return std::nullopt;
    for (std::size_t i = first; i <= last && i < points.size(); ++i)
        lone.level.insert(lone.level.end(), points[i].values.begin(), points[i].values.end());
    lone.level_value = result.present.points > 0 ? result.present.level : median(lone.level);
    if (lone.level.empty() || lone.level_value == 0)
        return std::nullopt;
    lone.relative_change = (median(lone.values) - lone.level_value) / std::fabs(lone.level_value);
    if (std::fabs(lone.relative_change) < result.threshold)
        return std::nullopt;
    return lone;
}

NewestOutcome decide_newest_point(DetectResult& result, const LoneNewest& lone,
                                  const std::vector<double>& again, double alpha) {
    const auto verdict = classify_point(again, lone.level, lone.values, alpha);
    if (verdict == PointVerdict::unknown)
        return NewestOutcome::undecided;
    const std::string measured = "the nightly " + lone.label + " measured again (" +
                                 std::to_string(again.size()) + " runs, median " +
                                 newest_value_text(median(again)) + ")";
    const double change = (median(again) - lone.level_value) / std::fabs(lone.level_value);
    if (verdict == PointVerdict::good_like || std::fabs(change) < result.threshold) {
        result.verdict = Verdict::no_regression;
        result.reason = measured + " is " + newest_change_text(change) + " from the level " +
                        newest_value_text(lone.level_value) + ": its first point (" +
                        newest_value_text(median(lone.values)) + ", " +
                        newest_change_text(lone.relative_change) +
                        ") was a transient outlier, not a new level";
        return NewestOutcome::transient;
    }
    std::vector<double> all = lone.values;
    all.insert(all.end(), again.begin(), again.end());
    ChangePoint cp;
    cp.last_before = lone.last_before;
    cp.first_after = lone.label;
    cp.old_level = lone.level_value;
    cp.new_level = median(all);
    cp.relative_change = (cp.new_level - cp.old_level) / std::fabs(cp.old_level);
    cp.p_value = compare_samples(lone.level, again, alpha).p_value;
    const bool worse = result.direction == Direction::higher_is_better
                           ? cp.new_level < cp.old_level
                           : cp.new_level > cp.old_level;
    cp.kind = worse ? ChangeKind::regression : ChangeKind::improvement;
    cp.index = result.points > 0 ? result.points - 1 : 0; // the newest ok point
    result.change_points.push_back(cp);
    result.verdict = worse ? Verdict::regression : Verdict::improvement;
    result.present_change = cp.relative_change;
    result.reason = measured + " is " + newest_change_text(change) + " from the level " +
                    newest_value_text(lone.level_value) +
                    " again: the same image reproduces its first point, " + "so " + lone.label +
                    " is the first point of a new level (" +
                    newest_change_text(cp.relative_change) + " since " + lone.last_before + ")";
    return NewestOutcome::new_level;
}

} // namespace perfsweep::core
