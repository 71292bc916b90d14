#include "core/changepoint.hpp"

#include "core/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <optional>

namespace perfsweep::core {

double successive_difference_scale(const std::vector<double>& y) {
    if (y.size() < 2)
        return 0;
    std::vector<double> d;
    d.reserve(y.size() - 1);
    for (std::size_t i = 1; i < y.size(); ++i)
        d.push_back(std::fabs(y[i] - y[i - 1]));
    const double m = median(d);
    if (m > 0)
        return 1.4826 * m / std::sqrt(2.0);
    // At least 3 of 4 neighbours identical: exact values (bytes, instruction counts, a
    // deterministic stand-in), whose few non-zero differences are events (steps, lone outliers),
    // not noise. Counting them as noise made a short series' one step its own yardstick: with 8
    // nightlies and one step of any size the step looked about 11 noise scales wide.
    const auto zeros = static_cast<std::size_t>(std::count(d.begin(), d.end(), 0.0));
    if (4 * zeros >= 3 * d.size())
        return 0;
    // Mostly identical neighbours (quantised values): the mean absolute difference of a normal
    // sample is 2*sigma/sqrt(pi) for differences of variance 2*sigma^2. The largest 10 % are left
    // out, so a few jumps themselves are not noise.
    std::sort(d.begin(), d.end());
    const std::size_t keep = std::max<std::size_t>(1, d.size() - d.size() / 10);
    double sum = 0;
    for (std::size_t i = 0; i < keep; ++i)
        sum += d[i];
    return sum / static_cast<double>(keep) * std::sqrt(std::numbers::pi) / 2.0 / std::sqrt(2.0);
}

double trimmed_difference_scale(const std::vector<double>& y) {
    if (y.size() < 2)
        return 0;
    std::vector<double> d;
    for (std::size_t i = 1; i < y.size(); ++i)
        d.push_back(std::fabs(y[i] - y[i - 1]));
    std::sort(d.begin(), d.end());
    const std::size_t keep = std::max<std::size_t>(1, (d.size() * 4 + 4) / 5);
    double sum = 0;
    for (std::size_t i = 0; i < keep; ++i)
        sum += d[i];
    // E|X| over the smallest 80 % of a half-normal of scale 1 is 0.5585; differences have scale
    // sqrt(2) sigma.
    return sum / static_cast<double>(keep) / 0.5585 / std::sqrt(2.0);
}

std::vector<double> local_difference_scales(const std::vector<double>& y, std::size_t window) {
    const std::size_t n = y.size();
    std::vector<double> out(n, 0);
    if (n < 2)
        return out;
    window = std::max<std::size_t>(window, 2);
    auto scale = [&](std::size_t lo, std::size_t hi) { // points [lo, hi)
        return successive_difference_scale(
            std::vector<double>(y.begin() + static_cast<std::ptrdiff_t>(lo),
                                y.begin() + static_cast<std::ptrdiff_t>(hi)));
    };
    const std::size_t enough = std::max<std::size_t>(3, window / 2); // differences on a side
    for (std::size_t i = 0; i < n; ++i) {
        // The larger of the scales just before and just after the point, so a point next to a
        // noisy stretch is judged by it; a side with too few differences does not count.
        const std::size_t lo = i > window ? i - window : 0;
        const std::size_t hi = std::min(n, i + window + 1);
        const bool left = i - lo >= enough, right = hi - i - 1 >= enough;
        if (left || right) {
            out[i] = std::max(left ? scale(lo, i + 1) : 0.0, right ? scale(i, hi) : 0.0);
            continue;
        }
        // A short series: the whole of it.
        out[i] = scale(0, n);
    }
    return out;
}

std::vector<double> local_difference_scales(const std::vector<double>& y, std::size_t window,
                                            const std::vector<std::size_t>& cuts) {
    const std::size_t n = y.size();
    std::vector<double> out(n, 0);
    window = std::max<std::size_t>(window, 2);
    const std::size_t enough = std::max<std::size_t>(3, window / 2);
    auto scale = [&](std::size_t lo, std::size_t hi) { // points [lo, hi)
        return successive_difference_scale(
            std::vector<double>(y.begin() + static_cast<std::ptrdiff_t>(lo),
                                y.begin() + static_cast<std::ptrdiff_t>(hi)));
    };
    std::size_t c = 0; // cuts[c] is the first cut after the current level's start
    std::size_t start = 0;
    for (std::size_t i = 0; i < n; ++i) {
        while (c < cuts.size() && cuts[c] <= i) {
            start = std::max(start, cuts[c]);
            ++c;
        }
        const std::size_t end = c < cuts.size() ? std::min(cuts[c], n) : n; // level [start, end)
        const std::size_t lo = std::max(start, i > window ? i - window : 0);
        const std::size_t hi = std::min(end, i + window + 1);
        const bool left = i - lo >= enough, right = hi - i - 1 >= enough;
        if (left || right)
            out[i] = std::max(left ? scale(lo, i + 1) : 0.0, right ? scale(i, hi) : 0.0);
    }
    return out;
}

std::vector<bool> find_outlier_runs(const std::vector<double>& y, const std::vector<double>& sigma,
                                    const OutlierRunOptions& o) {
    const std::size_t n = y.size();
    std::vector<bool> out(n, false);
    if (n < 3)
        return out;
    // The level of up to `context` points before `from` (step -1) or from `from` on (step +1),
    // skipping points already found to be outliers; nullopt when there are none.
    auto side_level = [&](std::size_t from, int step) -> std::optional<double> {
        std::vector<double> v;
        for (std::ptrdiff_t j = static_cast<std::ptrdiff_t>(from) + (step < 0 ? -1 : 0);
             j >= 0 && j < static_cast<std::ptrdiff_t>(n) && v.size() < o.context; j += step)
            if (!out[static_cast<std::size_t>(j)])
                v.push_back(y[static_cast<std::size_t>(j)]);
        if (v.empty())
            return std::nullopt;
        return median(v);
    };
    // Candidate runs [a, b) are judged against the levels on each side of them (the ends of the
    // series have one side), in the noise scale of each point. Repeated until nothing changes, so
    // an outlier next to another one is judged against clean sides.
    for (bool changed = true; changed;) {
        changed = false;
        for (std::size_t len = 1; len <= o.max_run && len < n; ++len) {
            for (std::size_t a = 0; a + len <= n; ++a) {
                const std::size_t b = a + len;
                if (std::any_of(out.begin() + static_cast<std::ptrdiff_t>(a),
                                out.begin() + static_cast<std::ptrdiff_t>(b),
                                [](bool f) { return f; }))
                    continue;
                const auto left = side_level(a, -1), right = side_level(b, +1);
                // Signed deviation of point j from the side levels: the smaller one when both
                // sides agree in sign, 0 when they disagree (j sits between two levels: a step).
                auto dev = [&](std::size_t j) {
                    if (!(sigma[j] > 0))
                        return 0.0;
                    const double dl = left ? (y[j] - *left) / sigma[j] : 0;
                    const double dr = right ? (y[j] - *right) / sigma[j] : 0;
                    if (left && right)
                        return (dl > 0) == (dr > 0) ? (std::fabs(dl) < std::fabs(dr) ? dl : dr)
                                                    : 0.0;
                    return left ? dl : dr;
                };
                const bool up = dev(a) > 0;
                bool run = true, beyond = len >= 2;
                std::size_t strongest = a;
                for (std::size_t j = a; j < b; ++j) {
                    const double d = dev(j);
                    run = run && (d > 0) == up && std::fabs(d) > o.extend_k;
                    beyond = beyond && std::fabs(d) > o.level_k;
                    if (std::fabs(d) > std::fabs(dev(strongest)))
                        strongest = j;
                }
                if (!run || std::fabs(dev(strongest)) <= o.k || beyond)
                    continue;
                // Both sides must be one level, clearly closer to each other than to the run's
                // strongest point: a run between two different levels is part of a step.
                if (left && right) {
                    const double near =
                        std::min(std::fabs(y[strongest] - *left), std::fabs(y[strongest] - *right));
                    if (!(std::fabs(*left - *right) < 0.5 * near))
                        continue;
                }
                // The run must be maximal: a neighbour off the level on the far side of the run
                // in the same direction makes it part of a longer run, which is a level.
                auto extends = [&](std::size_t j, const std::optional<double>& far) {
                    if (out[j] || !far || !(sigma[j] > 0))
                        return false;
                    const double d = (y[j] - *far) / sigma[j];
                    return (d > 0) == up && std::fabs(d) > o.extend_k &&
                           std::fabs(d) >= o.extend_share * std::fabs(dev(strongest));
                };
                if ((a > 0 && extends(a - 1, right ? right : left)) ||
                    (b < n && extends(b, left ? left : right)))
                    continue;
                // Outliers found earlier next to the run, off in the same direction, belong to
                // it: together they are a longer run, which is a level. (Taking a level apart
                // piece by piece, its two deepest points first and then the rest as "2-point
                // runs" between them, once removed 7 points of a real one.)
                std::size_t ea = a, eb = b;
                while (ea > 0 && out[ea - 1] && (dev(ea - 1) > 0) == up && dev(ea - 1) != 0)
                    --ea;
                while (eb < n && out[eb] && (dev(eb) > 0) == up && dev(eb) != 0)
                    ++eb;
                if (eb - ea > o.max_run)
                    continue;
                // The ends of the series are the ends of its points still in: a run with only
                // outliers after it is as new as the newest point.
                const auto after = static_cast<std::size_t>(
                    std::count(out.begin() + static_cast<std::ptrdiff_t>(b), out.end(), false));
                const bool at_end = after == 0;
                const bool at_start =
                    std::all_of(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(a),
                                [](bool f) { return f; });
                if (len >= 2 && at_end)
                    continue; // the newest points may be a new level
                if (len >= 2 && at_start && after < o.context)
                    continue; // the oldest points of a short series: nothing says they are odd
                for (std::size_t j = a; j < b; ++j)
                    out[j] = true;
                changed = true;
            }
        }
    }
    return out;
}

std::vector<std::size_t> fit_steps(const std::vector<double>& y, double sigma, double penalty,
                                   std::size_t min_length) {
    if (!(sigma > 0))
        return {};
    return fit_steps_weighted(y, std::vector<double>(y.size(), 1.0 / (sigma * sigma)), penalty,
                              min_length);
}

namespace {

// The candidate starts of the last segment of fit_steps_weighted, structure of arrays for a tight
// inner loop: a pruned candidate has an infinite F and is compacted away now and then.
struct Candidates {
    std::vector<std::size_t> start, prune;
    std::vector<double> w, f, s1, s2, cost, lo, hi;

