#include "core/sweep_plan.hpp"

#include "core/exit_code.hpp"
#include "core/stats.hpp"
#include "util/error.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

namespace perfsweep::core {

namespace {

// Weight (degrees of freedom) of the pooled noise estimate in each point's variance.
constexpr double k_prior_dof = 8;
// Largest chance that a pair called the same hides a change of --min-change (one-sided).
constexpr double k_miss_rate = 0.05;
// Neighbouring pairs needed before their differences estimate the noise.
constexpr std::size_t k_min_pairs = 4;
// Degrees of freedom one pair's absolute difference is worth in a median-based scale estimate.
constexpr double k_mad_efficiency = 0.37;

double mean_of(const std::vector<double>& v) {
    double s = 0;
    for (double x : v)
        s += x;
    return v.empty() ? 0 : s / static_cast<double>(v.size());
}

double var_of(const std::vector<double>& v, double m) {
    if (v.size() < 2)
        return 0;
    double ss = 0;
    for (double x : v)
        ss += (x - m) * (x - m);
    return ss / static_cast<double>(v.size() - 1);
}

} // namespace

std::string_view to_string(SweepStrategy s) {
    return util::enum_name(k_strategy_names, s, "adaptive");
}

std::optional<SweepStrategy> parse_strategy(std::string_view s) {
    return util::parse_enum(k_strategy_names, s);
}

SweepPlan::SweepPlan(std::vector<std::string> labels, SweepOptions options) : m_options(options) {
    if (labels.empty())
        throw_usage("sweep: no candidate points (the range is empty)");
    if (options.repeats < 1)
        throw_usage("sweep: --repeats must be >= 1, got " + std::to_string(options.repeats));
    if (options.max_repeats < options.repeats)
        throw_usage("sweep: --max-repeats (" + std::to_string(options.max_repeats) +
                    ") must be >= --repeats (" + std::to_string(options.repeats) + ")");
    if (options.min_span < 1)
        throw_usage("sweep: --min-span must be >= 1, got " + std::to_string(options.min_span));
    if (!(options.min_change > 0 && options.min_change < 1))
        throw_usage("sweep: --min-change must be in (0, 1), e.g. 0.02 for 2 %");
    if (!(options.alpha > 0 && options.alpha < 1))
        throw_usage("sweep: alpha must be in (0, 1)");
    if (options.workers < 1)
        throw_usage("sweep: workers must be >= 1, got " + std::to_string(options.workers));
    if (options.max_runs < 0)
        throw_usage("sweep: --max-runs must be >= 0 (0 = unlimited)");
    if (options.comparison == ComparisonKind::pass_fail)
        m_options.direction = Direction::lower_is_better; // more failures is worse
    if (options.focus &&
        !(options.focus->good < options.focus->bad && options.focus->bad < labels.size()))
        throw_usage("sweep: the focus needs a good point before its bad point, inside the " +
                    std::to_string(labels.size()) + " candidates");
    m_points.reserve(labels.size());
    for (auto& l : labels) {
        SweepPoint p;
        p.label = std::move(l);
        m_points.push_back(std::move(p));
    }
}

void SweepPlan::set_noise_context(std::vector<std::vector<double>> series) {
    m_context.clear();
    if (m_options.comparison == ComparisonKind::pass_fail)
        return; // failure indicators: a rate has no run-to-run noise to borrow
    for (auto& v : series)
        if (!v.empty())
            m_context.push_back(std::move(v));
    update_pool();
}

void SweepPlan::set_level_context(std::vector<std::vector<double>> before,
                                  std::vector<std::vector<double>> after) {
    const bool pass_fail = m_options.comparison == ComparisonKind::pass_fail;
    m_before = pass_fail ? std::vector<std::vector<double>>{} : std::move(before);
    m_after = pass_fail ? std::vector<std::vector<double>>{} : std::move(after);
}

void SweepPlan::update_pool() {
    // Within points: the repeats of each ok point (and of each context point) around its mean.
    double num = 0;
    double dof = 0;
    auto within = [&](const std::vector<double>& values) {
        if (values.size() < 2)
            return;
        const double m = mean_of(values);
        if (m == 0)
            return;
        const double v = var_of(values, m) / (m * m);
        num += v * static_cast<double>(values.size() - 1);
        dof += static_cast<double>(values.size() - 1);
    };
    for (const auto& p : m_points)
        if (p.state == StateStatus::unknown)
            within(p.values);
    for (const auto& c : m_context)
        within(c);
    // Between neighbours: the noise the series has already shown, so that one run per point can
    // decide. The relative difference of two neighbouring ok points' means, scaled by
    // sqrt(1/na + 1/nb), has the run-to-run spread when both are on one level; level changes are
    // outliers, so the scale is robust (1.4826 x the median absolute value) and, like a MAD, it
    // is worth ~0.37 degrees of freedom per pair. A change between most neighbours inflates it
    // (more runs, never fewer); it needs k_min_pairs pairs to count at all.
    // The context (points outside the candidates) is a chain of its own.
    std::vector<double> r;
    auto chain = [&r](const std::vector<const std::vector<double>*>& series) {
        const std::vector<double>* prev = nullptr;
        double prev_mean = 0;
        for (const auto* values : series) {
            const double m = mean_of(*values);
            if (prev && prev_mean != 0) {
                const double scale = std::sqrt(1.0 / static_cast<double>(prev->size()) +
                                               1.0 / static_cast<double>(values->size()));
                r.push_back(std::fabs(m - prev_mean) / std::fabs(prev_mean) / scale);
            }
            prev = values;
            prev_mean = m;
        }
    };
    std::vector<const std::vector<double>*> series;
    for (const auto& p : m_points)
        if (p.state == StateStatus::unknown && !p.values.empty())
            series.push_back(&p.values);
    chain(series);
    series.clear();
    for (const auto& c : m_context)
        series.push_back(&c);
    chain(series);
    if (r.size() >= k_min_pairs) {
        const double sigma = 1.4826 * median(r);
        const double between_dof = k_mad_efficiency * static_cast<double>(r.size());
        num += sigma * sigma * between_dof;
        dof += between_dof;
    }
    m_pooled_dof = dof;
    m_pooled_var = dof > 0 ? num / dof : 0;
}

double SweepPlan::pooled_dof() const {
    return m_pooled_dof;
}

void SweepPlan::observe(std::size_t index, Status status, const std::vector<double>& values,
                        const std::string& reason, const std::string& log, long runs) {
    auto& p = m_points.at(index);
    m_runs += runs >= 0 ? runs : static_cast<long>(std::max<std::size_t>(values.size(), 1));
    p.log = log;
    if (status == Status::ok && !values.empty()) {
        if (p.state == StateStatus::test_failed)
            return; // a point once broken stays skipped; never mixed
        p.state = StateStatus::unknown;
        p.status = Status::ok;
        p.values.insert(p.values.end(), values.begin(), values.end());
    } else {
        if (p.state == StateStatus::unknown)
            return; // a later flaky failure of a measured point does not erase its values
        p.state = StateStatus::test_failed;
        p.status = status == Status::ok ? Status::failed : status;
        p.reason = reason.empty() && status == Status::ok ? "no values" : reason;
    }
    update_pool();
}

void SweepPlan::reuse(std::size_t index, const std::vector<double>& values,
                      const std::string& log) {
    auto& p = m_points.at(index);
    if (p.state != StateStatus::untested || values.empty())
        return;
    p.state = StateStatus::unknown;
    p.values = values;
    p.reused = true;
    p.log = log;
    m_reused += static_cast<long>(values.size());
    update_pool();
}

bool SweepPlan::budget_exhausted() const {
    return m_options.max_runs > 0 && m_runs >= m_options.max_runs;
}

std::vector<std::size_t> SweepPlan::ok_points() const {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < m_points.size(); ++i)
        if (m_points[i].state == StateStatus::unknown)
            out.push_back(i);
    return out;
}

