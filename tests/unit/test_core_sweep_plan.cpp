#include "core/narrow.hpp"
#include "core/sweep_plan.hpp"
#include "core/sweep_scenario.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

using namespace perfsweep;
using namespace perfsweep::core;

namespace {

std::vector<std::string> labels(int n) {
    std::vector<std::string> out;
    for (int i = 0; i < n; ++i)
        out.push_back("p" + std::to_string(i));
    return out;
}

SweepScenario make(const std::string& name, int days, double noise,
                   std::vector<std::pair<int, double>> levels) {
    SweepScenario s;
    s.name = name;
    s.start = "2023-07-01";
    s.days = days;
    s.base = 600;
    s.noise = noise;
    s.levels = std::move(levels);
    return s;
}

// The scenario shapes of examples/scenarios (the JSON files are checked end to end in the
// integration tests); here many seeds run through the pure planner.
std::vector<SweepScenario> suite() {
    std::vector<SweepScenario> v;
    v.push_back(make("one_step", 60, 0.005, {{31, 0.93}}));
    v.push_back(make("three_changes", 75, 0.004, {{20, 0.9}, {27, 1.0}, {44, 0.98}, {58, 0.91}}));
    v.push_back(make("step_near_start", 40, 0.005, {{2, 0.95}}));
    v.push_back(make("step_near_end", 45, 0.005, {{43, 0.94}}));
    auto broken = make("broken_at_step", 50, 0.005, {{25, 0.93}});
    broken.broken = {25, 11};
    broken.missing = {24, 40, 41};
    v.push_back(broken);
    v.push_back(make("large_noise", 90, 0.008, {{50, 0.94}}));
    v.push_back(make("small_noise", 120, 0.002, {{37, 0.97}, {90, 1.02}}));
    auto noisy = make("noisy_day_mid_step", 60, 0.004, {{30, 0.95}});
    noisy.noisy = {{36, 0.02}};
    v.push_back(noisy);
    v.push_back(make("no_change", 120, 0.006, {}));
    return v;
}

} // namespace

TEST_CASE("strategies parse and options are validated", "[core][sweep]") {
    CHECK(parse_strategy("bisect") == SweepStrategy::bisect);
    CHECK_FALSE(parse_strategy("binary"));
    SweepOptions o;
    o.repeats = 4;
    o.max_repeats = 2;
    CHECK_THROWS_AS(SweepPlan(labels(5), o), Error);
    CHECK_THROWS_AS(SweepPlan({}, SweepOptions{}), Error);
}

TEST_CASE("adaptive measures the ends, then a coarse grid of min_span", "[core][sweep]") {
    SweepOptions o;
    o.workers = 100;
    SweepPlan plan(labels(21), o);
    auto r = plan.next();
    std::vector<std::size_t> idx;
    for (auto& q : r)
        idx.push_back(q.index);
    // Shortest excursion 3 by default (7 until the seed's 3-day level was missed by it).
    CHECK(idx == std::vector<std::size_t>{0, 20, 3, 6, 9, 12, 15, 18});
    for (auto& q : r)
        CHECK(q.repeats == 1); // one run at first: more only by need
}

TEST_CASE("a broken end moves to its neighbour and is never compared", "[core][sweep]") {
    SweepOptions o;
    o.workers = 2;
    SweepPlan plan(labels(10), o);
    auto r = plan.next();
    REQUIRE(r.size() == 2);
    plan.observe(0, Status::missing, {}, "no image", "log0");
    plan.observe(9, Status::ok, {100, 100.2, 99.8});
    r = plan.next();
    REQUIRE_FALSE(r.empty());
    CHECK(r[0].index == 1);
    auto res = plan.result();
    REQUIRE(res.skipped == std::vector<std::size_t>{0});
    CHECK(res.points[0].status == Status::missing);
    CHECK(res.boundaries.empty());
}

TEST_CASE("a boundary across a broken day is a range listing it", "[core][sweep]") {
    auto s = make("broken", 20, 0.003, {{10, 0.9}});
    s.broken = {10};
    SweepOptions o;
    auto r = simulate_sweep(s, o, 1);
    REQUIRE(r.boundaries.size() == 1);
    CHECK(r.boundaries[0].last_before == 9);
    CHECK(r.boundaries[0].first_after == 11);
    CHECK(r.boundaries[0].broken_between == std::vector<std::size_t>{10});
    CHECK(r.boundaries[0].kind == ChangeKind::regression);
    CHECK(r.boundaries[0].relative_change == Approx(-0.1).margin(0.01));
    CHECK(r.complete);
}

