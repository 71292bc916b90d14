#pragma once
// The pull-request verdict (pure): a benchmark measured on the head and on its base in one job,
// interleaved so that drift cancels, with repeats by need (a sequential test with a stated error
// rate), gives regression / improvement / same per series. The base may also be a level read from
// the history. `perfsweep compare` (app/compare) runs it; bench/compare simulates it.

#include "core/model.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace perfsweep::core {

/// Tunables of the sequential comparison; the defaults are the documented ones (docs/compare.md).
struct CompareOptions {
    double threshold = 0.02; ///< the smallest relative change that counts
    /// The error rate per series: a false regression (or a false improvement) has probability at
    /// most alpha / 2, and so does calling a change of at least the threshold "same" (each look
    /// tests at alpha / looks: Bonferroni over the looks).
    double alpha = 0.01;
    int min_pairs = 4;  ///< the first look (pairs of base and head runs)
    int max_pairs = 32; ///< the cap; still undecided there: inconclusive
    Direction direction = Direction::higher_is_better;
};

/// What one series' comparison says.
enum class CompareVerdict { regression, improvement, same, undecided, inconclusive };

/// "regression" / "improvement" / "same" / "undecided" / "inconclusive".
std::string_view to_string(CompareVerdict v);

/// The pair counts at which the verdict is looked at: min_pairs, then x1.5 (even, at least +2)
/// up to max_pairs (always the last look). Even counts keep the run order balanced (head_first).
std::vector<int> look_schedule(const CompareOptions& options);

/// Whether pair `index` (0-based) runs the head first: base-head, head-base, head-base,
/// base-head, ... (ABBA), so a linear drift during the job adds as much to the base as to the
/// head over every 4 pairs and cancels in the mean.
bool head_first(std::size_t index);

/// The relative change of the head against the base with its confidence interval at one look.
struct CompareEstimate {
    double change = 0; ///< exp(mean log ratio) - 1: the head's relative change (+ = larger)
    double low = 0;    ///< the interval's ends, as relative changes
    double high = 0;
    double noise = 0;  ///< the standard deviation of one log ratio (relative noise)
    std::size_t n = 0; ///< pairs (or head runs against a level)
    double dof = 0;    ///< degrees of freedom of the interval
};

/// Paired estimate: the log ratio head[i] / base[i] of each pair (equal lengths, positive values),
/// its mean and a t interval at two-sided level `alpha_look`.
CompareEstimate paired_estimate(const std::vector<double>& base, const std::vector<double>& head,
                                double alpha_look);

/// Against a level from the history: log(head[i] / level), the level's own uncertainty
/// (`level_noise` per point, `level_points` points) added to the standard error (Welch).
CompareEstimate level_estimate(double level, double level_noise, std::size_t level_points,
                               const std::vector<double>& head, double alpha_look);

/// The verdict of `e` for a metric going `options.direction`: regression when the interval lies
/// on the worse side of 0 and the change is at least the threshold; improvement likewise on the
/// better side; same when the interval lies inside (-threshold, +threshold); else undecided, or
/// at the last look (`last`) inconclusive.
CompareVerdict decide(const CompareEstimate& e, const CompareOptions& options, bool last);

/// One sentence for `v` and `e` ("-3.02 % (99 % interval -3.41 % .. -2.63 %, 6 pairs)").
std::string describe(CompareVerdict v, const CompareEstimate& e, const CompareOptions& options);

/// Two-sided level of each look's interval: alpha / the number of looks.
double look_alpha(const CompareOptions& options);

/// Quantile of Student's t: the t with two-sided p-value `p` at `dof` degrees of freedom.
double student_t_quantile(double p, double dof);

} // namespace perfsweep::core
