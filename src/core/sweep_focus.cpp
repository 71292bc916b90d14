// The sweep planner's focus (the change detect reported, narrowed first), its one-request-at-a-
// time proposals for workers without a round barrier, and the boundaries decided so far. Kept
// apart from the coverage and refinement rules of sweep_plan.cpp.
#include "core/sweep_plan.hpp"

#include <algorithm>

namespace perfsweep::core {

// The focus as a bisection over the two known levels: walking left from the bad point, every ok
// point the same as the bad level joins it (its values pool into the reference); the first one
// that differs is `lo`, the leftmost of the bad level `hi`. Untested points between them are
// split; once adjacent, the pair is confirmed like any boundary (compare). Order-independent: a
// function of the observations only.
SweepPlan::FocusState SweepPlan::focus_state() const {
    FocusState st;
    if (!m_options.focus)
        return st;
    std::size_t g = m_options.focus->good;
    const std::size_t b = m_options.focus->bad;
    while (g < b && m_points[g].state == StateStatus::test_failed)
        ++g;
    if (g >= b || m_points[b].state == StateStatus::test_failed)
        return st; // no good point left, or the bad point is broken: the usual order
    st.active = true;
    for (const std::size_t end : {b, g})
        if (m_points[end].state == StateStatus::untested) {
            st.more = end; // the levels are measured first (investigate: from the history)
            return st;
        }
    const auto cap = static_cast<std::size_t>(m_options.max_repeats);
    std::vector<double> bad_level = m_points[b].values;
    std::size_t hi = b;
    std::optional<std::size_t> lo;
    for (std::size_t i = b; i-- > g && !lo;) {
        const auto& p = m_points[i];
        if (p.state != StateStatus::unknown)
            continue;
        const auto rel = test_values(p.values, bad_level, m_options.alpha).relation;
        if (rel == Relation::same) {
            bad_level.insert(bad_level.end(), p.values.begin(), p.values.end());
            hi = i;
        } else if (rel == Relation::differ) {
            lo = i;
        } else if (p.values.size() < cap) {
            st.more = i; // which level is it on: more runs of this point first
            return st;
        } else {
            st.active = false; // undecided at the cap: the focus cannot be narrowed
            return st;
        }
    }
    if (!lo) {
        st.active = false; // the good point is at the bad level: the focus does not hold
        return st;
    }
    st.lo = *lo;
    st.hi = hi;
    for (std::size_t i = st.lo + 1; i < st.hi; ++i)
        if (m_points[i].state == StateStatus::untested)
            return st; // still to split
    const PairTest t = compare(st.lo, st.hi);
    st.active = false;
    if (t.relation == Relation::differ)
        st.decided = true;
    else if (t.relation == Relation::unknown &&
             std::min(m_points[st.lo].values.size(), m_points[st.hi].values.size()) < cap) {
        st.active = true;
        st.more = more_of_pair(st.lo, st.hi, {});
    }
    return st;
}

std::vector<SweepRequest> SweepPlan::focus_requests(const std::set<std::size_t>& touched) const {
    std::vector<SweepRequest> out;
    const FocusState st = focus_state();
    if (!st.active)
        return out;
    if (st.more) {
        const std::size_t i = *st.more;
        const std::size_t have = m_points[i].values.size();
        const auto cap = static_cast<std::size_t>(m_options.max_repeats);
        if (touched.count(i) == 0 && have < cap)
            out.push_back(
                {i, have == 0 ? m_options.repeats : static_cast<int>(std::min(have, cap - have))});
        return out; // in flight: nothing else of the focus is decided until it reports
    }
    // The middle of the longest stretch of untested points (between points known or handed out),
    // once per worker: one worker bisects, several split the interval at once.
    std::set<std::size_t> taken = touched;
    auto open = [&](std::size_t c) {
        return m_points[c].state == StateStatus::untested && !taken.count(c);
    };
    for (int k = 0; k < m_options.workers; ++k) {
        const Stretch longest = longest_stretch(st.lo, st.hi, open);
        if (longest.len == 0)
            break;
        std::size_t mid = longest.middle();
        // In a long stretch, the nearest point of the coverage grid from the good point (every
        // min_span): the bisection's points then serve the coverage too.
        const auto span = static_cast<std::size_t>(m_options.min_span);
        if (longest.len > 2 * span) {
            const std::size_t g = m_options.focus->good;
            const std::size_t down = g + (mid - g) / span * span;
            mid = mid - down <= down + span - mid || down + span >= longest.lo + longest.len
                      ? down
                      : down + span;
        }
        out.push_back({mid, m_options.repeats});
        taken.insert(mid);
    }
    return out;
}

std::optional<Boundary> SweepPlan::focus_boundary() const {
    const FocusState st = focus_state();
    if (!st.decided)
        return std::nullopt;
    for (const auto& b : result().boundaries)
        if (b.last_before == st.lo && b.first_after == st.hi && b.kind != ChangeKind::unknown)
            return b;
    return std::nullopt; // its levels closer than --threshold/2: an outlier, not a change
}

std::vector<Boundary> SweepPlan::decided_boundaries() const {
    std::vector<Boundary> out;
    for (const auto& b : result().boundaries)
        if (b.untested_between == 0 && b.kind != ChangeKind::unknown)
            out.push_back(b);
    return out;
}

bool SweepPlan::lone_point_unproven(std::size_t i) const {
    const auto need =
        static_cast<std::size_t>(std::min(4 * m_options.repeats, m_options.max_repeats));
    if (m_options.comparison != ComparisonKind::values || m_points[i].values.size() >= need)
        return false;
    auto differs = [&](std::size_t j) {
        return test_values(m_points[j].values, m_points[i].values, m_options.alpha).relation ==
               Relation::differ;
    };
    std::optional<std::size_t> left, right;
    for (std::size_t j = i; j-- > 0 && !left;)
        if (m_points[j].state == StateStatus::unknown)
            left = j;
    for (std::size_t j = i + 1; j < m_points.size() && !right; ++j)
        if (m_points[j].state == StateStatus::unknown)
            right = j;
    return left && right && differs(*left) && differs(*right);
}

std::vector<std::pair<std::size_t, std::size_t>>
SweepPlan::split_in_flight(const std::vector<SweepRequest>& in_flight) const {
    std::vector<std::pair<std::size_t, std::size_t>> out;
    std::set<std::size_t> flying;
    for (const auto& q : in_flight)
        if (m_points.at(q.index).state == StateStatus::untested)
            flying.insert(q.index);
    if (flying.empty())
        return out;
    std::size_t prev = m_points.size();
    for (std::size_t i = 0; i < m_points.size(); ++i) {
        if (m_points[i].state != StateStatus::unknown)
            continue;
        if (prev < i) {
            const auto it = flying.upper_bound(prev);
            if (it != flying.end() && *it < i && compare(prev, i).relation == Relation::differ)
                out.emplace_back(prev, i);
        }
        prev = i;
    }
    return out;
}

std::optional<SweepRequest> SweepPlan::next_one(const ProposalHints& hints) const {
    const auto out = proposals(hints, 1);
    if (out.empty())
        return std::nullopt;
    return out.front();
}

} // namespace perfsweep::core
