#pragma once
// A simulated benchmark over a range of candidate points (nightly days), for the planner's tests,
// the bench and examples/scenarios/simbench.py (same model): level steps, noise, broken and
// missing days, and days with extra noise. Pure and deterministic (seeded).

#include "core/model.hpp"
#include "core/sweep_plan.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace perfsweep::core {

/// One simulated range.
struct SweepScenario {
    std::string name;                                  ///< file stem, e.g. "one_step"
    std::string start;                                 ///< first date "YYYY-MM-DD" (day 0)
    int days = 0;                                      ///< number of candidate days
    double base = 100;                                 ///< value at level 1.0
    double noise = 0.005;                              ///< relative standard deviation of one run
    std::vector<std::pair<int, double>> levels;        ///< (first day, relative level), by day
    std::vector<int> broken;                           ///< days whose benchmark fails
    std::vector<int> missing;                          ///< days without an image
    std::vector<std::pair<int, double>> noisy;         ///< (day, relative noise) overrides
    Direction direction = Direction::higher_is_better; ///< of the metric
};

/// The seed's own nightlies, 2023-07-01..09-18 (jax docs/investigating_a_regression.md, issue
/// 27): 587.6 MLUPS, a 6-day dip to 570.2 whose first 3 nightlies have no image, 587.5 for 3
/// days, 577.3 from 07-23, 08-25 broken, 536.7 from 08-26; 0.1 % noise per run (one H200
/// night's spread of 5 runs: 0.05-0.10 %, bench/data/h200-mlups-first-week.csv).
/// examples/scenarios/seed_replay.json is the same range for simbench.py.
SweepScenario seed_replay_scenario();

/// Relative level of `day` (1.0 before the first step).
double scenario_level(const SweepScenario& s, int day);
/// True when `day` is broken or missing.
bool scenario_unavailable(const SweepScenario& s, int day);
/// Days where the level changes (the first day at the new level), in order.
std::vector<int> scenario_true_boundaries(const SweepScenario& s);
/// One simulated run's value for `day`, deterministic in (seed, day, repeat).
double scenario_value(const SweepScenario& s, int day, std::uint64_t seed, int repeat);

/// Run the planner to completion on `s` with simulated runs (broken/missing days observed as
/// failed/missing), like `perfsweep daily` does with the real benchmark. With `wall`: the sweep's
/// wall time in runs, as `daily` spends it with options.workers GPUs (each round takes as long as
/// its point with the most repeats; the points of a round run in parallel).
SweepResult simulate_sweep(const SweepScenario& s, const SweepOptions& options, std::uint64_t seed,
                           long* wall = nullptr);

/// What `investigate` hands its daily sweep besides the range, simulated: the history's nights.
struct SimulatedHistory {
    int nights_before = 0;   ///< nights recorded before day 0, one run each: the noise context
    std::vector<int> reused; ///< candidate days the history holds (one run each, no new run)
};

/// What a simulated sweep spent on the way.
struct SimulationTrace {
    long wall = 0;           ///< wall time in runs (rounds, as above)
    long runs_to_focus = -1; ///< runs spent when options.focus was first decided; -1: never
    long wall_to_focus = -1; ///< wall time (in runs) then
};

/// simulate_sweep with the history's evidence and a trace of the spending.
SweepResult simulate_sweep(const SweepScenario& s, const SweepOptions& options, std::uint64_t seed,
                           const SimulatedHistory& history, SimulationTrace* trace);

/// Seconds one run of `day` takes in issue 27's uneven timing: 1 s on even days, 2 s on odd
/// ones, 0.2 s on a broken nightly (it fails fast), 0 for a missing image.
double scenario_run_seconds(const SweepScenario& s, int day);

/// A sweep of `s` with options.workers GPUs on a simulated clock (scenario_run_seconds, a
/// request's repeats one after the other on its GPU): `stream` hands a free GPU the next useful
/// request at once (SweepPlan::next_one), else rounds (next(); a round lasts as long as its
/// slowest request). `*seconds`: the wall time.
SweepResult simulate_timed_sweep(const SweepScenario& s, const SweepOptions& options,
                                 std::uint64_t seed, bool stream, double* seconds);

/// What a test checks of each request a streaming sweep hands out: the request, and the requests
/// in flight on the other GPUs at that moment.
using StreamCheck =
    std::function<void(const SweepRequest& request, const std::vector<SweepRequest>& in_flight)>;

/// Runs `plan` over `s` to its end with `workers` GPUs on a simulated clock: a free GPU gets the
/// next useful request at once (SweepPlan::next_one with the requests in flight), which takes
/// `run_seconds(day)` per repeat and is measured when it ends (a missing image as missing, a
/// broken nightly as failed). `check`, when given, sees each request as it is handed out. Returns
/// the wall time in seconds.
double stream_sweep(const SweepScenario& s, SweepPlan& plan, int workers, std::uint64_t seed,
                    const std::function<double(int day)>& run_seconds,
                    const StreamCheck& check = {});

/// Benchmark runs a bisection over pass/fail needs to find one boundary of `s` (the peer's method:
/// NVIDIA JAX-Toolbox's container search with a known passing first day): one run per probed day,
/// "fail" when a run's value is past the midpoint of the first change or the day is broken (a
/// missing day is stepped over without a run), halving until the failing day follows a passing
/// one. When the last day passes (a dip that recovers) the first failing day is given to it. The
/// baseline the planner's run counts are compared with.
int pass_fail_bisection_runs(const SweepScenario& s, std::uint64_t seed);

/// How a sweep's boundaries compare with a scenario's truth.
struct ScenarioCheck {
    int truth = 0;    ///< true boundaries
    int found = 0;    ///< true boundaries found, narrowed to adjacent available days
    int invented = 0; ///< decided boundaries that match no true one
    int unknown = 0;  ///< undecided boundaries reported (kind unknown)
};

/// Compare `r` with the truth of `s`.
ScenarioCheck check_sweep(const SweepScenario& s, const SweepResult& r);

} // namespace perfsweep::core