// Rule of the pass/fail comparison: complete separation (every run of one side passed, every
// run of the other failed) decides at once, with any number of repeats, as git bisect does;
// otherwise failure rates closer than min_change/2 are the same, Fisher's exact test below alpha
// differs, two samples both at max_repeats that the test cannot tell apart are the same, and
// anything else is unknown (more repeats, up to max_repeats).
SweepPlan::PairTest SweepPlan::test_pass_fail(const std::vector<double>& a,
                                              const std::vector<double>& b, double alpha) const {
    PairTest t;
    if (a.empty() || b.empty())
        return t;
    const PassFail pa = count_pass_fail(a), pb = count_pass_fail(b);
    t.relative_change = pb.rate() - pa.rate();
    t.p_value = fisher_exact_two_sided(pa.failed, pa.passed, pb.failed, pb.passed);
    // Rates closer than half of --min-change are the same unless completely separated (the
    // planner's own rule); otherwise the one pass/fail rule decides.
    if (!completely_separated(pa, pb) && std::fabs(t.relative_change) < m_options.min_change / 2)
        t.relation = Relation::same;
    else if (pass_fail_differ(pa, pb, alpha))
        t.relation = Relation::differ;
    else
        t.relation = Relation::unknown;
    return t;
}

SweepPlan::PairTest SweepPlan::test_values(const std::vector<double>& a,
                                           const std::vector<double>& b, double alpha) const {
    if (m_options.comparison == ComparisonKind::pass_fail)
        return test_pass_fail(a, b, alpha);
    PairTest t;
    const double ma = mean_of(a), mb = mean_of(b);
    if (ma == 0 || mb == 0 || a.empty() || b.empty())
        return t;
    t.relative_change = (mb - ma) / std::fabs(ma);
    // Relative variance of each side: its own, shrunk toward the pooled within-point variance of
    // the whole sweep (a 3-value sample alone says little about the noise; a noisy day still
    // shows as noisier). The pooled estimate counts for at most k_prior_dof degrees of freedom.
    auto side = [&](const std::vector<double>& v, double m, double& var, double& dof) {
        const double own_dof = static_cast<double>(v.size()) - 1;
        const double own = v.size() >= 2 ? var_of(v, m) / (m * m) : 0;
        const double prior_dof = std::min(m_pooled_dof, k_prior_dof);
        dof = own_dof + prior_dof;
        var = dof > 0 ? (own * own_dof + m_pooled_var * prior_dof) / dof : 0;
    };
    double va = 0, vb = 0, da = 0, db = 0;
    side(a, ma, va, da);
    side(b, mb, vb, db);
    const double qa = va / static_cast<double>(a.size()), qb = vb / static_cast<double>(b.size());
    const double se = std::sqrt(qa + qb);
    const double abs_change = std::fabs(t.relative_change);
    if (da > 0 && db > 0 && se == 0) {
        // Repeated values without any noise (a deterministic metric: a count, a size): any
        // difference is certain; one below interest is still the same.
        t.p_value = abs_change > 0 ? 0 : 1;
        t.relation = abs_change < m_options.min_change / 2 ? Relation::same : Relation::differ;
        return t;
    }
    if (!(da > 0 && db > 0)) {
        // No variance information: only a negligible difference can be called the same.
        t.relation = abs_change < m_options.min_change / 2 ? Relation::same : Relation::unknown;
        return t;
    }
    const double dof = (qa + qb) * (qa + qb) / (qa * qa / da + qb * qb / db);
    if (abs_change < m_options.min_change / 2) {
        // The same level needs a change below interest that the noise shown so far also rules a
        // change of --min-change out for (one-sided, at k_miss_rate): with a run or two per
        // point a noisy benchmark gets more runs here instead of a missed step. (Its p_value,
        // never reported for a change below interest, is not computed: half the t-tests.)
        const double p_as_large =
            student_t_two_sided_p((m_options.min_change - abs_change) / se, dof) / 2;
        t.relation = p_as_large < k_miss_rate ? Relation::same : Relation::unknown;
        return t;
    }
    t.p_value = student_t_two_sided_p(t.relative_change / se, dof);
    // A change of interest: different, or one that the repeats cannot confirm yet.
    t.relation = t.p_value < alpha ? Relation::differ : Relation::unknown;
    return t;
}

