#include "core/changepoint.hpp"

#include "core/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace perfsweep::core {

double successive_difference_scale(const std::vector<double>& y) {
    if (y.size() < 2)
        return 0;
    std::vector<double> d;
    d.reserve(y.size() - 1);
    double sum = 0;
    for (std::size_t i = 1; i < y.size(); ++i) {
        d.push_back(std::fabs(y[i] - y[i - 1]));
        sum += d.back();
    }
    const double m = median(d);
    if (m > 0)
        return 1.4826 * m / std::sqrt(2.0);
    // Mostly identical neighbours (quantised values): the mean absolute difference of a normal
    // sample is 2*sigma/sqrt(pi) for differences of variance 2*sigma^2.
    return sum / static_cast<double>(d.size()) * std::sqrt(std::numbers::pi) / 2.0 / std::sqrt(2.0);
}

namespace {
double median3(double a, double b, double c) {
    return std::max(std::min(a, b), std::min(std::max(a, b), c));
}
} // namespace

std::vector<double> filter_single_outliers(const std::vector<double>& y, double sigma, double k,
                                           std::vector<bool>* replaced) {
    std::vector<double> out = y;
    if (replaced)
        replaced->assign(y.size(), false);
    const std::size_t n = y.size();
    if (n < 3)
        return out;
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t lo = i == 0 ? 0 : (i == n - 1 ? n - 3 : i - 1);
        const double m = median3(y[lo], y[lo + 1], y[lo + 2]);
        if (std::fabs(y[i] - m) > k * sigma) {
            out[i] = m;
            if (replaced)
                (*replaced)[i] = true;
        }
    }
    return out;
}

std::vector<std::size_t> fit_steps(const std::vector<double>& y, double sigma, double penalty,
                                   std::size_t min_length) {
    const std::size_t n = y.size();
    min_length = std::max<std::size_t>(min_length, 1);
    if (n < 2 * min_length || !(sigma > 0))
        return {};
    // Standardise around the median so prefix sums of squares stay well conditioned.
    const double centre = median(y);
    std::vector<double> s1(n + 1, 0), s2(n + 1, 0);
    for (std::size_t i = 0; i < n; ++i) {
        const double z = (y[i] - centre) / sigma;
        s1[i + 1] = s1[i] + z;
        s2[i + 1] = s2[i] + z * z;
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
    // candidate s costs Q_s(mu) = F(s) + SSE(s..t) + len * (mu - mean)^2 (+ penalty). A segment
    // starting at t costs F(t) (+ penalty) at every mu, and from then on both grow by the same
    // terms, so s can only win for the mu where Q_s(mu) <= F(t): an interval around the segment
    // mean of half-width sqrt((F(t) - F(s) - SSE) / len). Each candidate keeps the intersection of
    // these intervals; once it is empty the candidate can never win again, for every end at
    // which a segment may start at t (t + min_length on). (PELT is the special case of testing
    // only whether the interval exists.) On stationary data this keeps few candidates alive.
    std::vector<std::size_t> c_start{0}, c_prune{never};
    std::vector<double> c_len{0}, c_f{f[0]}, c_s1{0}, c_s2{0}, c_cost{-inf}, c_lo{-inf}, c_hi{inf};
    double f_prev = inf; // f[t-1], for the deferred pruning test
    for (std::size_t t = min_length; t <= n; ++t) {
        if (t >= 2 * min_length && std::isfinite(f[t - min_length])) {
            const std::size_t s = t - min_length;
            c_start.push_back(s);
            c_prune.push_back(never);
            c_len.push_back(static_cast<double>(s));
            c_f.push_back(f[s]);
            c_s1.push_back(s1[s]);
            c_s2.push_back(s2[s]);
            c_cost.push_back(-inf); // no cost at t-1 yet: nothing to prune on
            c_lo.push_back(-inf);
            c_hi.push_back(inf);
        }
        if ((t & 15) == 0) { // compact pruned candidates, keeping the arrays aligned
            std::size_t w = 0;
            for (std::size_t r = 0; r < c_start.size(); ++r) {
                if (c_f[r] == inf)
                    continue;
                c_start[w] = c_start[r];
                c_prune[w] = c_prune[r];
                c_len[w] = c_len[r];
                c_f[w] = c_f[r];
                c_s1[w] = c_s1[r];
                c_s2[w] = c_s2[r];
                c_cost[w] = c_cost[r];
                c_lo[w] = c_lo[r];
                c_hi[w] = c_hi[r];
                ++w;
            }
            for (auto* v : {&c_len, &c_f, &c_s1, &c_s2, &c_cost, &c_lo, &c_hi})
                v->resize(w);
            c_start.resize(w);
            c_prune.resize(w);
        }
        const double a_t = s1[t], b_t = s2[t], td = static_cast<double>(t);
        const double a_prev = s1[t - 1];
        const std::size_t m = c_start.size();
        double best = inf;
        for (std::size_t r = 0; r < m; ++r) {
            // Deferred test at end t-1 (F(t-1) is known now); see the comment above.
            if (c_prune[r] == never && c_cost[r] != -inf && std::isfinite(f_prev)) {
                const double slack = f_prev - c_cost[r];
                bool dead = slack < -1e-9 * (1 + std::fabs(f_prev));
                if (!dead) {
                    const double len = td - 1 - c_len[r];
                    const double mean = (a_prev - c_s1[r]) / len;
                    const double half = std::sqrt(std::max(slack, 0.0) / len) + 1e-9;
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
            const double c = c_f[r] + (b_t - c_s2[r]) - a * a / (td - c_len[r]);
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