TEST_CASE("the same observations in any order give the same proposals", "[core][sweep]") {
    SweepOptions o;
    o.workers = 3;
    SweepPlan a(labels(30), o), b(labels(30), o);
    a.observe(0, Status::ok, {10, 10.1, 9.9});
    a.observe(29, Status::ok, {9, 9.1, 8.9});
    a.observe(5, Status::failed, {}, "crash");
    b.observe(5, Status::failed, {}, "crash");
    b.observe(29, Status::ok, {9, 9.1, 8.9});
    b.observe(0, Status::ok, {10, 10.1, 9.9});
    CHECK(a.next() == b.next());
}

TEST_CASE("an undecided point gets doubled repeats up to the cap, then stays unknown",
          "[core][sweep]") {
    SweepOptions o;
    o.max_repeats = 6;
    SweepPlan plan(labels(2), o);
    const std::vector<std::vector<double>> pattern = {{100, 90, 110}, {95, 85, 105}};
    plan.observe(0, Status::ok, pattern[0]);
    plan.observe(1, Status::ok, pattern[1]);
    int rounds = 0;
    for (auto r = plan.next(); !r.empty(); r = plan.next(), ++rounds) {
        REQUIRE(r.size() == 1);
        CHECK(r[0].repeats == 3); // doubling 3 -> 6
        plan.observe(r[0].index, Status::ok, pattern[r[0].index]);
    }
    CHECK(rounds == 2);
    CHECK(plan.point(0).values.size() == 6);
    CHECK(plan.point(1).values.size() == 6);
    auto res = plan.result();
    REQUIRE(res.boundaries.size() == 1);
    CHECK(res.boundaries[0].kind == ChangeKind::unknown);
}

TEST_CASE("the run budget stops the sweep and the result says so", "[core][sweep]") {
    auto s = make("one_step", 60, 0.005, {{31, 0.93}});
    SweepOptions o;
    o.repeats = 3; // 4 dates' worth of runs: the grid is cut short
    o.min_span = 5;
    o.max_runs = 12;
    auto r = simulate_sweep(s, o, 3);
    CHECK(r.runs <= 12);
    CHECK_FALSE(r.complete);
    CHECK(r.stop_reason == "run budget spent");
    // What is known so far: the change is somewhere between two sampled days.
    REQUIRE(r.boundaries.size() == 1);
    CHECK(r.boundaries[0].last_before < 31);
    CHECK(r.boundaries[0].first_after >= 31);
}

TEST_CASE("bisect finds one boundary in about log2(n) points", "[core][sweep]") {
    auto s = make("one_step", 64, 0.004, {{40, 0.93}});
    SweepOptions o;
    o.strategy = SweepStrategy::bisect;
    auto r = simulate_sweep(s, o, 7);
    auto c = check_sweep(s, r);
    CHECK(c.found == 1);
    CHECK(c.invented == 0);
    int measured = 0;
    for (auto& p : r.points)
        measured += p.state == StateStatus::unknown;
    CHECK(measured <= 10);
}

TEST_CASE("adaptive finds every boundary, invents none, with <= 40 % of exhaustive runs",
          "[core][sweep][scenarios]") {
    for (const auto& s : suite()) {
        for (std::uint64_t seed = 1; seed <= 20; ++seed) {
            INFO(s.name << " seed " << seed);
            SweepOptions o; // 3 runs per date and a 5-day stride, against exhaustive
            o.repeats = 3;
            o.min_span = 5;
            auto ex_opt = o;
            ex_opt.strategy = SweepStrategy::exhaustive;
            auto ex = simulate_sweep(s, ex_opt, seed);
            auto ad = simulate_sweep(s, o, seed);
            auto cex = check_sweep(s, ex);
            auto cad = check_sweep(s, ad);
            CHECK(cex.found == cex.truth);
            CHECK(cex.invented == 0);
            CHECK(cad.found == cad.truth);
            CHECK(cad.invented == 0);
            CHECK(cad.unknown == 0);
            CHECK(ad.complete);
            // 40 %, and 42 % for 0.8 % noise: a pair is only the same when a change of
            // --min-change is ruled out, which costs extra runs there.
            CHECK(static_cast<double>(ad.runs) <=
                  (s.noise > 0.005 ? 0.42 : 0.4) * static_cast<double>(ad.exhaustive_runs));
        }
    }
}