SweepPlan::PairTest SweepPlan::compare(std::size_t a, std::size_t b) const {
    PairTest t = test_values(m_points[a].values, m_points[b].values, m_options.alpha);
    const bool pass_fail = m_options.comparison == ComparisonKind::pass_fail;
    if (t.relation != Relation::differ && !(pass_fail && t.relation == Relation::unknown))
        return t;
    bool adjacent = true; // no untested available point left between a and b
    for (std::size_t i = a + 1; i < b; ++i)
        if (m_points[i].state == StateStatus::untested)
            adjacent = false;
    if (!adjacent)
        return t;
    // A boundary between adjacent points is confirmed on the two levels: the ok points on each
    // side that are the same as the boundary point, pooled, at a ten times stricter level and
    // with at least twice the first repeats per side; until then it asks for more repeats.
    auto segment = [&](std::size_t from, bool left) {
        std::vector<double> pool = m_points[from].values;
        auto same = [&](const std::vector<double>& v) {
            return test_values(v, m_points[from].values, m_options.alpha).relation !=
                   Relation::differ;
        };
        std::size_t i = from;
        while (left ? i > 0 : i + 1 < m_points.size()) {
            i = left ? i - 1 : i + 1;
            const auto& p = m_points[i];
            if (p.state != StateStatus::unknown)
                continue; // broken, or untested beyond the pair
            if (!same(p.values))
                return pool;
            pool.insert(pool.end(), p.values.begin(), p.values.end());
        }
        for (const auto& v : left ? m_before : m_after) { // past the candidates: the history
            if (!same(v))
                break;
            pool.insert(pool.end(), v.begin(), v.end());
        }
        return pool;
    };
    const auto left = segment(a, true), right = segment(b, false);
    PairTest seg = test_values(left, right, m_options.alpha / 10);
    if (pass_fail) {
        // A failure rate is noisy per point, so an adjacent pair is decided on the levels: each
        // boundary point must differ from the other side's pooled level (at alpha), and the two
        // levels from each other (at alpha / 10). Otherwise more repeats; at the cap the pair is
        // one level (the runs allowed cannot tell it apart).
        if (seg.relation == Relation::differ &&
            test_values(m_points[a].values, right, m_options.alpha).relation == Relation::differ &&
            test_values(left, m_points[b].values, m_options.alpha).relation == Relation::differ)
            return seg;
        const auto cap = static_cast<std::size_t>(m_options.max_repeats);
        t.relation = m_points[a].values.size() >= cap && m_points[b].values.size() >= cap
                         ? Relation::same
                         : Relation::unknown;
        return t;
    }
    if (test_values(m_points[a].values, m_points[b].values, m_options.alpha / 10).relation !=
        Relation::differ)
        seg.relation = Relation::unknown;
    const auto need =
        static_cast<std::size_t>(std::min(2 * m_options.repeats, m_options.max_repeats));
    if (seg.relation == Relation::differ && (left.size() < need || right.size() < need))
        seg.relation = Relation::unknown;
    if (seg.relation == Relation::differ && (lone_point_unproven(a) || lone_point_unproven(b)))
        seg.relation = Relation::unknown;
    if (seg.relation == Relation::same)
        seg.relation = Relation::unknown; // the pair differs but the levels do not: undecided
    return seg;
}

