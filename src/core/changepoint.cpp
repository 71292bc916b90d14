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
    auto cost = [&](std::size_t s, std::size_t t) { // points s..t-1
        const double a = s1[t] - s1[s];
        return (s2[t] - s2[s]) - a * a / static_cast<double>(t - s);
    };
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<double> f(n + 1, inf);
    std::vector<std::size_t> prev(n + 1, 0);
    f[0] = -penalty;
    struct Candidate {
        std::size_t start;
        std::size_t prune_from; // may be dropped for every end >= prune_from
    };
    std::vector<Candidate> cand{{0, std::numeric_limits<std::size_t>::max()}};
    for (std::size_t t = min_length; t <= n; ++t) {
        if (t >= 2 * min_length && std::isfinite(f[t - min_length]))
            cand.push_back({t - min_length, std::numeric_limits<std::size_t>::max()});
        double best = inf;
        std::size_t arg = 0;
        std::size_t w = 0;
        for (std::size_t r = 0; r < cand.size(); ++r) {
            if (cand[r].prune_from <= t)
                continue; // pruned: can never start the last segment again
            cand[w++] = cand[r];
            const double v = f[cand[r].start] + cost(cand[r].start, t) + penalty;
            if (v < best) {
                best = v;
                arg = cand[r].start;
            }
        }
        cand.resize(w);
        f[t] = best;
        prev[t] = arg;
        // PELT: if starting the last segment at s is already worse than the optimum at t (without
        // the penalty), it stays worse for every end >= t + min_length, where a segment may start
        // at t. Ends in between are still evaluated, so the fit stays exact.
        for (auto& c : cand)
            if (c.prune_from == std::numeric_limits<std::size_t>::max() &&
                f[c.start] + cost(c.start, t) > f[t])
                c.prune_from = t + min_length;
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
