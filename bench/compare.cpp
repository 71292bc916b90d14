// bench_compare: the pull-request verdict (`perfsweep compare`), simulated. The real use case
// (app::run_compare: interleaved base and head runs, the sequential test, its looks and cap) runs
// against a scripted benchmark (tests/support/fakes) whose values have 0.5 % normal noise, with
// fixed seeds; each scenario runs 200 trials (a trial is one PR job) and counts how often the check
// fails (exit 1) and the runs it spent. Goals (issue 25): a -3 % change fails >= 95 % of trials; no
// change fails <= 1 %; a linear drift of 2 % (per 16 runs, also while the job goes on) with no
// change fails <= 1 %. A second table runs the same trials without the interleaving (all base runs,
// then all head runs, one look at the cap) to show what the order buys under drift.

#include "app/compare.hpp"

#include "support/fakes/world.hpp"

#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

using namespace perfsweep;

namespace {

struct Scenario {
    const char* name;
    double change;       ///< the head's true relative change
    double drift_per_16; ///< the level's linear move per 16 runs, whatever the side
    const char* goal;
};

struct Tally {
    int fails = 0, regressions = 0, improvements = 0, same = 0, inconclusive = 0;
    std::vector<long> runs;
};

Tally run_trials(const Scenario& sc, int trials, bool interleaved, std::uint64_t seed) {
    Tally t;
    std::mt19937_64 gen(seed);
    std::normal_distribution<double> noise(0, 0.005);
    for (int trial = 0; trial < trials; ++trial) {
        fakes::World w;
        long index = 0;
        w.runners.run = [&](const ports::PointRequest& req, int) {
            const bool head = req.label.rfind("head", 0) == 0;
            const double drift = sc.drift_per_16 * static_cast<double>(index++) / 16.0;
            return fakes::Run::of(1000.0 * (head ? 1 + sc.change : 1.0) * (1 + drift) *
                                  (1 + noise(gen)));
        };
        auto r = fakes::compare_request();
        if (!interleaved) { // the naive job: every base run, then every head run, one look
            r.options.min_pairs = r.options.max_pairs;
        }
        app::CompareResult res;
        if (interleaved) {
            res = app::run_compare(r, w.adapters);
        } else {
            // base runs first, then head runs: emulate by scripting the order through labels
            std::vector<double> base, head;
            for (int i = 0; i < r.options.max_pairs; ++i)
                base.push_back(w.runners.run({"base-x"}, 1).value);
            for (int i = 0; i < r.options.max_pairs; ++i)
                head.push_back(w.runners.run({"head-x"}, 1).value);
            app::CompareSeries s;
            s.base = base;
            s.head = head;
            s.estimate = core::paired_estimate(base, head, r.options.alpha);
            s.verdict = core::decide(s.estimate, r.options, true);
            res.series.push_back(s);
            res.runs = 2L * r.options.max_pairs;
        }
        const int code = app::compare_exit_code(res, false);
        t.fails += code != 0 ? 1 : 0;
        const auto v = app::worst_verdict(res);
        t.regressions += v == core::CompareVerdict::regression;
        t.improvements += v == core::CompareVerdict::improvement;
        t.same += v == core::CompareVerdict::same;
        t.inconclusive += v == core::CompareVerdict::inconclusive;
        t.runs.push_back(res.runs);
    }
    return t;
}

void print_row(const Scenario& sc, const Tally& t, int trials) {
    auto runs = t.runs;
    std::sort(runs.begin(), runs.end());
    double mean = 0;
    for (long r : runs)
        mean += static_cast<double>(r);
    mean /= static_cast<double>(runs.size());
    std::printf("%-34s %6.1f %%  %4d/%-4d %4d %4d %4d %4d   %5.1f %4ld %4ld %4ld   %s\n", sc.name,
                100.0 * t.fails / trials, t.fails, trials, t.regressions, t.improvements, t.same,
                t.inconclusive, mean, runs[runs.size() / 2], runs[runs.size() * 95 / 100],
                runs.back(), sc.goal);
}

} // namespace

int main() {
    const int trials = 200;
    const Scenario scenarios[] = {
        {"-3 % change, 0.5 % noise", -0.03, 0, "fails >= 95 %"},
        {"no change, 0.5 % noise", 0, 0, "fails <= 1 %"},
        {"no change, 2 % linear drift", 0, -0.02, "fails <= 1 %"},
        {"no change, 2 % drift upward", 0, 0.02, "fails <= 1 %"},
        {"-3 % change, 2 % drift", -0.03, -0.02, "fails >= 95 %"},
        {"-1 % change (below the 2 % threshold)", -0.01, 0, "(not a regression)"},
    };
    const core::CompareOptions o;
    std::printf("perfsweep compare, simulated: %d trials per scenario, threshold %.0f %%, alpha "
                "%.2f, looks at",
                trials, 100 * o.threshold, o.alpha);
    for (int n : core::look_schedule(o))
        std::printf(" %d", n);
    std::printf(" pairs (runs = 2 x pairs)\n\n");
    std::printf("%-34s %8s  %9s %4s %4s %4s %4s   %5s %4s %4s %4s   %s\n", "scenario", "fails", "",
                "reg", "impr", "same", "inc", "runs:", "p50", "p95", "max", "goal");
    std::uint64_t seed = 25;
    for (const auto& sc : scenarios)
        print_row(sc, run_trials(sc, trials, true, seed++), trials);
    std::printf("\nwithout interleaving (base runs, then head runs; one look at %d pairs):\n",
                o.max_pairs);
    seed = 25;
    for (const auto& sc : scenarios)
        print_row(sc, run_trials(sc, trials, false, seed++), trials);
    std::printf("\nper-trial runs of the -3 %% scenario (interleaved):");
    const auto t = run_trials(scenarios[0], trials, true, 25);
    for (std::size_t i = 0; i < t.runs.size(); ++i)
        std::printf("%s%ld", i % 25 == 0 ? "\n  " : " ", t.runs[i]);
    std::printf("\n");
    return 0;
}