std::vector<SweepRequest> SweepPlan::next() const {
    return proposals();
}

std::vector<SweepRequest> SweepPlan::next(const ProposalHints& hints) const {
    return proposals(hints);
}

// One round of proposals: the requests so far, the budget left, and the steps that add them.
struct SweepPlan::Round {
    Round(const SweepPlan& p, const ProposalHints& h) : plan(p), hints(h) {}
    const SweepPlan& plan;
    const ProposalHints& hints;
    std::vector<SweepRequest> out;
    long budget = -1;              // runs left this round; -1 = unlimited
    std::size_t workers = 1;       // requests at most
    std::set<std::size_t> planned; // untested points planned this round (or in flight)
    std::set<std::size_t> touched; // any point planned this round (or in flight)
    // Coverage picks next to a broken date (pos, pick): the window may need another pick.
    std::vector<std::pair<std::size_t, std::size_t>> fragile;
    std::vector<std::pair<std::size_t, std::size_t>> narrowing; // changed intervals split now

    std::size_t n() const { return plan.m_points.size(); }
    int base() const { return plan.m_options.repeats; }
    StateStatus state(std::size_t i) const { return plan.m_points[i].state; }
    bool full() const { return out.size() >= workers || budget == 0; }
    bool untested(std::size_t i) const {
        return state(i) == StateStatus::untested && !planned.count(i);
    }
    // The measured points and those planned this round, in order.
    std::vector<std::size_t> anchors() const {
        std::vector<std::size_t> a;
        for (std::size_t i = 0; i < n(); ++i)
            if (state(i) == StateStatus::unknown || planned.count(i))
                a.push_back(i);
        return a;
    }
    void add(std::size_t i, int repeats) {
        if (full() || touched.count(i) || repeats <= 0)
            return;
        if (budget > 0 && repeats > budget)
            repeats = static_cast<int>(budget);
        out.push_back({i, repeats});
        touched.insert(i);
        if (state(i) == StateStatus::untested)
            planned.insert(i);
        if (budget > 0)
            budget -= repeats;
    }
    // Requests handed out earlier and not observed yet: never again, their runs off the budget.
    void in_flight() {
        for (const auto& q : hints.in_flight) {
            touched.insert(q.index);
            if (state(q.index) == StateStatus::untested)
                planned.insert(q.index);
            if (budget > 0)
                budget = std::max(0L, budget - q.repeats);
        }
    }
    void resume_short();
    void ends();
    void coverage();
    bool refine_pair(std::size_t a, std::size_t b);
    void refine(std::size_t min_gap, std::size_t max_gap);
    void speculate();
};