TEST_CASE("repeats by need find every boundary of the scenario shapes and invent none",
          "[core][sweep][scenarios][need]") {
    for (const auto& s : suite()) {
        const auto truth = scenario_true_boundaries(s);
        for (std::uint64_t seed = 1; seed <= 20; ++seed) {
            INFO(s.name << " seed " << seed);
            const auto r = simulate_sweep(s, SweepOptions{}, seed); // 1 run at first, 3 days
            const auto c = check_sweep(s, r);
            CHECK(c.found == c.truth);
            CHECK(r.complete);
            // Up to 0.5 % noise none is invented or left undecided, except next to a day of
            // extra noise (2 % where the others have 0.4 %): the 3-day coverage samples it in
            // every sweep (the 7-day one never did), and its 12 runs can leave a 1.4 % difference
            // undecided (an honest `unknown`; 5 of 200 sweeps) or, rarely, show a one-day
            // excursion (3 of 200). At 0.8 % (large_noise, against a 2 % minimum change) single
            // runs invented a 1.7 % step in 1 of these 20 seeds (docs/daily.md: use --repeats 3).
            if (s.noise > 0.005)
                continue;
            for (const auto& b : r.boundaries) {
                const bool is_true = b.kind != ChangeKind::unknown &&
                                     std::any_of(truth.begin(), truth.end(), [&](int k) {
                                         return static_cast<int>(b.last_before) < k &&
                                                k <= static_cast<int>(b.first_after);
                                     });
                const bool next_to_noisy =
                    std::any_of(s.noisy.begin(), s.noisy.end(), [&](const auto& d) {
                        return static_cast<int>(b.last_before) == d.first ||
                               static_cast<int>(b.first_after) == d.first;
                    });
                CHECK((is_true || next_to_noisy));
            }
        }
    }
}

TEST_CASE("parallel rounds propose several points and still find everything", "[core][sweep]") {
    auto s = suite()[1];
    SweepOptions o;
    o.workers = 4;
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
        auto r = simulate_sweep(s, o, seed);
        auto c = check_sweep(s, r);
        CHECK(c.found == c.truth);
        CHECK(c.invented == 0);
    }
}

TEST_CASE("idle workers speculate on both sides of the split being narrowed",
          "[core][sweep][parallel]") {
    // One step in 9 points, both ends measured: one worker bisects (the middle); four workers
    // also get the middles of both halves (and the longest stretch left), so the step is
    // narrowed in one or two rounds instead of three.
    auto plan_for = [](int workers) {
        SweepOptions o;
        o.workers = workers;
        o.strategy = SweepStrategy::bisect;
        SweepPlan plan(labels(9), o);
        plan.reuse(0, {1000.1});
        plan.reuse(8, {900.2});
        plan.set_noise_context({{999.9}, {1000.2}, {1000.0}, {999.8}, {1000.3}});
        return plan;
    };
    CHECK(plan_for(1).next() == std::vector<SweepRequest>{{4, 1}});
    auto four = plan_for(4).next();
    std::sort(four.begin(), four.end(),
              [](const SweepRequest& a, const SweepRequest& b) { return a.index < b.index; });
    CHECK(four == std::vector<SweepRequest>{{1, 1}, {2, 1}, {4, 1}, {6, 1}});
    // On the scenario suite's four steps in 75 days, every boundary is still found, none is
    // invented, and the wall time in runs falls below a third of one worker's.
    const auto s = make("four_steps", 75, 0.0004, {{20, 0.9}, {27, 1.0}, {44, 0.98}, {58, 0.91}});
    SweepOptions many;
    many.workers = 4;
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
        long wall1 = 0, wall4 = 0;
        simulate_sweep(s, SweepOptions{}, seed, &wall1);
        const auto r = simulate_sweep(s, many, seed, &wall4);
        const auto c = check_sweep(s, r);
        CHECK(c.found == c.truth);
        CHECK(c.invented == 0);
        CHECK(static_cast<double>(wall4) < 0.34 * static_cast<double>(wall1));
    }
    // 8 broken nightlies around a step: the stride no longer walks the broken stretch one date
    // per round (it took 8 rounds of 4 workers against 18 runs of one; now 6).
    auto broken = make("broken_around_step", 60, 0.0004, {{30, 0.95}});
    broken.broken = {26, 27, 28, 29, 30, 31, 32, 33};
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
        long wall1 = 0, wall4 = 0;
        simulate_sweep(broken, SweepOptions{}, seed, &wall1);
        const auto r = simulate_sweep(broken, many, seed, &wall4);
        const auto c = check_sweep(broken, r);
        CHECK(c.found == c.truth);
        CHECK(c.invented == 0);
        CHECK(static_cast<double>(wall4) < 0.34 * static_cast<double>(wall1));
    }
}

