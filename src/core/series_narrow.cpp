#include "core/series_narrow.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

namespace perfsweep::core {

std::vector<NarrowGroup> narrow_groups(const std::vector<SeriesDetect>& series, Narrow narrow) {
    // window → (series index, drop), in series order
    std::map<std::pair<std::string, std::string>, std::vector<std::pair<std::size_t, double>>> by;
    for (std::size_t i = 0; i < series.size(); ++i) {
        const auto& r = series[i].result;
        if (r.verdict != Verdict::regression)
            continue;
        for (const auto* cp : regressions_to_narrow(r.change_points, narrow))
            by[{cp->first_after, cp->last_before}].push_back({i, std::abs(cp->relative_change)});
    }
    std::vector<NarrowGroup> out;
    for (auto it = by.rbegin(); it != by.rend(); ++it) { // latest first
        auto members = it->second;
        std::stable_sort(members.begin(), members.end(),
                         [](const auto& a, const auto& b) { return a.second > b.second; });
        NarrowGroup g{it->first.second, it->first.first, {}};
        for (const auto& [i, drop] : members)
            if (std::find(g.series.begin(), g.series.end(), i) == g.series.end())
                g.series.push_back(i);
        out.push_back(std::move(g));
    }
    return out;
}

DailyResult shared_sweep(const DailyResult& lead, const std::string& metric,
                         const std::string& unit, Direction direction,
                         const std::vector<Measurement>& points) {
    std::vector<std::string> labels;
    std::map<std::string, std::size_t> index;
    for (const auto& p : lead.sweep.points) {
        index[p.label] = labels.size();
        labels.push_back(p.label);
    }
    auto options = lead.sweep.options;
    options.direction = direction;
    SweepPlan plan(labels, options);
    DailyResult d;
    d.from = lead.from;
    d.to = lead.to;
    d.image = lead.image;
    d.benchmark = lead.benchmark;
    d.metric = metric;
    d.unit = unit.empty() ? metric : unit;
    d.direction = direction;
    d.measurements.resize(labels.size());
    for (const auto& m : points) {
        const auto it = index.find(m.label);
        if (it == index.end())
            continue;
        plan.observe(it->second, m.status, m.values, m.reason, m.log, 0);
        d.measurements[it->second].push_back(m);
    }
    d.sweep = plan.result("measured by the runs of the " + lead.metric + " sweep");
    return d;
}

} // namespace perfsweep::core