// 0. Points measured with fewer values than asked (a sweep killed between two repeats).
void SweepPlan::Round::resume_short() {
    for (std::size_t i = 0; i < n() && !full(); ++i)
        if (state(i) == StateStatus::unknown &&
            plan.m_points[i].values.size() < static_cast<std::size_t>(base()))
            add(i, base() - static_cast<int>(plan.m_points[i].values.size()));
}

// 1. The ends (the first and last points not known to be broken).
void SweepPlan::Round::ends() {
    std::size_t first = 0;
    while (first < n() && state(first) == StateStatus::test_failed)
        ++first;
    std::size_t last = n();
    while (last > 0 && state(last - 1) == StateStatus::test_failed)
        --last;
    if (first < n() && untested(first))
        add(first, base());
    if (last > 0 && last - 1 != first && untested(last - 1))
        add(last - 1, base());
}

// 2. Coarse sampling (adaptive): no gap between sampled points longer than min_span, so a level
//    lasting min_span points always holds a sample (unless it is all broken). The grid of picks:
//    from each anchor, the farthest untested point within min_span. A pick is itself an anchor of
//    the same grid, so measuring any subset of it first leaves the rest of the grid unchanged.
void SweepPlan::Round::coverage() {
    const auto s = static_cast<std::size_t>(plan.m_options.min_span);
    const auto anchor = anchors();
    std::vector<std::size_t> grid;
    for (std::size_t k = 0; k + 1 < anchor.size(); ++k) {
        std::size_t pos = anchor[k];
        const std::size_t b = anchor[k + 1];
        while (b - pos > s) {
            std::size_t pick = n();
            for (std::size_t c = pos + s; c > pos; --c)
                if (untested(c)) {
                    pick = c;
                    break;
                }
            if (pick == n()) {
                pos += s; // a broken stretch: continue past it
                continue;
            }
            grid.push_back(pick);
            for (std::size_t c = pick + 1; c <= pos + s && c < n(); ++c)
                if (state(c) == StateStatus::test_failed) {
                    fragile.emplace_back(pos, pick);
                    break;
                }
            pos = pick;
        }
    }
    for (std::size_t pick : grid)
        add(pick, base());
    std::erase_if(fragile, [&](const auto& f) { return !touched.count(f.second); });
}

// One pair of neighbours: more values when undecided, else (a change, or a pair still undecided
// at the cap) the untested point nearest their middle. False: stop (bisect narrows one interval).
bool SweepPlan::Round::refine_pair(std::size_t a, std::size_t b) {
    const PairTest t = plan.compare(a, b);
    if (t.relation == Relation::same)
        return true;
    const auto cap = static_cast<std::size_t>(plan.m_options.max_repeats);
    const auto& va = plan.m_points[a].values;
    const auto& vb = plan.m_points[b].values;
    const std::size_t na = va.size(), nb = vb.size();
    if (t.relation == Relation::unknown && (na < cap || nb < cap)) {
        const std::size_t i = plan.more_of_pair(a, b, hints);
        const std::size_t have = plan.m_points[i].values.size(); // double it, up to the cap
        if (have < cap)
            add(i, static_cast<int>(std::min(have, cap - have)));
        return true;
    }
    std::vector<std::size_t> inside;
    for (std::size_t c = a + 1; c < b; ++c)
        if (untested(c))
            inside.push_back(c);
    if (!inside.empty()) {
        const double mid = (static_cast<double>(a) + static_cast<double>(b)) / 2;
        std::size_t best = inside.front();
        for (std::size_t c : inside)
            if (std::fabs(static_cast<double>(c) - mid) <
                std::fabs(static_cast<double>(best) - mid))
                best = c;
        add(best, base());
        narrowing.emplace_back(a, b);
    }
    return plan.m_options.strategy != SweepStrategy::bisect; // bisect: the first changed interval
}

