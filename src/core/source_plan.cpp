#include "core/source_plan.hpp"

#include "core/exit_code.hpp"
#include "util/error.hpp"

namespace perfsweep::core {

void SourceBook::apply(const JournalEvent& e, bool resumed) {
    auto& f = m_states[e.point];
    switch (e.kind) {
    case JournalEvent::Kind::building:
        m_built.clear(); // from here on the build output is no state's
        return;
    case JournalEvent::Kind::build:
        f.built = e.ok;
        f.build_failed = !e.ok;
        f.build_reason = e.ok ? "" : e.reason;
        m_built = e.ok ? e.point : "";
        ++m_spend.builds;
        if (resumed)
            ++m_spend.resumed_builds;
        return;
    case JournalEvent::Kind::run:
        break;
    }
    const auto& m = e.measurement;
    f.runs += e.runs;
    m_spend.runs += e.runs;
    if (resumed)
        m_spend.resumed_runs += e.runs;
    if (m_metric.empty() && !m.metric.empty())
        m_metric = m.metric;
    if (f.failure_log.empty() && !m.failure_log.empty()) {
        f.failure_log = m.failure_log;
        for (int c : m.exit_codes)
            if (classify_exit_code(c) == ExitVerdict::bad) {
                f.failure_code = c;
                break;
            }
    }
    if (m.status == Status::ok && !m.values.empty()) {
        if (!f.run_failed)
            f.values.insert(f.values.end(), m.values.begin(), m.values.end());
    } else if (f.values.empty() && !f.run_failed) {
        // A failure after values is a flaky run of a measured state: its values stay.
        f.run_failed = true;
        f.run_reason = std::string(to_string(m.status)) + (m.reason.empty() ? "" : ": " + m.reason);
    }
}

const StateFacts* SourceBook::find(const std::string& key) const {
    const auto it = m_states.find(key);
    return it == m_states.end() ? nullptr : &it->second;
}

SourcePlan::SourcePlan(std::vector<std::string> keys, std::vector<std::string> labels,
                       SweepOptions options)
    : m_keys(std::move(keys)), m_plan(std::move(labels), options) {
    if (m_keys.size() != m_plan.size())
        throw_usage("source plan: " + std::to_string(m_keys.size()) + " states but " +
                    std::to_string(m_plan.size()) + " labels");
    m_seen_values.assign(m_keys.size(), 0);
    m_seen_runs.assign(m_keys.size(), 0);
    m_seen_broken.assign(m_keys.size(), false);
}

void SourcePlan::sync(const SourceBook& book) {
    for (std::size_t i = 0; i < m_keys.size(); ++i) {
        const auto* f = book.find(m_keys[i]);
        if (!f || m_seen_broken[i])
            continue;
        const long runs = f->runs - m_seen_runs[i];
        m_seen_runs[i] = f->runs;
        if (f->build_failed || (f->run_failed && f->values.empty())) {
            m_seen_broken[i] = true;
            m_plan.observe(i, Status::failed, {},
                           f->build_failed ? "build failed: " + f->build_reason : f->run_reason, {},
                           runs);
            continue;
        }
        if (f->values.size() > m_seen_values[i]) {
            const std::vector<double> fresh(
                f->values.begin() + static_cast<std::ptrdiff_t>(m_seen_values[i]), f->values.end());
            m_seen_values[i] = f->values.size();
            m_plan.observe(i, Status::ok, fresh, {}, {}, runs);
        }
    }
}

std::optional<SourceStep> SourcePlan::next(const SourceBook& book) const {
    ProposalHints hints;
    for (std::size_t i = 0; i < m_keys.size() && !book.built().empty(); ++i)
        if (m_keys[i] == book.built()) {
            hints.cheap = i;
            break;
        }
    const auto reqs = m_plan.next(hints);
    if (reqs.empty())
        return std::nullopt;
    return SourceStep{reqs.front().index, reqs.front().repeats};
}

SweepResult SourcePlan::result(const std::string& stop_reason) const {
    return m_plan.result(stop_reason);
}

const Boundary* regression_boundary(const SweepResult& r) {
    for (const auto& b : r.boundaries)
        if (b.kind == ChangeKind::regression)
            return &b;
    for (const auto& b : r.boundaries)
        if (b.kind != ChangeKind::unknown)
            return &b;
    return nullptr;
}

} // namespace perfsweep::core
