#include "app/investigate_series.hpp"

#include "core/metric_set.hpp"
#include "core/series.hpp"
#include "core/series_narrow.hpp"

#include <set>

namespace perfsweep::app {

bool reads_several_metrics(const ports::RunnerConfig& runner) {
    return !runner.exit_code_mode &&
           (runner.metrics.size() > 1 || core::has_name_group(runner.metric_regex));
}

std::vector<core::Measurement>
LeadMetricRunner::run_points(const std::vector<ports::PointRequest>& requests) {
    auto all = m_inner.run_points(requests);
    std::vector<core::Measurement> out, rest;
    for (const auto& r : requests) {
        const core::Measurement* mine = nullptr;
        const core::Measurement* any = nullptr;
        for (const auto& m : all)
            if (m.label == r.label) {
                any = any ? any : &m;
                if (m.metric == lead)
                    mine = &m;
            }
        if (mine) {
            out.push_back(*mine);
        } else { // the point gave no value of the lead metric (or nothing at all)
            core::Measurement m = any ? *any : core::Measurement{};
            m.label = r.label;
            m.stage = r.stage;
            m.metric = lead;
            m.unit = lead;
            m.values.clear();
            if (m.status == core::Status::ok) {
                m.status = core::Status::failed;
                m.reason = "no " + lead + " value in the output";
            }
            out.push_back(std::move(m));
        }
        for (const auto& m : all)
            if (m.label == r.label && &m != mine) {
                rest.push_back(m);
                rest.back().stage = r.stage;
            }
    }
    if (!rest.empty())
        m_history.append(rest); // recorded before the lead's run is committed: never lost
    others.insert(others.end(), rest.begin(), rest.end());
    return out;
}

std::vector<core::DailyResult> follower_sweeps(const core::DailyResult& lead,
                                               const std::vector<core::DetectResult>& followers,
                                               std::vector<core::Measurement> history,
                                               const std::vector<core::Measurement>& failed) {
    std::set<std::string> machines; // the lead's runner: a history point of another is not used
    for (const auto& ms : lead.measurements)
        for (const auto& m : ms)
            machines.insert(core::fingerprint_key(m.runner));
    std::vector<core::DailyResult> out;
    for (const auto& f : followers) {
        std::vector<core::Measurement> points;
        for (auto& m : core::points_of_series(history, {lead.benchmark, f.metric, ""}))
            if (m.status == core::Status::ok && !m.values.empty() && m.exit_codes.empty() &&
                machines.count(core::fingerprint_key(m.runner)))
                points.push_back(std::move(m));
        for (const auto& m : failed)
            if (m.metric == f.metric && m.status != core::Status::ok)
                points.push_back(m);
        out.push_back(core::shared_sweep(lead, f.metric, f.unit, f.direction, points));
    }
    return out;
}

} // namespace perfsweep::app
