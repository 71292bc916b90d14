#pragma once
// Change points in a series of per-point levels: robust noise scale, single-outlier filter and an
// exact penalised least-squares step fit (optimal partitioning with PELT pruning). Pure.

#include <cstddef>
#include <vector>

namespace perfsweep::core {

/// Robust noise scale of a series: 1.4826 * median(|y[i+1] - y[i]|) / sqrt(2), which a few level
/// shifts barely move. Falls back to the mean absolute difference when that median is 0; 0 only for
/// a constant series.
double successive_difference_scale(const std::vector<double>& y);

/// Replace every point that deviates by more than `k * sigma` from the median of itself and its two
/// nearest neighbours (centred window; the first and last point use the first/last three) by that
/// median. A lone outlier is removed; a run of >= 2 shifted points is kept. Sets `replaced[i]`.
std::vector<double> filter_single_outliers(const std::vector<double>& y, double sigma, double k,
                                           std::vector<bool>* replaced = nullptr);

/// Exact minimiser of  sum over segments of SSE(segment) / sigma^2  +  penalty * (#segments - 1)
/// with every segment at least `min_length` points long. Returns the index of the first point of
/// every segment after the first (ascending). O(n) to O(n^2) with PELT pruning; deterministic.
std::vector<std::size_t> fit_steps(const std::vector<double>& y, double sigma, double penalty,
                                   std::size_t min_length = 2);

} // namespace perfsweep::core
