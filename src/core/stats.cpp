#include "core/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace perfsweep::core {

double median(std::vector<double> v) {
    if (v.empty())
        return 0;
    const size_t mid = v.size() / 2;
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
    double m = v[mid];
    if (v.size() % 2 == 0) {
        double lo = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
        m = (m + lo) / 2;
    }
    return m;
}

Summary summarize(const std::vector<double>& values) {
    Summary s;
    s.n = values.size();
    if (values.empty())
        return s;
    double sum = 0;
    s.min = values.front();
    s.max = values.front();
    for (double v : values) {
        sum += v;
        s.min = std::min(s.min, v);
        s.max = std::max(s.max, v);
    }
    s.mean = sum / static_cast<double>(s.n);
    if (s.n > 1) {
        double ss = 0;
        for (double v : values)
            ss += (v - s.mean) * (v - s.mean);
        s.stddev = std::sqrt(ss / static_cast<double>(s.n - 1));
    }
    s.median = median(values);
    std::vector<double> dev;
    dev.reserve(values.size());
    for (double v : values)
        dev.push_back(std::fabs(v - s.median));
    s.mad = 1.4826 * median(std::move(dev));
    return s;
}

namespace {

// Continued fraction for the regularized incomplete beta function (modified Lentz's method).
double beta_continued_fraction(double a, double b, double x) {
    const double tiny = 1e-300;
    double c = 1, d = 1 - (a + b) * x / (a + 1);
    if (std::fabs(d) < tiny)
        d = tiny;
    d = 1 / d;
    double h = d;
    for (int m = 1; m <= 300; ++m) {
        const double m2 = 2.0 * m;
        double aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
        d = 1 + aa * d;
        if (std::fabs(d) < tiny)
            d = tiny;
        c = 1 + aa / c;
        if (std::fabs(c) < tiny)
            c = tiny;
        d = 1 / d;
        h *= d * c;
        aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
        d = 1 + aa * d;
        if (std::fabs(d) < tiny)
            d = tiny;
        c = 1 + aa / c;
        if (std::fabs(c) < tiny)
            c = tiny;
        d = 1 / d;
        const double del = d * c;
        h *= del;
        if (std::fabs(del - 1) < 1e-14)
            break;
    }
    return h;
}

double incomplete_beta(double a, double b, double x) {
    if (x <= 0)
        return 0;
    if (x >= 1)
        return 1;
    const double ln_front =
        std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
    const double front = std::exp(ln_front);
    if (x < (a + 1) / (a + b + 2))
        return front * beta_continued_fraction(a, b, x) / a;
    return 1 - front * beta_continued_fraction(b, a, 1 - x) / b;
}

} // namespace

double student_t_two_sided_p(double t, double dof) {
    if (!std::isfinite(t))
        return 0;
    if (dof <= 0)
        return 1;
    const double x = dof / (dof + t * t);
    return std::clamp(incomplete_beta(dof / 2, 0.5, x), 0.0, 1.0);
}

Comparison compare_samples(const std::vector<double>& a, const std::vector<double>& b,
                           double alpha) {
    Comparison c;
    const Summary sa = summarize(a), sb = summarize(b);
    if (sa.n == 0 || sb.n == 0)
        return c;
    c.relative_change = sa.median != 0 ? (sb.median - sa.median) / std::fabs(sa.median) : 0;
    if (sa.n < 2 || sb.n < 2)
        return c;
    const double va = sa.stddev * sa.stddev / static_cast<double>(sa.n);
    const double vb = sb.stddev * sb.stddev / static_cast<double>(sb.n);
    const double se2 = va + vb;
    if (se2 <= 0) {
        // Both samples constant: different constants are certainly different.
        c.p_value = sa.mean == sb.mean ? 1.0 : 0.0;
    } else {
        const double t = (sb.mean - sa.mean) / std::sqrt(se2);
        const double dof =
            se2 * se2 /
            (va * va / static_cast<double>(sa.n - 1) + vb * vb / static_cast<double>(sb.n - 1));
        c.p_value = student_t_two_sided_p(t, dof);
    }
    c.significant = c.p_value < alpha;
    return c;
}

PointVerdict classify_point(const std::vector<double>& point, const std::vector<double>& good,
                            const std::vector<double>& bad, double alpha) {
    if (point.empty() || good.empty() || bad.empty())
        return PointVerdict::unknown;
    const double p = median(point), g = median(good), b = median(bad);
    if (g == b)
        return PointVerdict::unknown;
    const double t = (p - g) / (b - g); // 0 at the good level, 1 at the bad level
    if (t < 0.5 && compare_samples(bad, point, alpha).significant)
        return PointVerdict::good_like;
    if (t > 0.5 && compare_samples(good, point, alpha).significant)
        return PointVerdict::bad_like;
    return PointVerdict::unknown;
}

double fisher_exact_two_sided(long a, long b, long c, long d) {
    if (a < 0 || b < 0 || c < 0 || d < 0)
        return 1;
    const long r1 = a + b, r2 = c + d, c1 = a + c, n = a + b + c + d;
    if (n == 0 || r1 == 0 || r2 == 0 || c1 == 0 || c1 == n)
        return 1;
    // log P(X = x) for the hypergeometric distribution of the top-left cell.
    auto log_choose = [](long k_n, long k) {
        return std::lgamma(static_cast<double>(k_n) + 1) - std::lgamma(static_cast<double>(k) + 1) -
               std::lgamma(static_cast<double>(k_n - k) + 1);
    };
    const double log_total = log_choose(n, c1);
    auto log_p = [&](long x) { return log_choose(r1, x) + log_choose(r2, c1 - x) - log_total; };
    const long lo = std::max(0L, c1 - r2), hi = std::min(r1, c1);
    const double observed = log_p(a);
    // R's relative tolerance: tables within 1e-7 of the observed probability count as "as
    // extreme".
    const double limit = observed + std::log1p(1e-7);
    double p = 0;
    for (long x = lo; x <= hi; ++x) {
        const double lp = log_p(x);
        if (lp <= limit)
            p += std::exp(lp);
    }
    return std::min(1.0, p);
}

} // namespace perfsweep::core
