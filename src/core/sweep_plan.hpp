#pragma once
// A pure sweep planner over an ordered list of candidate points (nightly dates, hourly source
// states, ...). It proposes which points to measure next, takes the observations, and reports
// every boundary where the measured level changes. No I/O, no clock, no date logic: points are
// indices 0..n-1 with labels. Used as a state machine: loop { reqs = next(); if empty: stop;
// measure reqs; observe(...) each } then result().

#include "core/exit_code.hpp"
#include "core/model.hpp"

#include <cstddef>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace perfsweep::core {

/// How the planner chooses points.
enum class SweepStrategy {
    exhaustive, ///< every point, in order (the manual method)
    adaptive,   ///< ends, coarse stride of min_span, then refine every changed interval
    bisect,     ///< ends, then refine only the first changed interval (one boundary)
};

/// The names of SweepStrategy.
inline constexpr util::EnumName<SweepStrategy> k_strategy_names[] = {
    {SweepStrategy::exhaustive, "exhaustive"},
    {SweepStrategy::adaptive, "adaptive"},
    {SweepStrategy::bisect, "bisect"},
};

/// "exhaustive" / "adaptive" / "bisect".
std::string_view to_string(SweepStrategy s);
/// Parse a strategy name; nullopt otherwise.
std::optional<SweepStrategy> parse_strategy(std::string_view s);

/// What the planner compares between two points.
enum class ComparisonKind {
    values,    ///< metric values: Welch's t-test on the relative change (the default)
    pass_fail, ///< failure indicators (1 failed run, 0 passed run): Fisher's exact test on counts
};

/// The change detect reported (investigate): narrowed before anything else, so the next stage
/// can start while the coverage of the rest of the range goes on.
struct SweepFocus {
    std::size_t good = 0; ///< a point at the level before the drop (detect's last good)
    std::size_t bad = 0;  ///< a later point at the level after it (detect's first bad)
};

/// Tuning of the planner; defaults match `perfsweep daily`.
struct SweepOptions {
    SweepStrategy strategy = SweepStrategy::adaptive;
    int repeats = 1;      ///< values asked for a point's first measurement
    int max_repeats = 12; ///< cap on values per point (undecided points double up to it)
    /// Shortest excursion: a level lasting >= min_span points is always sampled. 3 days: the
    /// seed's 3-day level between its 6-day dip and the next step (docs/daily.md, the cost).
    int min_span = 3;
    double min_change = 0.02; ///< smallest relative change that must be found (e.g. 0.02 = 2 %)
    double alpha = 0.01;      ///< significance level of the two-sample test
    int workers = 1;          ///< points proposed per round (parallel GPUs)
    /// Idle workers of a round measure speculative points inside the interval being narrowed;
    /// false: only the points the evidence asks for (a fan-out's list of dates to measure next).
    bool speculate = true;
    long max_runs = 0; ///< budget of benchmark runs (values asked); 0 = unlimited
    Direction direction = Direction::higher_is_better; ///< decides regression vs improvement
    /// values or pass_fail (exit-code mode; forces lower_is_better: a rising failure rate is
    /// the regression, and levels and relative_change are failure rates and their difference).
    ComparisonKind comparison = ComparisonKind::values;
    /// Narrow this change first (a bisection over the two known levels, same pair tests), then
    /// the usual coverage; none: the usual order.
    std::optional<SweepFocus> focus;
};

/// One candidate point and its observations.
struct SweepPoint {
    std::string label; ///< e.g. "2023-08-24"
    /// untested (never measured), unknown (has values) or test_failed (missing image, failed or
    /// timed out: skipped, never compared; `status` says which).
    StateStatus state = StateStatus::untested;
    std::vector<double> values; ///< every value observed (ok points)
    Status status = Status::ok; ///< last status (non-ok for broken points)
    std::string reason;         ///< why broken
    std::string log;            ///< log path of the last run, if any
    bool reused = false;        ///< values came from history, not from this sweep
};