    void push(std::size_t s, std::size_t pruned_at, double cw, double fs, double a, double b) {
        const double inf = std::numeric_limits<double>::infinity();
        start.push_back(s);
        prune.push_back(pruned_at);
        w.push_back(cw);
        f.push_back(fs);
        s1.push_back(a);
        s2.push_back(b);
        cost.push_back(-inf);
        lo.push_back(-inf);
        hi.push_back(inf);
    }
    // Drop the pruned candidates, keeping the arrays aligned.
    void compact() {
        std::size_t k = 0;
        for (std::size_t r = 0; r < start.size(); ++r) {
            if (f[r] == std::numeric_limits<double>::infinity())
                continue;
            start[k] = start[r];
            prune[k] = prune[r];
            w[k] = w[r];
            f[k] = f[r];
            s1[k] = s1[r];
            s2[k] = s2[r];
            cost[k] = cost[r];
            lo[k] = lo[r];
            hi[k] = hi[r];
            ++k;
        }
        for (auto* v : {&w, &f, &s1, &s2, &cost, &lo, &hi})
            v->resize(k);
        start.resize(k);
        prune.resize(k);
    }
};

} // namespace

std::vector<std::size_t> fit_steps_weighted(const std::vector<double>& y,
                                            const std::vector<double>& w, double penalty,
                                            std::size_t min_length) {
    const std::size_t n = y.size();
    min_length = std::max<std::size_t>(min_length, 1);
    if (n < 2 * min_length || w.size() != n)
        return {};
    for (double wi : w)
        if (!(wi > 0) || !std::isfinite(wi))
            return {};
    // Standardise around the median, in units of the typical noise scale 1/sqrt(median w), so
    // prefix sums stay well conditioned; w*(y-m)^2 keeps its value in these units.
    const double centre = median(y);
    const double scale = 1.0 / std::sqrt(median(w));
    std::vector<double> cw(n + 1, 0), s1(n + 1, 0), s2(n + 1, 0);
    for (std::size_t i = 0; i < n; ++i) {
        const double z = (y[i] - centre) / scale;
        const double wz = w[i] * scale * scale;
        cw[i + 1] = cw[i] + wz;
        s1[i + 1] = s1[i] + wz * z;
        s2[i + 1] = s2[i] + wz * z * z;
    }
    const double inf = std::numeric_limits<double>::infinity();
    constexpr std::size_t never = std::numeric_limits<std::size_t>::max();
    std::vector<double> f(n + 1, inf);
    std::vector<std::size_t> prev(n + 1, 0);
    f[0] = -penalty;
    // Candidate starts of the last segment, structure of arrays for a tight inner loop. A pruned
    // candidate gets an infinite F (so it is never chosen) and is compacted away now and then.
    //
    // Pruning is functional (FPOP-style) and exact. As a function of the last segment's level mu,
    // candidate s costs Q_s(mu) = F(s) + SSE(s..t) + W(s..t) * (mu - mean)^2 (+ penalty), with
    // W the segment's total weight and mean its weighted mean. A segment starting at t costs F(t)
    // (+ penalty) at every mu, and from then on both grow by the same terms, so s can only win for
    // the mu where Q_s(mu) <= F(t): an interval around the segment mean of half-width
    // sqrt((F(t) - F(s) - SSE) / W). Each candidate keeps the intersection of these intervals;
    // once it is empty the candidate can never win again, for every end at which a segment may
    // start at t (t + min_length on). (PELT is the special case of testing only whether the
    // interval exists.) On stationary data this keeps few candidates alive.
    Candidates cand;
    cand.push(0, never, 0, f[0], 0, 0);
    double f_prev = inf; // f[t-1], for the deferred pruning test
    for (std::size_t t = min_length; t <= n; ++t) {
        if (t >= 2 * min_length && std::isfinite(f[t - min_length])) {
            const std::size_t s = t - min_length;
            cand.push(s, never, cw[s], f[s], s1[s], s2[s]); // no cost at t-1 yet: nothing to prune
        }
        if ((t & 15) == 0)
            cand.compact();
        auto& [c_start, c_prune, c_w, c_f, c_s1, c_s2, c_cost, c_lo, c_hi] = cand;
        const double a_t = s1[t], b_t = s2[t], w_t = cw[t];
        const double a_prev = s1[t - 1], w_prev = cw[t - 1];
        const std::size_t m = c_start.size();
        double best = inf;
        for (std::size_t r = 0; r < m; ++r) {
            // Deferred test at end t-1 (F(t-1) is known now); see the comment above.
            if (c_prune[r] == never && c_cost[r] != -inf && std::isfinite(f_prev)) {
                const double slack = f_prev - c_cost[r];
                bool dead = slack < -1e-9 * (1 + std::fabs(f_prev));
                if (!dead) {
                    const double wseg = w_prev - c_w[r];
                    const double mean = (a_prev - c_s1[r]) / wseg;
                    const double half = std::sqrt(std::max(slack, 0.0) / wseg) + 1e-9;
                    c_lo[r] = std::max(c_lo[r], mean - half);
                    c_hi[r] = std::min(c_hi[r], mean + half);
                    dead = c_lo[r] > c_hi[r];
                }
                if (dead)
                    c_prune[r] = t - 1 + min_length;
            }
            if (c_prune[r] <= t)
                c_f[r] = inf;
            const double a = a_t - c_s1[r];
            const double c = c_f[r] + (b_t - c_s2[r]) - a * a / (w_t - c_w[r]);
            c_cost[r] = c;
            best = c < best ? c : best;
        }
        std::size_t arg = 0;
        for (std::size_t r = 0; r < m; ++r)
            if (c_cost[r] == best) {
                arg = c_start[r];
                break;
            }
        f[t] = best + penalty;
        prev[t] = arg;
        f_prev = f[t];
    }
    std::vector<std::size_t> starts;
    for (std::size_t t = n; t > 0;) {
        const std::size_t s = prev[t];
        if (s > 0)
            starts.push_back(s);
        t = s;
    }
    std::reverse(starts.begin(), starts.end());
    return starts;
}

} // namespace perfsweep::core