TEST_CASE("several workers narrow a covered change before the rest of the coverage",
          "[core][sweep][parallel]") {
    // 60 dates, 0, 7 and 14 measured with a step between 7 and 14; 7 coverage points and the end
    // are still to do. Narrowing takes rounds one after the other, coverage does not: four
    // workers split the changed interval in this round instead of after the whole coverage.
    auto plan_for = [](int workers) {
        SweepOptions o;
        o.workers = workers;
        o.min_span = 7;
        SweepPlan plan(labels(60), o);
        plan.reuse(0, {1000.1});
        plan.reuse(7, {999.9});
        plan.reuse(14, {900.2});
        plan.set_noise_context({{999.9}, {1000.2}, {1000.0}, {999.8}, {1000.3}});
        return plan;
    };
    auto inside = [](const std::vector<SweepRequest>& round) {
        return std::count_if(round.begin(), round.end(),
                             [](const SweepRequest& r) { return r.index > 7 && r.index < 14; });
    };
    const auto four = plan_for(4).next();
    CHECK(four.size() == 4);
    CHECK(inside(four) == 1);
    // One worker keeps its order: the ends and the coverage first.
    const auto one = plan_for(1).next();
    REQUIRE(one.size() == 1);
    CHECK(inside(one) == 0);
}

TEST_CASE("kind follows the metric direction", "[core][sweep]") {
    auto s = make("latency_up", 30, 0.004, {{12, 1.08}});
    s.direction = Direction::lower_is_better; // e.g. seconds: higher is worse
    auto r = simulate_sweep(s, SweepOptions{}, 5);
    REQUIRE(r.boundaries.size() == 1);
    CHECK(r.boundaries[0].kind == ChangeKind::regression);
    CHECK(r.boundaries[0].first_after == 12);
    s.direction = Direction::higher_is_better;
    r = simulate_sweep(s, SweepOptions{}, 5);
    REQUIRE(r.boundaries.size() == 1);
    CHECK(r.boundaries[0].kind == ChangeKind::improvement);
    CHECK(r.boundaries[0].relative_change == Approx(0.08).margin(0.01));
}

TEST_CASE("a deterministic metric (no noise at all) is decided with the first repeats",
          "[core][sweep]") {
    // A count or a size repeats exactly: a difference with zero spread is certain, so no point
    // escalates to max_repeats (a run at noise 0 used to measure one side 12 times).
    auto s = make("one_step_exact", 30, 0.0, {{17, 0.93}});
    SweepOptions o;
    auto r = simulate_sweep(s, o, 1);
    auto c = check_sweep(s, r);
    CHECK(c.found == 1);
    CHECK(c.invented == 0);
    for (const auto& p : r.points)
        CHECK(p.values.size() <= static_cast<std::size_t>(2 * o.repeats));
    // Equal values on both sides are the same level; a tiny exact difference below interest too.
    SweepPlan plan(labels(2), o);
    plan.observe(0, Status::ok, {500, 500, 500});
    plan.observe(1, Status::ok, {500.1, 500.1, 500.1});
    CHECK(plan.next().empty());
    CHECK(plan.result().boundaries.empty());
}

TEST_CASE("repeats by need: a 3 % step with 0.04 % noise takes one run per date",
          "[core][sweep][need]") {
    const auto s = make("quiet_step", 60, 0.0004, {{31, 0.97}});
    for (std::uint64_t seed = 1; seed <= 10; ++seed) {
        const auto r = simulate_sweep(s, SweepOptions{}, seed);
        REQUIRE(r.boundaries.size() == 1);
        CHECK(r.boundaries[0].last_before == 30);
        CHECK(r.boundaries[0].first_after == 31);
        CHECK(r.boundaries[0].kind == ChangeKind::regression);
        long measured = 0;
        for (const auto& p : r.points) {
            CHECK(p.values.size() <= 1);
            measured += p.values.empty() ? 0 : 1;
        }
        CHECK(r.runs == measured);
        CHECK(r.runs <= 23); // 21 samples of the 3-day excursion grid + the step refined
    }
}

TEST_CASE("repeats by need: one run a date is not enough when the noise is near the step",
          "[core][sweep][need]") {
    // 0.8 % noise, a 3 % step: neighbours differ by ~1.1 % on one level, so single runs can
    // neither call a pair the same (a 2 % change is not ruled out) nor confirm the step.
    const auto s = make("noisy_step", 40, 0.008, {{20, 0.97}});
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
        const auto r = simulate_sweep(s, SweepOptions{}, seed);
        REQUIRE(r.boundaries.size() == 1);
        CHECK(r.boundaries[0].first_after == 20);
        std::size_t most = 0;
        for (const auto& p : r.points)
            most = std::max(most, p.values.size());
        CHECK(most >= 2);
    }
}