/// One proposal: measure point `index` for `repeats` more values.
struct SweepRequest {
    std::size_t index = 0; ///< candidate index
    int repeats = 1;       ///< additional values wanted
    /// Requests compare by value (for tests).
    bool operator==(const SweepRequest&) const = default;
};

/// What the caller knows about the cost of measuring points now.
struct ProposalHints {
    /// A point whose extra runs cost no build (the source state whose build is current): an
    /// undecided pair repeats it first.
    std::optional<std::size_t> cheap;
    /// Requests handed out and not observed yet (workers without a round barrier): never
    /// proposed again; an untested one counts as sampled for the coverage and is not compared
    /// until its result comes; their runs count against the budget.
    std::vector<SweepRequest> in_flight;
};

/// A change of level between two measured points with no untested available point between them
/// (when `untested_between` is 0), possibly separated by broken points; its p_value is the test
/// of the two adjacent points.
struct Boundary : LevelChange {
    std::size_t last_before = 0;             ///< last ok point at the old level
    std::size_t first_after = 0;             ///< first ok point at the new level
    std::vector<std::size_t> broken_between; ///< broken points between them (change is "somewhere")
    std::size_t untested_between = 0; ///< untested available points left between (0 = narrowed)
    PassFail runs_before;             ///< pass/fail comparison: every run of the segment before
    PassFail runs_after;              ///< pass/fail comparison: every run of the segment after
};

/// Everything the sweep knows, complete or not.
struct SweepResult {
    std::vector<SweepPoint> points;   ///< every candidate, in order
    std::vector<Boundary> boundaries; ///< decided changes (and undecided pairs, kind unknown)
    std::vector<std::size_t> skipped; ///< broken points, in order
    long runs = 0;                    ///< values asked from the benchmark in this sweep
    long reused_values = 0;           ///< values taken from history instead of running
    long exhaustive_runs = 0;         ///< what `exhaustive` would need: candidates x repeats
    bool complete = false;            ///< the planner had nothing left to propose
    std::string stop_reason;          ///< why it stopped when not complete (budget, ...)
    SweepOptions options;             ///< the options used
};

/// The planner. Deterministic: the same observations give the same proposals, in any order of
/// observation, so a resumed sweep continues exactly where a killed one stopped.
class SweepPlan {
public:
    /// A plan over `labels` (candidate order = index order). Throws a usage error on bad options.
    SweepPlan(std::vector<std::string> labels, SweepOptions options);