// 3. Refinement over consecutive ok points (ignoring points planned this round), over the pairs
//    of neighbours (a, b) with min_gap < b - a <= max_gap.
void SweepPlan::Round::refine(std::size_t min_gap, std::size_t max_gap) {
    const auto anchor = anchors();
    for (std::size_t k = 0; k + 1 < anchor.size() && !full(); ++k) {
        const std::size_t a = anchor[k], b = anchor[k + 1];
        if (planned.count(a) || planned.count(b) || b - a <= min_gap || b - a > max_gap)
            continue;
        if (!refine_pair(a, b))
            break;
    }
}

// 4. Idle workers (parallel GPUs) speculate instead of waiting for the round. Coverage inside a
//    broken stretch would walk it one date per round: idle workers take the next candidates of
//    such a window at once. Inside the intervals being narrowed, the longest stretch of untested
//    points between the points known or planned gets its middle point, so both sides of the split
//    planned above are measured at once (three workers narrow a 7-day gap in one round).
void SweepPlan::Round::speculate() {
    for (bool added = true; added && !full();) {
        added = false;
        for (auto& [pos, pick] : fragile)
            for (std::size_t c = pick; c-- > pos + 1 && !full();)
                if (untested(c)) {
                    add(c, base());
                    pick = c;
                    added = true;
                    break;
                }
    }
    auto open = [&](std::size_t c) { return untested(c); };
    while (!full() && !narrowing.empty()) {
        Stretch longest; // over every interval being narrowed
        for (const auto& [a, b] : narrowing) {
            const Stretch st = plan.longest_stretch(a, b, open);
            if (st.len > longest.len)
                longest = st;
        }
        if (longest.len == 0)
            break;
        add(longest.middle(), base());
    }
}

std::vector<SweepRequest> SweepPlan::proposals(const ProposalHints& hints,
                                               std::size_t limit) const {
    if (budget_exhausted())
        return {};
    Round r(*this, hints);
    r.budget = m_options.max_runs > 0 ? m_options.max_runs - m_runs : -1;
    r.workers = limit > 0 ? limit : static_cast<std::size_t>(m_options.workers);
    r.in_flight();
    if (r.budget == 0)
        return {};
    // F. The focus (the change detect reported) before anything else: its next point, then
    //    splits of its interval for idle workers.
    for (const auto& q : focus_requests(r.touched))
        r.add(q.index, q.repeats);
    r.resume_short();
    // With several workers the refinement of short intervals goes before the coverage too:
    // narrowing a change takes several rounds one after the other, the coverage does not, so the
    // narrowing is the critical path. (Only intervals the coverage will not split: a longer one
    // is compared once it is covered.)
    const bool narrow_first =
        m_options.workers > 1 && m_options.strategy == SweepStrategy::adaptive;
    const auto span = static_cast<std::size_t>(m_options.min_span);
    if (narrow_first)
        r.refine(0, span);
    if (m_options.strategy == SweepStrategy::exhaustive) {
        for (std::size_t i = 0; i < r.n() && !r.full(); ++i)
            if (r.untested(i))
                r.add(i, r.base());
    } else {
        r.ends();
        if (m_options.strategy == SweepStrategy::adaptive)
            r.coverage();
    }
    r.refine(narrow_first ? span : 0, r.n());
    // Without a round barrier, a changed interval split by a point still in flight is narrowed
    // by the idle workers too (its split was handed out by an earlier call).
    for (const auto& iv : split_in_flight(hints.in_flight))
        r.narrowing.push_back(iv);
    if (m_options.speculate)
        r.speculate();
    return std::move(r.out);
}