TEST_CASE("a pair below --min-change/2 is the same only when the noise rules out --min-change",
          "[core][sweep][need]") {
    SweepOptions o;
    o.strategy = SweepStrategy::bisect;
    // Quiet (0.05 %): a 0.5 % difference is the same level; nothing more to do.
    SweepPlan quiet(labels(2), o);
    quiet.observe(0, Status::ok, {100, 100.05, 99.95});
    quiet.observe(1, Status::ok, {99.5, 99.55, 99.45});
    CHECK(quiet.next().empty());
    CHECK(quiet.result().boundaries.empty());
    // Noisy (1.5 %): the same 0.5 % difference could hide a 2 % step: more runs.
    SweepPlan noisy(labels(2), o);
    noisy.observe(0, Status::ok, {100, 101.5, 98.5});
    noisy.observe(1, Status::ok, {99.5, 101, 98});
    const auto r = noisy.next();
    REQUIRE(r.size() == 1);
    CHECK(r[0].repeats == 3);
}

TEST_CASE("the noise shown around the range decides a short range with one run per date",
          "[core][sweep][need]") {
    // A detect window: 4 dates, the ends measured once (from the history), 5 % apart. The
    // range alone shows no noise, so the ends would get more runs; the history's nights around
    // it (0.05 % noise, one of them past the change) decide the pair from the start, and the
    // dates inside are measured once each.
    auto run = [](bool with_context) {
        SweepPlan plan(labels(4), SweepOptions{});
        plan.reuse(0, {1000.4});
        plan.reuse(3, {950.2});
        if (with_context)
            plan.set_noise_context(
                {{999.5}, {1000.3}, {1000.1}, {999.8}, {1000.6}, {949.9}, {950.4}});
        std::vector<std::size_t> measured;
        for (auto reqs = plan.next(); !reqs.empty(); reqs = plan.next())
            for (const auto& q : reqs) {
                measured.push_back(q.index);
                for (int k = 0; k < q.repeats; ++k)
                    plan.observe(q.index, Status::ok, {q.index < 2 ? 1000.2 : 950.1});
            }
        return std::make_pair(measured, plan.result());
    };
    const auto [alone, r_alone] = run(false);
    CHECK(std::count(alone.begin(), alone.end(), 0u) + std::count(alone.begin(), alone.end(), 3u) >
          0); // without evidence the reused ends are measured again
    const auto [with, r] = run(true);
    CHECK(std::count(with.begin(), with.end(), 0u) == 0);
    CHECK(std::count(with.begin(), with.end(), 3u) == 0);
    CHECK(std::count(with.begin(), with.end(), 1u) == 1);
    CHECK(std::count(with.begin(), with.end(), 2u) == 1);
    REQUIRE(r.boundaries.size() == 1);
    CHECK(r.boundaries[0].last_before == 1);
    CHECK(r.boundaries[0].first_after == 2);
    CHECK(r.boundaries[0].kind == ChangeKind::regression);
    CHECK(r.runs == 2);
    CHECK(r_alone.boundaries.size() == 1);
}

TEST_CASE("the defaults find the seed's own dips: 4 of 4 boundaries, none invented, <= 36 runs",
          "[core][sweep][seed]") {
    // The seed's nightlies: a 6-day dip, a 3-day level, one broken and three missing nightlies.
    // A 7-day shortest excursion stepped over the dip and the 3-day level (2 of 4 in 19 runs).
    const auto s = seed_replay_scenario();
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
        INFO("seed " << seed);
        const auto r = simulate_sweep(s, SweepOptions{}, seed);
        const auto c = check_sweep(s, r);
        CHECK(c.found == 4);
        CHECK(c.invented == 0);
        CHECK(c.unknown == 0);
        CHECK(r.complete);
        CHECK(r.runs <= 36);
    }
}

TEST_CASE("an undecided pair repeats the side its other pair also waits on",
          "[core][sweep][need]") {
    // 0, 3 and 6 measured once, 3 is 1.2 % below both (0.5 % noise): neither pair is the same
    // or different yet. A run more of 3 serves both pairs; one of 0 only the first.
    SweepPlan plan(labels(7), SweepOptions{});
    plan.set_noise_context({{1000, 1005, 995}, {1001, 996, 1006}});
    plan.reuse(0, {1000});
    plan.reuse(3, {988});
    plan.reuse(6, {1000.5});
    const auto r = plan.next();
    REQUIRE(r.size() == 1);
    CHECK(r[0].index == 3);
    CHECK(r[0].repeats == 1);
    CHECK(plan.result().boundaries.size() == 2); // both pairs still undecided
}