    /// Up to `workers` useful requests for the next round; empty when nothing useful is left (or
    /// the run budget is spent; then `budget_exhausted()` is true).
    std::vector<SweepRequest> next() const;
    /// Like next(), weighing the costs in `hints`.
    std::vector<SweepRequest> next(const ProposalHints& hints) const;
    /// The one next useful request for a worker that just became free while `hints.in_flight`
    /// are measured (no round barrier): never a point in flight, never one whose result cannot
    /// change the result; none while nothing is useful until a point in flight reports.
    std::optional<SweepRequest> next_one(const ProposalHints& hints) const;
    /// The focus boundary (options.focus) once it is decided: narrowed to adjacent available
    /// points and confirmed like any boundary; none before, or when the focus did not hold
    /// (its good end measured at the bad level: the sweep then goes on in the usual order).
    std::optional<Boundary> focus_boundary() const;
    /// The boundaries decided so far (narrowed, kind known), in order: a loop can print each
    /// as soon as it appears.
    std::vector<Boundary> decided_boundaries() const;
    /// Record a measurement of point `index`: ok adds `values`; any other status marks it broken.
    /// `runs` is how many benchmark runs it cost (0 for reused history values).
    void observe(std::size_t index, Status status, const std::vector<double>& values,
                 const std::string& reason = {}, const std::string& log = {}, long runs = -1);
    /// Values from history for an untested point (not counted as runs). Ignored if not untested.
    void reuse(std::size_t index, const std::vector<double>& values, const std::string& log = {});
    /// Values of the same benchmark measured outside the candidates on the same machine (the
    /// history's nights around the range), one entry per point, in order: the noise they show (each
    /// point's repeats and the differences of neighbouring points) joins the pooled noise, so a
    /// pair with one run per point can be decided from the first round. Never candidates, never
    /// compared, not counted as runs; replaces earlier context.
    void set_noise_context(std::vector<std::vector<double>> series);
    /// The same machine's nights just outside the candidates, nearest first, `before` the first
    /// and `after` the last: evidence of the two levels. An adjacent pair's confirmation pools
    /// them with the candidates next to it while they are the same level as its point (no
    /// nightly the history holds is measured again to reach the pooled runs per side). Never
    /// candidates, not counted as runs; ignored for pass/fail; replaces earlier ones.
    void set_level_context(std::vector<std::vector<double>> before,
                           std::vector<std::vector<double>> after);
    /// True when the run budget stops further proposals.
    bool budget_exhausted() const;
    /// The current knowledge as a result; `stop_reason` is recorded when not complete.
    SweepResult result(const std::string& stop_reason = {}) const;
    /// Number of candidates.
    std::size_t size() const { return m_points.size(); }
    /// The point at `index`.
    const SweepPoint& point(std::size_t index) const { return m_points.at(index); }

private:
    enum class Relation { same, differ, unknown };
    struct PairTest {
        Relation relation = Relation::unknown;
        double relative_change = 0;
        double p_value = 1;
    };
    PairTest test_values(const std::vector<double>& a, const std::vector<double>& b,
                         double alpha) const;
    PairTest test_pass_fail(const std::vector<double>& a, const std::vector<double>& b,
                            double alpha) const;
    PairTest compare(std::size_t a, std::size_t b) const;
    std::vector<Boundary> pass_fail_boundaries(const std::vector<std::size_t>& ok) const;
    std::vector<std::size_t> ok_points() const;
    struct Round;
    std::vector<SweepRequest> proposals(const ProposalHints& hints = {},
                                        std::size_t limit = 0) const;
    /// Where the focus stands: the interval (lo, hi) being narrowed and what it needs next.
    struct FocusState {
        bool active = false;  ///< a focus is set, holds and is not decided yet
        bool decided = false; ///< (lo, hi) is its decided boundary
        std::size_t lo = 0, hi = 0;
        std::optional<std::size_t> more; ///< a point whose repeats the focus needs first
    };
    FocusState focus_state() const;
    /// The focus's requests in order (its next point, then splits for idle workers), avoiding
    /// `touched` (points already handed out).
    std::vector<SweepRequest> focus_requests(const std::set<std::size_t>& touched) const;
    /// The side of an undecided pair that gets more runs.
    std::size_t more_of_pair(std::size_t a, std::size_t b, const ProposalHints& hints) const;
    /// A level of one point (its nearest ok points on both sides differ from it) with fewer
    /// than twice the values a level needs: a single very noisy nightly looks the same (values
    /// comparison only).
    bool lone_point_unproven(std::size_t i) const;
    /// A run of consecutive candidates [lo, lo + len).
    struct Stretch {
        std::size_t lo = 0, len = 0;
        /// The middle between the stretch's two neighbours.
        std::size_t middle() const { return (lo - 1 + lo + len) / 2; }
    };
    /// The longest run of points inside (a, b) for which `open` holds (the first on a tie).
    Stretch longest_stretch(std::size_t a, std::size_t b,
                            const std::function<bool(std::size_t)>& open) const;
    /// Consecutive ok points that differ with an untested point of `in_flight` between them.
    std::vector<std::pair<std::size_t, std::size_t>>
    split_in_flight(const std::vector<SweepRequest>& in_flight) const;
    double pooled_dof() const;

    std::vector<SweepPoint> m_points;
    std::vector<std::vector<double>> m_context; // noise evidence from outside the candidates
    std::vector<std::vector<double>> m_before, m_after; // level evidence, nearest first
    SweepOptions m_options;
    long m_runs = 0;
    long m_reused = 0;
    double m_pooled_var = 0; // pooled relative run-to-run variance (within points + neighbours)
    double m_pooled_dof = 0; // its degrees of freedom
    void update_pool();
};

} // namespace perfsweep::core