SweepPlan::Stretch SweepPlan::longest_stretch(std::size_t a, std::size_t b,
                                              const std::function<bool(std::size_t)>& open) const {
    Stretch out;
    for (std::size_t c = a + 1; c < b;) {
        if (!open(c)) {
            ++c;
            continue;
        }
        std::size_t e = c;
        while (e < b && open(e))
            ++e;
        if (e - c > out.len)
            out = {c, e - c};
        c = e;
    }
    return out;
}

// Which side of an undecided pair gets more runs: the smaller sample; on a tie the noisier one
// (more likely the culprit); a level of one point that has not shown itself with enough runs;
// a point whose runs cost no build first while it is not twice the other. A side at the cap
// leaves the other.
std::size_t SweepPlan::more_of_pair(std::size_t a, std::size_t b,
                                    const ProposalHints& hints) const {
    const auto cap = static_cast<std::size_t>(m_options.max_repeats);
    const auto& va = m_points[a].values;
    const auto& vb = m_points[b].values;
    const std::size_t na = va.size(), nb = vb.size();
    auto noise = [](const std::vector<double>& v) {
        const double m = mean_of(v);
        return m == 0 ? 0 : var_of(v, m) / (m * m);
    };
    bool pick_a = na != nb ? na < nb : noise(va) >= noise(vb);
    if (na == 1 && nb == 1) {
        // One run each shows no spread: a side whose other pair is undecided too goes first,
        // its runs serve both pairs.
        auto undecided_with = [&](std::size_t i, bool left) {
            for (std::size_t j = i; left ? j > 0 : j + 1 < m_points.size();) {
                j = left ? j - 1 : j + 1;
                if (m_points[j].state == StateStatus::unknown)
                    return (left ? compare(j, i) : compare(i, j)).relation == Relation::unknown;
            }
            return false;
        };
        const bool shared_a = undecided_with(a, true), shared_b = undecided_with(b, false);
        if (shared_a != shared_b)
            pick_a = shared_a;
    }
    if (lone_point_unproven(a) != lone_point_unproven(b))
        pick_a = lone_point_unproven(a); // a level of one point needs its own runs
    if (hints.cheap == a && na < cap && na <= 2 * nb)
        pick_a = true;
    else if (hints.cheap == b && nb < cap && nb <= 2 * na)
        pick_a = false;
    return pick_a ? (na < cap ? a : b) : (nb < cap ? b : a);
}

// Boundaries of failure rates: binary segmentation of the ok points' runs. A segment splits at
// the position of largest binomial likelihood ratio when the two parts are completely separated
// (git bisect semantics) or differ by Fisher's exact test at alpha / 10; both parts recurse.
std::vector<Boundary> SweepPlan::pass_fail_boundaries(const std::vector<std::size_t>& ok) const {
    std::vector<Boundary> out;
    std::vector<PassFail> counts;
    counts.reserve(ok.size());
    for (std::size_t i : ok)
        counts.push_back(count_pass_fail(m_points[i].values));
    SegmentOptions so;
    so.alpha = m_options.alpha / 10;
    const auto splits = segment_failure_counts(counts, so);
    for (std::size_t k : splits) {
        Boundary bd;
        bd.last_before = ok[k];
        bd.first_after = ok[k + 1];
        for (std::size_t i = bd.last_before + 1; i < bd.first_after; ++i) {
            if (m_points[i].state == StateStatus::test_failed)
                bd.broken_between.push_back(i);
            else
                ++bd.untested_between;
        }
        const auto a = count_pass_fail(m_points[bd.last_before].values);
        const auto b = count_pass_fail(m_points[bd.first_after].values);
        bd.p_value = fisher_exact_two_sided(a.failed, a.passed, b.failed, b.passed);
        bd.relative_change = b.rate() - a.rate();
        bd.kind = b.rate() > a.rate() ? ChangeKind::regression : ChangeKind::improvement;
        out.push_back(bd);
    }
    return out;
}