TEST_CASE("a level of one nightly needs four runs before its boundaries count",
          "[core][sweep][need]") {
    // A nightly 3 % above both neighbours with two runs: a one-day excursion, or one very noisy
    // nightly (two runs cannot tell; with 3-day coverage such a nightly is sampled far more
    // often than with 7). It gets four runs first; a real excursion is then decided.
    SweepPlan plan(labels(7), SweepOptions{});
    plan.set_noise_context({{600.2, 598.1, 601.9}, {599.0, 602.3, 600.4}});
    const std::vector<double> level = {600.0, 600.5, 599.6, 0, 600.2, 599.9, 600.1};
    for (std::size_t i = 0; i < level.size(); ++i)
        if (i != 3)
            plan.reuse(i, {level[i]});
    plan.observe(3, Status::ok, {618.0, 617.5});
    const auto before = plan.result().boundaries;
    CHECK(before.size() == 2);
    for (const auto& b : before)
        CHECK(b.kind == ChangeKind::unknown);
    CHECK(plan.decided_boundaries().empty());
    CHECK(plan.next() == std::vector<SweepRequest>{{3, 2}});
    plan.observe(3, Status::ok, {618.2, 617.9});
    const auto after = plan.decided_boundaries();
    REQUIRE(after.size() == 2);
    CHECK(after[0].kind == ChangeKind::improvement);
    CHECK(after[1].kind == ChangeKind::regression);
    CHECK(plan.next().empty());
}

namespace {

// The first run count at which `plan`'s decided boundaries include (lo, hi), measuring with the
// scenario's values (one worker, in the planner's order); -1 when never.
long runs_until_decided(SweepPlan& plan, const SweepScenario& s, std::uint64_t seed, std::size_t lo,
                        std::size_t hi) {
    for (auto reqs = plan.next(); !reqs.empty(); reqs = plan.next()) {
        for (const auto& q : reqs) {
            const int day = static_cast<int>(q.index);
            if (scenario_unavailable(s, day)) {
                plan.observe(q.index, Status::failed, {}, "broken");
                continue;
            }
            std::vector<double> v;
            for (int k = 0; k < q.repeats; ++k)
                v.push_back(scenario_value(
                    s, day, seed, static_cast<int>(plan.point(q.index).values.size()) + k));
            plan.observe(q.index, Status::ok, v);
        }
        for (const auto& b : plan.decided_boundaries())
            if (b.last_before == lo && b.first_after == hi)
                return plan.result().runs;
    }
    return -1;
}

} // namespace

TEST_CASE("the detected drop is narrowed first, then every boundary of the range is found",
          "[core][sweep][focus]") {
    // investigate: detect reported 07-01 (good) -> 09-18 (bad) on the seed's nightlies; both
    // ends and a week of nights before the range are in the history. The drop's boundary
    // (08-24 | 08-26, 08-25 broken) is decided after <= 10 runs (the peer's pass/fail bisection:
    // 7-9), where the usual order decides it near the end; the sweep still finds all four.
    const auto s = seed_replay_scenario();
    SweepOptions o;
    o.focus = SweepFocus{0, 79};
    SimulatedHistory history;
    history.nights_before = 7;
    history.reused = {0, 79};
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        INFO("seed " << seed);
        SimulationTrace t;
        const auto r = simulate_sweep(s, o, seed, history, &t);
        CHECK(t.runs_to_focus >= 0);
        CHECK(t.runs_to_focus <= 10);
        const auto c = check_sweep(s, r);
        CHECK(c.found == 4);
        CHECK(c.invented == 0);
        CHECK(r.complete);
        // Four GPUs split the interval at once: decided in at most 4 rounds.
        auto many = o;
        many.workers = 4;
        SimulationTrace t4;
        const auto r4 = simulate_sweep(s, many, seed, history, &t4);
        CHECK(t4.wall_to_focus >= 0);
        CHECK(t4.wall_to_focus <= 4);
        CHECK(check_sweep(s, r4).found == 4);
    }
    // The same boundary in the usual order, and the focus's API step by step.
    auto usual_plan = [&](const SweepOptions& opt) {
        SweepPlan plan(labels(80), opt);
        plan.reuse(0, {scenario_value(s, 0, 1, 0)});
        plan.reuse(79, {scenario_value(s, 79, 1, 0)});
        std::vector<std::vector<double>> nights;
        for (int d = -7; d < 0; ++d)
            nights.push_back({scenario_value(s, d, 1, 0)});
        plan.set_noise_context(nights);
        return plan;
    };
    SweepPlan usual = usual_plan(SweepOptions{});
    CHECK(runs_until_decided(usual, s, 1, 54, 56) > 20);
    SweepPlan focused = usual_plan(o);
    CHECK_FALSE(focused.focus_boundary());
    const long runs = runs_until_decided(focused, s, 1, 54, 56);
    CHECK(runs <= 10);
    const auto b = focused.focus_boundary();
    REQUIRE(b);
    CHECK(b->last_before == 54);
    CHECK(b->first_after == 56);
    CHECK(b->broken_between == std::vector<std::size_t>{55});
    CHECK(b->kind == ChangeKind::regression);
}

