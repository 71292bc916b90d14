#include "core/compare.hpp"

#include "core/stats.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <cmath>

namespace perfsweep::core {

namespace {

constexpr util::EnumName<CompareVerdict> k_verdict_names[] = {
    {CompareVerdict::regression, "regression"},
    {CompareVerdict::improvement, "improvement"},
    {CompareVerdict::same, "same"},
    {CompareVerdict::undecided, "undecided"},
    {CompareVerdict::inconclusive, "inconclusive"}};

std::string percent_text(double r) {
    return (r >= 0 ? "+" : "") + util::format_fixed(100 * r, 2) + " %";
}

struct LogSample {
    double mean = 0;
    double sd = 0;
    std::size_t n = 0;
};

LogSample log_sample(const std::vector<double>& logs) {
    LogSample s;
    s.n = logs.size();
    if (s.n == 0)
        return s;
    for (double x : logs)
        s.mean += x;
    s.mean /= static_cast<double>(s.n);
    if (s.n > 1) {
        double ss = 0;
        for (double x : logs)
            ss += (x - s.mean) * (x - s.mean);
        s.sd = std::sqrt(ss / static_cast<double>(s.n - 1));
    }
    return s;
}

CompareEstimate interval(double mean, double se, double dof, double sd, std::size_t n,
                         double alpha_look) {
    CompareEstimate e;
    e.n = n;
    e.dof = dof;
    e.noise = sd;
    e.change = std::expm1(mean);
    if (n < 2 || !(dof >= 1)) {
        e.low = -INFINITY;
        e.high = INFINITY;
        return e;
    }
    const double t = student_t_quantile(alpha_look, dof);
    e.low = std::expm1(mean - t * se);
    e.high = std::expm1(mean + t * se);
    return e;
}

} // namespace

std::string_view to_string(CompareVerdict v) {
    return util::enum_name(k_verdict_names, v, "inconclusive");
}

std::vector<int> look_schedule(const CompareOptions& o) {
    std::vector<int> looks;
    const int cap = std::max(2, o.max_pairs);
    int n = std::clamp(o.min_pairs, 2, cap);
    n += n % 2;
    while (n < cap) {
        looks.push_back(n);
        int next = static_cast<int>(std::ceil(n * 1.5));
        next += next % 2;
        n = std::max(next, n + 2);
    }
    looks.push_back(cap);
    return looks;
}

bool head_first(std::size_t index) {
    const std::size_t k = index % 4;
    return k == 1 || k == 2;
}

double look_alpha(const CompareOptions& o) {
    return o.alpha / static_cast<double>(look_schedule(o).size());
}

double student_t_quantile(double p, double dof) {
    // Bisection on the two-sided p-value, which falls monotonically in t.
    double lo = 0, hi = 1;
    while (student_t_two_sided_p(hi, dof) > p && hi < 1e7)
        hi *= 2;
    for (int i = 0; i < 200 && hi - lo > 1e-10 * hi; ++i) {
        const double mid = 0.5 * (lo + hi);
        (student_t_two_sided_p(mid, dof) > p ? lo : hi) = mid;
    }
    return hi;
}

CompareEstimate paired_estimate(const std::vector<double>& base, const std::vector<double>& head,
                                double alpha_look) {
    std::vector<double> logs;
    const std::size_t n = std::min(base.size(), head.size());
    for (std::size_t i = 0; i < n; ++i)
        if (base[i] > 0 && head[i] > 0)
            logs.push_back(std::log(head[i] / base[i]));
    const LogSample s = log_sample(logs);
    return interval(s.mean, s.sd / std::sqrt(static_cast<double>(std::max<std::size_t>(s.n, 1))),
                    static_cast<double>(s.n) - 1, s.sd, s.n, alpha_look);
}

CompareEstimate level_estimate(double level, double level_noise, std::size_t level_points,
                               const std::vector<double>& head, double alpha_look) {
    std::vector<double> logs;
    for (double h : head)
        if (h > 0 && level > 0)
            logs.push_back(std::log(h / level));
    const LogSample s = log_sample(logs);
    const double rel_level = level > 0 ? level_noise / level : 0;
    const double m = static_cast<double>(std::max<std::size_t>(level_points, 1));
    const double n = static_cast<double>(std::max<std::size_t>(s.n, 1));
    const double a = s.sd * s.sd / n, b = rel_level * rel_level / m;
    const double se = std::sqrt(a + b);
    // Welch-Satterthwaite degrees of freedom of the two variance terms.
    double dof = n - 1;
    if (a + b > 0 && s.n > 1 && level_points > 1)
        dof = (a + b) * (a + b) / (a * a / (n - 1) + b * b / (m - 1));
    return interval(s.mean, se, dof, s.sd, s.n, alpha_look);
}

CompareVerdict decide(const CompareEstimate& e, const CompareOptions& o, bool last) {
    const bool higher = o.direction == Direction::higher_is_better;
    // As changes for the better (+) and for the worse (-).
    const double change = higher ? e.change : -e.change;
    const double low = higher ? e.low : -e.high;
    const double high = higher ? e.high : -e.low;
    if (std::isfinite(low) && std::isfinite(high)) {
        if (high < 0 && change <= -o.threshold)
            return CompareVerdict::regression;
        if (low > 0 && change >= o.threshold)
            return CompareVerdict::improvement;
        if (low > -o.threshold && high < o.threshold)
            return CompareVerdict::same;
    }
    return last ? CompareVerdict::inconclusive : CompareVerdict::undecided;
}

std::string describe(CompareVerdict v, const CompareEstimate& e, const CompareOptions& o) {
    const int confidence = static_cast<int>(std::lround(100 * (1 - o.alpha)));
    std::string interval_text = std::isfinite(e.low) && std::isfinite(e.high)
                                    ? std::to_string(confidence) + " % interval " +
                                          percent_text(e.low) + " .. " + percent_text(e.high)
                                    : "no interval yet";
    std::string out = percent_text(e.change) + " (" + interval_text + ", " + std::to_string(e.n) +
                      (e.n == 1 ? " pair" : " pairs") + ")";
    switch (v) {
    case CompareVerdict::regression:
        return out + ": worse by at least the threshold " + percent_text(o.threshold).substr(1);
    case CompareVerdict::improvement:
        return out + ": better by at least the threshold " + percent_text(o.threshold).substr(1);
    case CompareVerdict::same:
        return out + ": within ±" + percent_text(o.threshold).substr(1);
    case CompareVerdict::undecided:
        return out + ": not decided yet";
    case CompareVerdict::inconclusive:
        return out + ": not decided at the cap of runs (noisy, or a change near the threshold)";
    }
    return out;
}

} // namespace perfsweep::core
