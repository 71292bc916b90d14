#pragma once
// Sample statistics and two-sample tests over benchmark repeats (pure).

#include <cstddef>
#include <vector>

namespace perfsweep::core {

/// Location and spread of one sample.
struct Summary {
    std::size_t n = 0;
    double mean = 0;
    double median = 0;
    double stddev = 0; ///< sample standard deviation (n-1); 0 for n < 2
    double mad = 0;    ///< median absolute deviation, scaled by 1.4826 to estimate sigma
    double min = 0;
    double max = 0;
};

/// Summarise `values` (empty input gives n = 0 and zeros).
Summary summarize(const std::vector<double>& values);

/// Median of `values` (0 for empty input).
double median(std::vector<double> values);

/// Result of comparing sample `b` against reference sample `a`.
struct Comparison {
    double relative_change = 0; ///< (median(b) - median(a)) / |median(a)|
    double p_value = 1;         ///< two-sided p-value of Welch's t-test (1 when undecidable)
    bool significant = false;   ///< p_value < alpha
};

/// Compare `b` against `a` with Welch's t-test at level `alpha`. Both samples need >= 2 values for
/// a test; with fewer, the comparison is never significant.
Comparison compare_samples(const std::vector<double>& a, const std::vector<double>& b,
                           double alpha = 0.01);

/// Two-sided p-value of Student's t distribution with `dof` degrees of freedom at `t`.
double student_t_two_sided_p(double t, double dof);

/// Two-sided p-value of Fisher's exact test on the 2x2 table [[a, b], [c, d]] (as R's
/// fisher.test: the sum of the probabilities of every table with the same margins that is no more
/// likely than the observed one). Counts must be >= 0; an empty table gives 1.
double fisher_exact_two_sided(long a, long b, long c, long d);

/// How a point relates to the levels on either side of a boundary.
enum class PointVerdict { good_like, bad_like, unknown };

/// Classify `point` against the `good` and `bad` reference samples: good-like or bad-like when it
/// is on that side of the midpoint and significantly different from the other side at `alpha`,
/// otherwise unknown (more repeats may decide it).
PointVerdict classify_point(const std::vector<double>& point, const std::vector<double>& good,
                            const std::vector<double>& bad, double alpha = 0.01);

} // namespace perfsweep::core