TEST_CASE("a focus that does not hold leaves the usual order", "[core][sweep][focus]") {
    // The "good" point is already at the bad level: no focus boundary, the sweep goes on as
    // usual and finds the step; the same observations in any order give the same proposals.
    const auto s = make("one_step", 30, 0.0004, {{12, 0.95}});
    SweepOptions o;
    o.focus = SweepFocus{20, 29};
    const auto r = simulate_sweep(s, o, 2);
    CHECK(check_sweep(s, r).found == 1);
    CHECK(r.complete);
    SweepPlan plan(labels(30), o);
    plan.observe(20, Status::ok, {570.1});
    plan.observe(29, Status::ok, {570.3});
    CHECK_FALSE(plan.focus_boundary());
    o.workers = 3;
    o.focus = SweepFocus{0, 29};
    SweepPlan a(labels(30), o), b(labels(30), o);
    a.observe(0, Status::ok, {600.2});
    a.observe(29, Status::ok, {570.3});
    a.observe(14, Status::ok, {570.1});
    b.observe(14, Status::ok, {570.1});
    b.observe(29, Status::ok, {570.3});
    b.observe(0, Status::ok, {600.2});
    CHECK(a.next() == b.next());
    CHECK_THROWS_AS(SweepPlan(labels(30),
                              [] {
                                  SweepOptions bad;
                                  bad.focus = SweepFocus{29, 3};
                                  return bad;
                              }()),
                    Error);
}

TEST_CASE("a free worker gets the next useful point while others are in flight",
          "[core][sweep][parallel]") {
    // 0 and 3 at one level, 6 and 9 at another: only 4 and 5 can change the result.
    SweepOptions o;
    o.workers = 4;
    SweepPlan plan(labels(10), o);
    plan.set_noise_context({{1000.1}, {999.8}, {1000.3}, {999.9}, {1000.0}});
    plan.reuse(0, {1000.2});
    plan.reuse(3, {999.9});
    plan.reuse(6, {900.1});
    plan.reuse(9, {900.3});
    const auto first = plan.next_one({});
    REQUIRE(first);
    CHECK((first->index == 4 || first->index == 5));
    ProposalHints busy;
    busy.in_flight = {*first};
    const auto second = plan.next_one(busy);
    REQUIRE(second);
    CHECK(second->index == 9 - first->index); // the other side of the split, never the same
    busy.in_flight.push_back(*second);
    CHECK_FALSE(plan.next_one(busy)); // nothing else can change the result
    // The run budget counts the runs in flight.
    o.max_runs = 2;
    SweepPlan budget(labels(10), o);
    busy.in_flight = {{0, 1}, {9, 1}};
    CHECK_FALSE(budget.next_one(busy));
}

