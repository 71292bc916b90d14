#pragma once
// Change points in a series of per-point levels: robust noise scales (whole series and local),
// short outlier runs, and an exact penalised (weighted) least-squares step fit (optimal
// partitioning with functional pruning). Pure.

#include <cstddef>
#include <vector>

namespace perfsweep::core {

/// Robust noise scale of a series: 1.4826 * median(|y[i+1] - y[i]|) / sqrt(2), which a few level
/// shifts barely move. When at least 3 of 4 differences are exactly 0, the values are exact (a
/// noise-free metric whose few jumps are events, not noise): 0. Otherwise, when that median is 0
/// (quantised values), the mean of the smallest 90 % of |differences| scaled the same way.
double successive_difference_scale(const std::vector<double>& y);

/// Noise scale of a series from the smallest 80 % of its successive differences (|d|, scaled so
/// that Gaussian noise of scale sigma gives sigma): more efficient than the median for a short
/// series, and a few level shifts (the largest differences) do not count. 0 for fewer than 2
/// points.
double trimmed_difference_scale(const std::vector<double>& y);

/// Noise scale around each point: the larger of successive_difference_scale over the `window`
/// points before it and over the `window` points after it (a noisier stretch gets a larger scale
/// than a quiet one, and a point next to a noisy stretch gets the noisy scale); a side with fewer
/// than max(3, window / 2) differences does not count, and a series too short for either uses its
/// whole scale. Empty input gives an empty result.
std::vector<double> local_difference_scales(const std::vector<double>& y, std::size_t window);

/// local_difference_scales with windows that stop at `cuts` (ascending first points of levels, as
/// fit_steps returns them, optionally with 0 and y.size()): a point's windows lie inside its own
/// level. A point with no side of enough differences there gets 0 (unknown).
std::vector<double> local_difference_scales(const std::vector<double>& y, std::size_t window,
                                            const std::vector<std::size_t>& cuts);

/// How find_outlier_runs tells outliers from levels.
struct OutlierRunOptions {
    double k = 4.0;             ///< a run starts at a point more than k noise scales off both sides
    double extend_k = 1.5;      ///< adjacent points more than extend_k off, same sign, ...
    double extend_share = 0.25; ///< ... and at least this share of the run's largest, join it
    double level_k = 25.0;      ///< a short run whose every point is beyond level_k is a level
    std::size_t max_run = 2;    ///< runs of at most this many points are outliers
    std::size_t context = 5;    ///< points on each side whose median is that side's level
};

/// Points that belong to short outlier runs: maximal runs of at most `max_run` points, each
/// further than `k` (or, next to such a point, `extend_k`) noise scales `sigma[i]` from the median
/// of the `context` points on each side, in the same direction on both sides (one side at the ends
/// of the series). Such a run is noise, not a level: a good point between two outliers stays good,
/// and nothing is invented in its place. Runs of 3 or more points are levels; so is a short run
/// beyond `level_k` everywhere (no plausible noise puts two adjacent points there), a 2-point
/// run at the end of the series (the newest points may be a new level), and one at the start with
/// fewer than `context` points after it (nothing established says which side is odd). A run between
/// two different levels is part of a step, not an outlier. Returns one flag per point.
std::vector<bool> find_outlier_runs(const std::vector<double>& y, const std::vector<double>& sigma,
                                    const OutlierRunOptions& options = {});

/// Exact minimiser of  sum over segments of SSE(segment) / sigma^2  +  penalty * (#segments - 1)
/// with every segment at least `min_length` points long. Returns the index of the first point of
/// every segment after the first (ascending). Exact; functional (FPOP-style) pruning keeps it near
/// O(n log n) in practice (O(n^2) worst case). Deterministic.
std::vector<std::size_t> fit_steps(const std::vector<double>& y, double sigma, double penalty,
                                   std::size_t min_length = 2);

/// fit_steps with a weight per point: minimises  sum over segments of sum_i w[i] (y[i] - m)^2
/// (m = the segment's weighted mean)  +  penalty * (#segments - 1). With w[i] = 1 / sigma[i]^2
/// a noisy stretch pays less for its scatter than a quiet one. Weights must be > 0.
std::vector<std::size_t> fit_steps_weighted(const std::vector<double>& y,
                                            const std::vector<double>& w, double penalty,
                                            std::size_t min_length = 2);

} // namespace perfsweep::core
