#include "core/source_plan.hpp"

#include "core/exit_code.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

#include <algorithm>

namespace perfsweep::core {

void SourceBook::apply(const JournalEvent& e, bool resumed) {
    auto& f = m_states[e.point];
    switch (e.kind) {
    case JournalEvent::Kind::building:
        m_built.clear(); // from here on the build output is no state's
        return;
    case JournalEvent::Kind::build:
        f.built = e.ok;
        if (!e.ok) {
            f.status = StateStatus::build_failed;
            f.reason = e.reason;
        } else if (f.status == StateStatus::build_failed) {
            f.status = f.values.empty() ? StateStatus::untested : StateStatus::unknown;
            f.reason.clear();
        }
        m_built = e.ok ? e.point : "";
        ++m_spend.builds;
        if (resumed)
            ++m_spend.resumed_builds;
        return;
    case JournalEvent::Kind::restored: // a kept build put back: no build, one avoided
        m_built = e.ok ? e.point : "";
        if (e.ok) {
            f.built = true; // in place as after its build (perhaps another search's)
            ++m_spend.restored_builds;
            ++m_spend.avoided_builds;
        }
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
        if (f.status != StateStatus::test_failed) {
            f.values.insert(f.values.end(), m.values.begin(), m.values.end());
            if (f.status == StateStatus::untested)
                f.status = StateStatus::unknown;
        }
    } else if (f.values.empty() && f.status != StateStatus::test_failed) {
        // A failure after values is a flaky run of a measured state: its values stay.
        f.status = StateStatus::test_failed;
        f.reason = std::string(to_string(m.status)) + (m.reason.empty() ? "" : ": " + m.reason);
    }
}

void SourceBook::reuse(const std::string& key, const std::vector<double>& values) {
    auto& f = m_states[key];
    if (values.empty() || is_broken(f.status))
        return;
    f.values.insert(f.values.end(), values.begin(), values.end());
    if (f.status == StateStatus::untested)
        f.status = StateStatus::unknown;
    m_spend.reused_values += static_cast<long>(values.size());
}

void SourceBook::avoided(long runs, long builds) {
    m_spend.avoided_runs += runs;
    m_spend.avoided_builds += builds;
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
        if (is_broken(f->status)) {
            m_seen_broken[i] = true;
            m_plan.observe(i, Status::failed, {},
                           f->status == StateStatus::build_failed ? "build failed: " + f->reason
                                                                  : f->reason,
                           {}, runs);
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

StateStatus search_status(const StateFacts* f, std::size_t i, const Boundary* b) {
    if (!f)
        return StateStatus::untested;
    if (is_broken(f->status))
        return f->status;
    if (f->values.empty())
        return StateStatus::untested;
    if (!b)
        return StateStatus::unknown;
    return i <= b->last_before   ? StateStatus::good
           : i >= b->first_after ? StateStatus::bad
                                 : StateStatus::unknown;
}

Comparison compare_window_ends(const std::vector<double>& good, const std::vector<double>& bad,
                               const EndsOptions& options) {
    auto c = compare_samples(good, bad, options.alpha);
    if (options.pass_fail) {
        const auto g = count_pass_fail(good), b = count_pass_fail(bad);
        c.relative_change = b.rate() - g.rate();
        c.p_value = fisher_exact_two_sided(g.failed, g.passed, b.failed, b.passed);
        c.significant = pass_fail_differ(g, b, options.alpha);
    }
    return c;
}

WindowEnds::WindowEnds(std::vector<double> good, std::vector<double> bad,
                       const EndsOptions& options)
    : m_options(options), m_good(std::move(good)), m_bad(std::move(bad)),
      m_cmp(compare_window_ends(m_good, m_bad, options)), m_per_end(options.repeats) {}

std::optional<EndsStep> WindowEnds::next() const {
    const int cap = std::max(m_options.max_repeats, m_options.repeats);
    if (m_cmp.significant || m_per_end >= cap)
        return std::nullopt;
    return EndsStep{m_bad_first, std::min(m_per_end, cap - m_per_end)};
}

void WindowEnds::observe(const EndsStep& step, std::vector<double> good, std::vector<double> bad) {
    m_good = std::move(good);
    m_bad = std::move(bad);
    m_bad_first = !step.bad_first;
    m_per_end += step.runs;
    m_cmp = compare_window_ends(m_good, m_bad, m_options);
}

std::string WindowEnds::describe() const {
    if (m_options.pass_fail)
        return "good " + describe_rate(count_pass_fail(m_good)) + ", bad " +
               describe_rate(count_pass_fail(m_bad));
    return "change " + util::format_fixed(m_cmp.relative_change * 100, 2) +
           "%, p=" + util::format_fixed(m_cmp.p_value, 4);
}

ContextPoints context_points(const std::vector<StateStatus>& statuses, std::size_t lo,
                             std::size_t hi, std::size_t per_side) {
    ContextPoints c;
    for (std::size_t d = lo; d-- > 0 && c.before.size() < per_side;)
        if (statuses[d] == StateStatus::good)
            c.before.insert(c.before.begin(), d);
    for (std::size_t d = hi + 1; d < statuses.size() && c.after.size() < per_side; ++d)
        if (statuses[d] == StateStatus::bad)
            c.after.push_back(d);
    return c;
}

} // namespace perfsweep::core