TEST_CASE("without a round barrier, uneven runs never get a point twice or a useless one",
          "[core][sweep][parallel]") {
    // Four workers, runs of uneven length (a broken nightly fails fast): whenever a worker is
    // free it asks for one point. Never a point in flight; an untested point only where the
    // coverage still has a gap or its neighbours are not known to be one level; every boundary
    // found, none invented, with about the runs of one worker.
    auto s = make("four_steps", 75, 0.0004, {{20, 0.9}, {27, 1.0}, {44, 0.98}, {58, 0.91}});
    s.broken = {30, 31};
    s.missing = {50};
    const SweepOptions defaults;
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        INFO("seed " << seed);
        SweepOptions o;
        o.workers = 4;
        SweepPlan plan(labels(s.days), o);
        auto length = [&](int day) {
            return scenario_unavailable(s, day) ? 0.2 : 1.0 + 0.1 * static_cast<double>(day % 11);
        };
        auto check = [&](const SweepRequest& q, const std::vector<SweepRequest>& in_flight) {
            for (const auto& f : in_flight)
                REQUIRE(f.index != q.index);
            if (plan.point(q.index).state != StateStatus::untested)
                return;
            // The nearest points known or in flight on each side.
            auto known = [&](std::size_t i) {
                return plan.point(i).state != StateStatus::untested ||
                       std::any_of(in_flight.begin(), in_flight.end(),
                                   [&](const SweepRequest& f) { return f.index == i; });
            };
            std::size_t a = q.index, b = q.index;
            while (a > 0 && !known(--a)) {
            }
            while (b + 1 < plan.size() && !known(++b)) {
            }
            const bool ok_ends = a < q.index && b > q.index &&
                                 plan.point(a).state == StateStatus::unknown &&
                                 plan.point(b).state == StateStatus::unknown;
            if (ok_ends && b - a <= static_cast<std::size_t>(defaults.min_span)) {
                const auto bs = plan.result().boundaries;
                const bool open = std::any_of(bs.begin(), bs.end(), [&](const Boundary& x) {
                    return x.last_before == a && x.first_after == b;
                });
                CHECK(open); // else a and b are one level: nothing between can matter
            }
        };
        stream_sweep(s, plan, o.workers, seed, length, check);
        const auto r = plan.result();
        const auto c = check_sweep(s, r);
        CHECK(r.complete);
        CHECK(c.found == c.truth);
        CHECK(c.invented == 0);
        const auto one = simulate_sweep(s, defaults, seed);
        CHECK(static_cast<double>(r.runs) <= 1.2 * static_cast<double>(one.runs));
    }
}

TEST_CASE("the focus is detect's latest regression clamped into the range",
          "[core][sweep][focus]") {
    std::vector<std::string> range;
    for (int d = 5; d <= 16; ++d)
        range.push_back("2024-05-" + std::string(d < 10 ? "0" : "") + std::to_string(d));
    auto change = [](ChangeKind kind, const char* before, const char* after) {
        ChangePoint c;
        c.kind = kind;
        c.last_before = before;
        c.first_after = after;
        return c;
    };
    // Detect's history had nights up to 05-04 and tonight's 05-16: the range's ends.
    const auto f = detected_focus({change(ChangeKind::improvement, "2024-04-20", "2024-04-21"),
                                   change(ChangeKind::regression, "2024-05-04", "2024-05-16")},
                                  range);
    REQUIRE(f);
    CHECK(f->good == 0);
    CHECK(f->bad == 11);
    // Inside the range: its own dates.
    const auto in =
        detected_focus({change(ChangeKind::regression, "2024-05-08", "2024-05-12")}, range);
    REQUIRE(in);
    CHECK(in->good == 3);
    CHECK(in->bad == 7);
    // No regression, or one outside the range: no focus.
    CHECK_FALSE(
        detected_focus({change(ChangeKind::improvement, "2024-05-04", "2024-05-16")}, range));
    CHECK_FALSE(
        detected_focus({change(ChangeKind::regression, "2024-06-01", "2024-06-05")}, range));
    CHECK_FALSE(
        detected_focus({change(ChangeKind::regression, "2024-04-01", "2024-04-05")}, range));
}

TEST_CASE("an adjacent pair is confirmed with the history's nights of the same level outside "
          "the candidates",
          "[core][sweep][evidence]") {
    // Detect's window is two nightlies the history holds (3 runs each). Confirming their boundary
    // wants twice the first repeats per side; the history's nights next to the window are those
    // levels' evidence, so no nightly is measured again (issue 31: the daily stage re-ran both).
    auto plan_for = [](std::vector<std::vector<double>> before,
                       std::vector<std::vector<double>> after) {
        SweepOptions o;
        o.repeats = 3;
        SweepPlan plan(labels(2), o);
        plan.reuse(0, {577.0, 577.2, 576.9});
        plan.reuse(1, {536.6, 536.4, 536.7});
        plan.set_level_context(std::move(before), std::move(after));
        return plan;
    };
    CHECK_FALSE(plan_for({}, {}).next().empty()); // without: more runs of both nightlies
    const auto with = plan_for({{577.1, 576.8, 577.0}}, {{536.5, 536.8, 536.6}});
    CHECK(with.next().empty());
    const auto r = with.result();
    REQUIRE(r.boundaries.size() == 1);
    CHECK(r.boundaries[0].kind == ChangeKind::regression);
    // A night at the other level is no evidence of this one: it stops the pooling.
    CHECK_FALSE(plan_for({{536.5, 536.8, 536.6}}, {{536.5, 536.8, 536.6}}).next().empty());
}