SweepResult SweepPlan::result(const std::string& stop_reason) const {
    SweepResult r;
    r.points = m_points;
    r.options = m_options;
    r.runs = m_runs;
    r.reused_values = m_reused;
    r.exhaustive_runs = static_cast<long>(m_points.size()) * m_options.repeats;
    for (std::size_t i = 0; i < m_points.size(); ++i)
        if (m_points[i].state == StateStatus::test_failed)
            r.skipped.push_back(i);
    r.complete = proposals().empty() && !budget_exhausted();
    if (!r.complete)
        r.stop_reason = stop_reason.empty() ? "stopped before the sweep finished" : stop_reason;

    const auto ok = ok_points();
    const auto cap = static_cast<std::size_t>(m_options.max_repeats);
    if (m_options.comparison == ComparisonKind::pass_fail)
        r.boundaries = pass_fail_boundaries(ok);
    for (std::size_t k = 0; k + 1 < ok.size() && m_options.comparison == ComparisonKind::values;
         ++k) {
        const std::size_t a = ok[k], b = ok[k + 1];
        const PairTest t = compare(a, b);
        const bool at_cap = m_points[a].values.size() >= cap && m_points[b].values.size() >= cap;
        if (t.relation == Relation::same)
            continue;
        if (t.relation == Relation::unknown &&
            (std::fabs(t.relative_change) < m_options.min_change / 2 || (r.complete && !at_cap)))
            continue;
        Boundary bd;
        bd.last_before = a;
        bd.first_after = b;
        for (std::size_t i = a + 1; i < b; ++i) {
            if (m_points[i].state == StateStatus::test_failed)
                bd.broken_between.push_back(i);
            else
                ++bd.untested_between;
        }
        bd.relative_change = t.relative_change;
        bd.p_value = t.p_value;
        if (t.relation == Relation::differ)
            bd.kind = is_better(m_options.direction, mean_of(m_points[b].values),
                                mean_of(m_points[a].values))
                          ? ChangeKind::improvement
                          : ChangeKind::regression;
        r.boundaries.push_back(bd);
    }
    // Levels: median of the point medians of each segment between boundaries (robust to one
    // outlying date). A decided boundary whose levels differ by less than min_change/2 was an
    // outlier, not a change of level: drop it (smallest first) and recompute the neighbours.
    const bool pass_fail = m_options.comparison == ComparisonKind::pass_fail;
    auto seg_runs = [&](std::size_t from, std::size_t to) { // every run of the segment
        std::vector<double> all;
        for (std::size_t i : ok)
            if (i >= from && i <= to)
                all.insert(all.end(), m_points[i].values.begin(), m_points[i].values.end());
        return count_pass_fail(all);
    };
    auto seg_level = [&](std::size_t from, std::size_t to) { // ok points with index in [from, to]
        if (pass_fail) // the failure rate of every run of the segment
            return seg_runs(from, to).rate();
        std::vector<double> meds;
        for (std::size_t i : ok)
            if (i >= from && i <= to)
                meds.push_back(median(m_points[i].values));
        return median(meds);
    };
    for (;;) {
        std::size_t weakest = r.boundaries.size();
        for (std::size_t k = 0; k < r.boundaries.size(); ++k) {
            auto& bd = r.boundaries[k];
            const std::size_t lo = k == 0 ? 0 : r.boundaries[k - 1].first_after;
            const std::size_t hi =
                k + 1 < r.boundaries.size() ? r.boundaries[k + 1].last_before : m_points.size() - 1;
            bd.old_level = seg_level(lo, bd.last_before);
            bd.new_level = seg_level(bd.first_after, hi);
            if (pass_fail) {
                bd.runs_before = seg_runs(lo, bd.last_before);
                bd.runs_after = seg_runs(bd.first_after, hi);
                bd.relative_change = bd.new_level - bd.old_level; // difference of failure rates
            } else if (bd.old_level != 0)
                bd.relative_change = (bd.new_level - bd.old_level) / std::fabs(bd.old_level);
            if (bd.kind == ChangeKind::unknown)
                continue;
            bd.kind = is_better(m_options.direction, bd.new_level, bd.old_level)
                          ? ChangeKind::improvement
                          : ChangeKind::regression;
            if (std::fabs(bd.relative_change) < m_options.min_change / 2 &&
                (weakest == r.boundaries.size() ||
                 std::fabs(bd.relative_change) < std::fabs(r.boundaries[weakest].relative_change)))
                weakest = k;
        }
        if (weakest == r.boundaries.size())
            break;
        r.boundaries.erase(r.boundaries.begin() + static_cast<std::ptrdiff_t>(weakest));
    }
    return r;
}

} // namespace perfsweep::core
