#include "core/report_model.hpp"

#include "core/narrow.hpp"

namespace perfsweep::core {

std::string_view to_string(ResultKind k) {
    return util::enum_name(k_result_kind_names, k, "investigate");
}

std::optional<ResultKind> parse_result_kind(std::string_view s) {
    return util::parse_enum(k_result_kind_names, s);
}

ResultKind kind_of(const ResultDocument& doc) {
    switch (doc.index()) {
    case 0:
        return ResultKind::detect;
    case 1:
        return ResultKind::daily;
    case 2:
        return ResultKind::hourly;
    default:
        return ResultKind::investigate;
    }
}

bool is_exit_code(const DailyResult& d) {
    return d.sweep.options.comparison == ComparisonKind::pass_fail;
}

const Boundary* find_boundary(const DailyResult& d, std::string_view last_good,
                              std::string_view first_bad) {
    const auto& pts = d.sweep.points;
    for (const auto& b : d.sweep.boundaries)
        if (b.last_before < pts.size() && b.first_after < pts.size() &&
            pts[b.last_before].label == last_good && pts[b.first_after].label == first_bad)
            return &b;
    return nullptr;
}

const Boundary* latest_regression(const DailyResult& d) {
    return latest_regression_of(d.sweep.boundaries);
}

std::vector<NarrowedRegression> default_regressions(const Investigation& inv) {
    if (inv.daily.empty())
        return {};
    const auto* b = latest_regression(inv.daily.front());
    if (!b)
        return {};
    const auto& pts = inv.daily.front().sweep.points;
    NarrowedRegression r;
    r.daily = 0;
    r.last_good = pts.at(b->last_before).label;
    r.first_bad = pts.at(b->first_after).label;
    if (!inv.hourly.empty())
        r.hourly = 0;
    return {r};
}

} // namespace perfsweep::core
