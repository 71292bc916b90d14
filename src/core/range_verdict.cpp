#include "core/range_verdict.hpp"

namespace perfsweep::core {

namespace {

std::string count(std::size_t n, const std::string& one, const std::string& many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

} // namespace

RangeVerdict range_verdict(const DailyResult& d) {
    const auto& s = d.sweep;
    std::size_t regressions = 0, improvements = 0, unknown = 0, measured = 0;
    for (const auto& b : s.boundaries)
        (b.kind == ChangeKind::regression    ? regressions
         : b.kind == ChangeKind::improvement ? improvements
                                             : unknown)++;
    for (const auto& p : s.points)
        measured += p.state == StateStatus::unknown ? 1 : 0;
    const std::string range = d.from + " .. " + d.to;
    if (regressions > 0)
        return {Verdict::regression,
                count(regressions, "regression boundary", "regression boundaries") +
                    " between nightlies " + range};
    if (unknown > 0)
        return {Verdict::inconclusive,
                count(unknown, "undecided boundary", "undecided boundaries") +
                    " between nightlies " + range + " (more repeats would decide)"};
    if (!s.complete)
        return {Verdict::inconclusive,
                "the sweep over " + range + " stopped early: " + s.stop_reason};
    if (measured < 2)
        return {Verdict::inconclusive, count(measured, "nightly", "nightlies") +
                                           " measured between " + range +
                                           ": at least 2 are needed to compare"};
    if (improvements > 0)
        return {Verdict::improvement, "only improvements between nightlies " + range};
    return {Verdict::no_regression, "no level change between the " + std::to_string(measured) +
                                        " measured nightlies " + range};
}

} // namespace perfsweep::core
