// GPU time the planners spend, against the goals of the GPU-time work (docs/daily.md,
// docs/hourly.md): runs over a suite of simulated nightly ranges with the defaults vs a bisection
// over pass/fail that finds one boundary per range (the peer's method), and boundaries found vs
// the truth. Simulated benchmark (core/sweep_scenario), the real planner.
// Usage: bench_gpu_time [SEEDS [spans]]  (spans: also the suite at each shortest-excursion setting)
#include "app/hourly.hpp"
#include "core/sweep_plan.hpp"
#include "core/sweep_scenario.hpp"
#include "support/fakes/world.hpp"
#include "util/time.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

using namespace perfsweep;

namespace {

core::SweepScenario range(const std::string& name, int days, std::vector<std::pair<int, double>> lv,
                          std::vector<int> broken = {}, std::vector<int> missing = {}) {
    core::SweepScenario s;
    s.name = name;
    s.start = "2023-07-01";
    s.days = days;
    s.base = 600;
    s.levels = std::move(lv);
    s.broken = std::move(broken);
    s.missing = std::move(missing);
    return s;
}

/// The suite: single step in 60 and 90 days, two steps, four steps, a dip that recovers,
/// 8 broken nightlies around the step, broken nightlies mid-range.
std::vector<core::SweepScenario> goal_suite(double noise) {
    std::vector<core::SweepScenario> v;
    v.push_back(range("one_step_60d", 60, {{31, 0.97}}));
    v.push_back(range("one_step_90d", 90, {{50, 0.97}}));
    v.push_back(range("two_steps", 75, {{25, 0.96}, {55, 0.92}}));
    v.push_back(range("four_steps", 75, {{20, 0.9}, {27, 1.0}, {44, 0.98}, {58, 0.91}}));
    v.push_back(range("dip_recovers", 45, {{15, 0.92}, {22, 1.0}}));
    v.push_back(range("broken_around_step", 60, {{30, 0.95}}, {26, 27, 28, 29, 30, 31, 32, 33}));
    v.push_back(range("broken_mid_range", 60, {{40, 0.96}}, {12, 13, 14, 20}, {21, 22}));
    for (auto& s : v)
        s.noise = noise;
    return v;
}

/// The fewest runs a sweep that sees every level of `span` days can need on `s`: a sample every
/// `span` days (ceil((days-1)/span)+1), ceil(log2 span) to narrow each true boundary inside its
/// gap, and one probe per broken day between a boundary and the available days next to it (a
/// missing image costs no run).
int floor_runs(const core::SweepScenario& s, int span) {
    int runs = (s.days - 1 + span - 1) / span + 1;
    int log2_span = 0;
    while ((1 << log2_span) < span)
        ++log2_span;
    auto broken = [&](int d) { return std::count(s.broken.begin(), s.broken.end(), d) > 0; };
    for (int k : core::scenario_true_boundaries(s)) {
        runs += log2_span;
        for (int d = k - 1; d >= 0 && core::scenario_unavailable(s, d); --d)
            runs += broken(d) ? 1 : 0;
        for (int d = k; d < s.days && core::scenario_unavailable(s, d); ++d)
            runs += broken(d) ? 1 : 0;
    }
    return runs;
}

/// Part A: runs with `options` vs the floor at its shortest excursion and the bisection
/// baseline; returns true when every goal holds (every boundary, none invented, <= 1.3x floor).
bool daily_suite(double noise, int seeds, const core::SweepOptions& options,
                 const std::string& title) {
    std::printf("-- %s: noise %.2f %% per run, %d seeds; runs = mean benchmark runs per sweep; "
                "floor = fewest runs that see every %d-day level; found = true boundaries found "
                "(summed over seeds); inv = invented\n",
                title.c_str(), noise * 100, seeds, options.min_span);
    std::printf("%-20s %4s %5s | %8s %5s %6s | %9s %4s | %9s %6s\n", "range", "days", "truth",
                "runs", "floor", "ratio", "found", "inv", "bisection", "ratio");
    double total = 0, total_base = 0, total_floor = 0;
    int found_all = 0, truth_all = 0, inv_all = 0;
    for (const auto& s : goal_suite(noise)) {
        double runs = 0, base = 0;
        int found = 0, truth = 0, inv = 0;
        for (int seed = 1; seed <= seeds; ++seed) {
            const auto r = core::simulate_sweep(s, options, static_cast<std::uint64_t>(seed));
            const auto c = core::check_sweep(s, r);
            runs += static_cast<double>(r.runs) / seeds;
            base += static_cast<double>(
                        core::pass_fail_bisection_runs(s, static_cast<std::uint64_t>(seed))) /
                    seeds;
            found += c.found;
            truth += c.truth;
            inv += c.invented;
        }
        const int floor = floor_runs(s, options.min_span);
        total += runs;
        total_base += base;
        total_floor += floor;
        found_all += found;
        truth_all += truth;
        inv_all += inv;
        std::printf("%-20s %4d %5d | %8.1f %5d %5.2fx | %4d/%-4d %4d | %9.1f %5.2fx\n",
                    s.name.c_str(), s.days, truth / seeds, runs, floor, runs / floor, found, truth,
                    inv, base, runs / base);
    }
    const double ratio = total / total_floor;
    std::printf("%-20s %4s %5s | %8.1f %5.0f %5.2fx | %4d/%-4d %4d | %9.1f %5.2fx  (goal: every "
                "boundary, none invented, <= 1.3x the floor)\n\n",
                "suite", "", "", total, total_floor, ratio, found_all, truth_all, inv_all,
                total_base, total / total_base);
    return found_all == truth_all && inv_all == 0 && ratio <= 1.3;
}

/// The seed replay: boundaries found and runs with the defaults against shortest excursions of
/// 7 days (the default until now) and 3, and a sweep of every day (the seed's authors' method).
bool seed_suite(int seeds) {
    const auto s = core::seed_replay_scenario();
    std::printf("== the seed replay: %s, %d nightlies, %zu boundaries, %zu broken, %zu missing, "
                "noise %.2f %%, %d seeds\n",
                s.start.c_str(), s.days, core::scenario_true_boundaries(s).size(), s.broken.size(),
                s.missing.size(), s.noise * 100, seeds);
    std::printf("%-44s | %6s %5s %6s | %7s %4s\n", "planner", "runs", "floor", "ratio", "found",
                "inv");
    const core::SweepOptions defaults;
    struct Variant {
        std::string name;
        core::SweepOptions o;
    };
    std::vector<Variant> variants;
    variants.push_back(
        {"defaults (shortest excursion " + std::to_string(defaults.min_span) + " days)", defaults});
    auto week = defaults;
    week.min_span = 7;
    variants.push_back({"shortest excursion 7 days (the old default)", week});
    auto every = defaults;
    every.strategy = core::SweepStrategy::exhaustive;
    variants.push_back({"every day (the seed's method)", every});
    bool met = false;
    for (const auto& v : variants) {
        double runs = 0;
        int found = 0, truth = 0, inv = 0;
        for (int seed = 1; seed <= seeds; ++seed) {
            const auto r = core::simulate_sweep(s, v.o, static_cast<std::uint64_t>(seed));
            const auto c = core::check_sweep(s, r);
            runs += static_cast<double>(r.runs) / seeds;
            found += c.found;
            truth += c.truth;
            inv += c.invented;
        }
        const int floor = floor_runs(s, v.o.min_span);
        std::printf("%-44s | %6.1f %5d %5.2fx | %3d/%-3d %4d\n", v.name.c_str(), runs, floor,
                    runs / floor, found, truth, inv);
        if (&v == &variants.front())
            met = found == truth && inv == 0 && runs <= 36;
    }
    std::printf("goal (defaults: every boundary, none invented, <= 36 runs): %s\n\n",
                met ? "met" : "NOT met");
    return met;
}

/// The detected drop first: runs (and wall with several GPUs) until the focus boundary is
/// decided, and the whole sweep, against the same sweep in the usual order. investigate's
/// setting: the range's ends and a week of nights before it are in the history (reused, no
/// run); "ends measured": without any history. The detected drop is the range's latest
/// regression: good = day 0, bad = the last available day of its level.
bool focus_suite(int seeds, int gpus) {
    std::printf(
        "== the detected drop first (focus): runs until its boundary is decided, and in all; "
        "%d seeds; usual = the same sweep without the focus\n",
        seeds);
    std::printf("%-20s %7s | %-27s | %-27s | %-22s\n", "", "", "history: ends + 7 nights",
                "ends measured", "4 GPUs, history: wall");
    std::printf("%-20s %7s | %8s %8s %8s | %8s %8s %8s | %9s %6s %5s\n", "range", "focus",
                "decided", "total", "usual", "decided", "total", "usual", "decided", "total",
                "found");
    auto ranges = goal_suite(0.0004);
    ranges.push_back(core::seed_replay_scenario());
    bool met = true;
    double sum_decided = 0, sum_total = 0, sum_usual = 0;
    for (const auto& s : ranges) {
        int drop = -1;
        for (int b : core::scenario_true_boundaries(s))
            if (core::scenario_level(s, b) < core::scenario_level(s, b - 1))
                drop = b;
        int bad = drop;
        while (bad + 1 < s.days &&
               core::scenario_level(s, bad + 1) == core::scenario_level(s, drop))
            ++bad;
        while (core::scenario_unavailable(s, bad))
            --bad;
        core::SweepOptions usual;
        core::SweepOptions focus = usual;
        focus.focus = core::SweepFocus{0, static_cast<std::size_t>(bad)};
        core::SimulatedHistory history;
        history.nights_before = 7;
        history.reused = {0, bad};
        double decided = 0, total = 0, usual_runs = 0, decided_bare = 0, total_bare = 0,
               usual_bare = 0, wall_decided = 0, wall_total = 0;
        int found = 0, truth = 0, inv = 0, never = 0;
        auto tally = [&](const core::SweepResult& r, const core::SimulationTrace& t) {
            const auto c = core::check_sweep(s, r);
            found += c.found;
            truth += c.truth;
            inv += c.invented;
            never += t.runs_to_focus < 0 ? 1 : 0;
        };
        for (int seed = 1; seed <= seeds; ++seed) {
            const auto sd = static_cast<std::uint64_t>(seed);
            core::SimulationTrace t, tb, tw;
            const auto r = core::simulate_sweep(s, focus, sd, history, &t);
            tally(r, t);
            decided += static_cast<double>(t.runs_to_focus) / seeds;
            total += static_cast<double>(r.runs) / seeds;
            usual_runs +=
                static_cast<double>(core::simulate_sweep(s, usual, sd, history, nullptr).runs) /
                seeds;
            const auto rb = core::simulate_sweep(s, focus, sd, {}, &tb);
            never += tb.runs_to_focus < 0 ? 1 : 0;
            decided_bare += static_cast<double>(tb.runs_to_focus) / seeds;
            total_bare += static_cast<double>(rb.runs) / seeds;
            usual_bare += static_cast<double>(core::simulate_sweep(s, usual, sd).runs) / seeds;
            auto many = focus;
            many.workers = gpus;
            tally(core::simulate_sweep(s, many, sd, history, &tw), tw);
            wall_decided += static_cast<double>(tw.wall_to_focus) / seeds;
            wall_total += static_cast<double>(tw.wall) / seeds;
        }
        sum_decided += decided;
        sum_total += total;
        sum_usual += usual_runs;
        std::printf(
            "%-20s %3d-%-3d | %8.1f %8.1f %8.1f | %8.1f %8.1f %8.1f | %9.1f %6.1f %2d/%-2d%s\n",
            s.name.c_str(), 0, bad, decided, total, usual_runs, decided_bare, total_bare,
            usual_bare, wall_decided, wall_total, found, truth,
            inv || never ? " (invented or undecided!)" : "");
        met = met && inv == 0 && never == 0 && found == truth;
        if (s.name == "seed_replay")
            met = met && decided <= 10;
    }
    std::printf("%-20s %7s | %8.1f %8.1f %8.1f |\n", "suite + seed", "", sum_decided, sum_total,
                sum_usual);
    std::printf("goal (seed replay: the detected boundary decided after <= 10 daily runs, every "
                "boundary still found, none invented): %s\n\n",
                met ? "met" : "NOT met");
    return met;
}

/// Part B: wall time with 4 GPUs against one, in runs (a round lasts as long as its longest
/// point; the points of a round run in parallel); returns true when the suite's ratio is <= 0.3.
bool parallel_suite(double noise, int seeds, int gpus, int min_span) {
    std::printf("-- %d GPUs vs 1, shortest excursion %d days: noise %.2f %% per run, %d seeds; "
                "wall = mean sweep time in runs (rounds x their longest point), runs = mean "
                "benchmark runs\n",
                gpus, min_span, noise * 100, seeds);
    std::printf("%-20s %4s %5s | %8s %8s | %8s %8s %9s | %5s\n", "range", "days", "truth",
                "1: runs", "wall", "N: runs", "wall", "wall N/1", "found");
    double wall1_all = 0, walln_all = 0;
    int found_all = 0, truth_all = 0, inv_all = 0;
    for (const auto& s : goal_suite(noise)) {
        core::SweepOptions one;
        one.min_span = min_span;
        core::SweepOptions many = one;
        many.workers = gpus;
        double runs1 = 0, wall1 = 0, runsn = 0, walln = 0;
        int found = 0, truth = 0;
        for (int seed = 1; seed <= seeds; ++seed) {
            long w1 = 0, wn = 0;
            const auto r1 = core::simulate_sweep(s, one, static_cast<std::uint64_t>(seed), &w1);
            const auto rn = core::simulate_sweep(s, many, static_cast<std::uint64_t>(seed), &wn);
            runs1 += static_cast<double>(r1.runs) / seeds;
            wall1 += static_cast<double>(w1) / seeds;
            runsn += static_cast<double>(rn.runs) / seeds;
            walln += static_cast<double>(wn) / seeds;
            const auto c = core::check_sweep(s, rn);
            found += c.found;
            truth += c.truth;
            inv_all += c.invented;
        }
        wall1_all += wall1;
        walln_all += walln;
        found_all += found;
        truth_all += truth;
        std::printf("%-20s %4d %5d | %8.1f %8.1f | %8.1f %8.1f %8.2fx | %2d/%-2d\n", s.name.c_str(),
                    s.days, truth / seeds, runs1, wall1, runsn, walln, walln / wall1, found, truth);
    }
    const double ratio = walln_all / wall1_all;
    std::printf("%-20s %4s %5s | %8s %8.1f | %8s %8.1f %8.2fx | %d/%d, %d invented  (goal: <= "
                "0.3)\n\n",
                "suite", "", "", "", wall1_all, "", walln_all, ratio, found_all, truth_all,
                inv_all);
    return ratio <= 0.3 && found_all == truth_all && inv_all == 0;
}

/// Rounds against a stream (no round barrier) on a simulated clock with uneven runs (1-2 s, a
/// broken nightly 0.2 s: core::scenario_run_seconds), 1 GPU and `gpus` side by side, over the
/// seed replay and the goal suite. Returns true when the seed replay's stream with `gpus` takes
/// <= 0.35 of one GPU's wall.
bool stream_suite(int seeds, int gpus) {
    std::printf("-- uneven runs (1 s even days, 2 s odd days, 0.2 s broken), %d seeds: wall in "
                "simulated seconds, 1 GPU vs %d in rounds and as a stream (no round barrier)\n",
                seeds, gpus);
    std::printf("%-20s | %8s | %8s %6s | %8s %6s | %5s\n", "range", "1 GPU", "rounds", "N/1",
                "stream", "N/1", "found");
    auto ranges = goal_suite(0.0004);
    ranges.insert(ranges.begin(), core::seed_replay_scenario());
    bool met = false;
    for (const auto& s : ranges) {
        core::SweepOptions one, many;
        many.workers = gpus;
        double w1 = 0, wr = 0, ws = 0;
        int found = 0, truth = 0, inv = 0;
        for (int seed = 1; seed <= seeds; ++seed) {
            const auto sd = static_cast<std::uint64_t>(seed);
            double a = 0, b = 0, c = 0;
            core::simulate_timed_sweep(s, one, sd, true, &a);
            core::simulate_timed_sweep(s, many, sd, false, &b);
            const auto r = core::simulate_timed_sweep(s, many, sd, true, &c);
            w1 += a / seeds;
            wr += b / seeds;
            ws += c / seeds;
            const auto chk = core::check_sweep(s, r);
            found += chk.found;
            truth += chk.truth;
            inv += chk.invented;
        }
        std::printf("%-20s | %8.1f | %8.1f %5.2fx | %8.1f %5.2fx | %2d/%-2d%s\n", s.name.c_str(),
                    w1, wr, wr / w1, ws, ws / w1, found, truth, inv ? " (invented!)" : "");
        if (s.name == "seed_replay")
            met = ws / w1 <= 0.35 && found == truth && inv == 0;
    }
    std::printf("goal (seed replay, %d GPUs as a stream <= 0.35 of one GPU's wall): %s "
                "(simulated; the real binary: bash bench/gpus_wall.sh)\n\n",
                gpus, met ? "met" : "NOT met");
    return met;
}

// ---- Part C: the hourly window the method was made for ----------------------------------------

/// One repo's main line in memory (oldest first); PR merges carry their PR commit as 2nd parent.
struct MemRepo {
    std::string name;
    std::vector<core::CommitInfo> main; ///< oldest first
    std::map<std::string, std::size_t> index;
};

class FakeRepo final : public ports::SourceRepo {
public:
    explicit FakeRepo(const MemRepo& r) : m_r(r), m_path("/src/" + r.name) {}
    const std::string& name() const override { return m_r.name; }
    const std::string& path() const override { return m_path; }
    bool is_shallow() override { return false; }
    std::string resolve(const std::string&) override { return m_r.main.back().sha; }
    std::vector<core::CommitInfo> first_parent_history(const std::string&,
                                                       util::UnixSeconds since) override {
        std::vector<core::CommitInfo> out;
        for (auto it = m_r.main.rbegin(); it != m_r.main.rend(); ++it) {
            out.push_back(*it);
            if (it->time <= since)
                break;
        }
        return out;
    }
    std::vector<core::CommitInfo> reachable(const std::string&) override { return m_r.main; }
    core::CommitInfo commit(const std::string& sha) override {
        return m_r.main.at(m_r.index.at(sha));
    }
    std::string head() override { return m_head; }
    void checkout(const std::string& sha) override { m_head = sha; }
    std::string remote_url(const std::string&) override { return ""; }
    void fetch(const std::string&, const std::string&) override {}

private:
    const MemRepo& m_r;
    std::string m_path;
    std::string m_head;
};

/// Builds count; a run's value drops by `drop` when the state holds the culprit commit.
class FakeBench final : public ports::PointRunner, public ports::Builder {
public:
    FakeBench(const MemRepo& culprit_repo, std::size_t culprit, double drop, double noise,
              std::uint64_t seed)
        : m_repo(culprit_repo), m_culprit(culprit), m_drop(drop), m_noise(noise), m_rng(seed) {}
    ports::StepOutcome build(const ports::PointRequest& r) override {
        m_current = r.commits; // the benchmark measures the build in place
        if (const auto mode = r.values.find("build_mode");
            mode != r.values.end() && mode->second == "restore") {
            ++restores; // a kept build put back (app/build_store), not a build
            return {true, "", ""};
        }
        ++builds;
        std::string key;
        for (const auto& [n, c] : r.commits)
            key += n + "=" + c + " ";
        if (!built.insert(key).second)
            ++rebuilds;
        if (r.stage == core::Stage::commit)
            ++commit_builds;
        return {true, "", ""};
    }
    std::vector<core::Measurement>
    run_points(const std::vector<ports::PointRequest>& reqs) override {
        std::vector<core::Measurement> out;
        for (const auto& r : reqs) {
            core::Measurement m;
            m.metric = "MLUPS";
            m.label = r.label;
            const bool bad = m_repo.index.at(m_current.at(m_repo.name)) >= m_culprit;
            std::normal_distribution<double> z(0, 1);
            for (int k = 0; k < std::max(1, r.repeats); ++k) {
                ++runs;
                m.values.push_back(100 * (bad ? 1 - m_drop : 1.0) * (1 + m_noise * z(m_rng)));
            }
            out.push_back(std::move(m));
        }
        return out;
    }
    int workers() const override { return 1; }
    long builds = 0, runs = 0, rebuilds = 0, commit_builds = 0, restores = 0;
    std::set<std::string> built;

private:
    std::map<std::string, std::string> m_current;
    const MemRepo& m_repo;
    std::size_t m_culprit;
    double m_drop, m_noise;
    std::mt19937_64 m_rng;
};

struct Window {
    std::vector<MemRepo> repos;
    util::UnixSeconds from = 0, to = 0;
    std::size_t culprit = 0; ///< index in repos[0] (xla) main line
};

/// 75 hourly points over three days; xla and jax main lines with ~0.9 commits an hour between
/// them, most of them PR merges landing 2-8 hours after the PR's commit; one culprit merge in xla.
Window make_window(std::uint64_t seed) {
    std::mt19937_64 rng(seed * 7919 + 17);
    Window w;
    w.from = 1692835200; // 2023-08-24T00:00:00Z
    w.to = w.from + 74 * 3600;
    int n = 0;
    for (const auto& [name, per_hour] :
         {std::pair<std::string, double>{"xla", 0.55}, {"jax", 0.35}}) {
        MemRepo r;
        r.name = name;
        std::uniform_real_distribution<double> u(0, 1);
        std::vector<util::UnixSeconds> times;
        const util::UnixSeconds start = w.from - 24 * 3600, end = w.to + 6 * 3600;
        for (util::UnixSeconds t = start; t < end; t += 60)
            if (u(rng) < per_hour / 60)
                times.push_back(t);
        for (auto t : times) {
            core::CommitInfo c;
            c.sha = name + "-" + std::to_string(++n);
            c.time = t;
            c.subject = name + " change " + std::to_string(n);
            if (!r.main.empty())
                c.parents.push_back(r.main.back().sha);
            if (u(rng) < 0.7) // a PR merge: its commit is hours older than the merge
                c.parents.push_back(name + "-pr-" + std::to_string(n));
            r.index[c.sha] = r.main.size();
            r.main.push_back(c);
        }
        w.repos.push_back(std::move(r));
    }
    // The culprit: an xla commit in the middle 80 % of the window.
    std::vector<std::size_t> inside;
    for (std::size_t i = 0; i < w.repos[0].main.size(); ++i) {
        const auto t = w.repos[0].main[i].time;
        if (t > w.from + 7 * 3600 && t < w.to - 7 * 3600)
            inside.push_back(i);
    }
    w.culprit = inside[std::uniform_int_distribution<std::size_t>(0, inside.size() - 1)(rng)];
    return w;
}

struct HourlyRun {
    long builds = 0, runs = 0, commit_builds = 0, rebuilds = 0, restores = 0;
    bool exact = false;
    std::size_t distinct = 0;
};

/// One window searched to the culprit. `keep`: finished builds are kept (app/build_store) and
/// put back on a revisit; `stop_after` > 0: the search stops after that many builds and a
/// second invocation resumes it from its journal.
HourlyRun hourly_once(const Window& w, const std::string& strategy, int repeats, int min_span,
                      double noise, std::uint64_t seed, bool keep = false, long stop_after = 0) {
    app::HourlyOptions o;
    for (const auto& r : w.repos)
        o.repos.push_back({r.name, "/src/" + r.name, "origin/main"});
    o.from = util::time_at(w.from);
    o.to = util::time_at(w.to);
    o.to_commit = true;
    o.strategy = *util::parse_enum(app::k_hourly_strategy_names, strategy);
    o.repeats = repeats;
    o.min_span = min_span;
    o.max_repeats = std::max(12, repeats);
    FakeBench bench(w.repos[0], w.culprit, 0.10, noise, seed);
    struct Repos final : ports::SourceRepos {
        const Window& w;
        explicit Repos(const Window& win) : w(win) {}
        std::unique_ptr<ports::SourceRepo> open(const std::string& name,
                                                const std::string&) override {
            for (const auto& r : w.repos)
                if (r.name == name)
                    return std::make_unique<FakeRepo>(r);
            return nullptr;
        }
    } repos(w);
    fakes::World world; // the other ports, in memory
    ports::Adapters a{world.files,     world.progress,  world.clock, world.actions,
                      world.histories, world.runners,   repos,       world.code_hosts,
                      world.secrets,   world.demo_world};
    if (keep) {
        o.builds.dir = "builds";
        o.builds.recipe = "build {build_dir} {build_mode}";
        o.builds.restore_step = true;
    }
    if (stop_after > 0) {
        o.state_dir = "state";
        o.max_builds = stop_after;
        app::run_hourly(o, a, {bench, bench});
        o.max_builds = 0;
    }
    const auto r = app::run_hourly(o, a, {bench, bench});
    HourlyRun out;
    out.builds = bench.builds;
    out.runs = bench.runs;
    out.commit_builds = bench.commit_builds;
    out.rebuilds = bench.rebuilds;
    out.restores = bench.restores;
    if (r.spend.builds != bench.builds || r.spend.runs != bench.runs ||
        r.spend.restored_builds != bench.restores)
        std::printf("COUNT MISMATCH: result says builds %ld runs %ld put back %ld, the bench saw "
                    "%ld, %ld, %ld\n",
                    r.spend.builds, r.spend.runs, r.spend.restored_builds, bench.builds, bench.runs,
                    bench.restores);
    out.exact = r.culprit && r.culprit->commit.sha == w.repos[0].main[w.culprit].sha;
    for (const auto& s : r.states)
        out.distinct += s.duplicate ? 0 : 1;
    return out;
}

/// Part C: builds to the exact culprit; returns true when the default meets the goal (<= 10).
bool hourly_window(int seeds) {
    std::printf("== hourly: 75 hourly points over three days, xla + jax main lines, PR merges "
                "hours after their commits, one culprit (10 %% drop, 0.04 %% noise), --to-commit; "
                "%d windows\n",
                seeds);
    std::printf("%-40s | %6s %4s %7s %7s | %5s | %5s | %s\n", "planner", "builds", "max", "commit",
                "rebuilt", "runs", "exact", "distinct states");
    struct Variant {
        std::string name, strategy;
        int repeats, min_span;
    };
    const app::HourlyOptions defaults;
    const std::string default_strategy(
        util::enum_name(app::k_hourly_strategy_names, defaults.strategy));
    const std::vector<Variant> variants = {
        {"adaptive, shortest excursion 7 states", "adaptive", defaults.repeats, 7},
        {"adaptive, shortest excursion 14 states", "adaptive", defaults.repeats, 14},
        {"adaptive, shortest excursion 20 states", "adaptive", defaults.repeats, 20},
        {"defaults (" + default_strategy + ", " + std::to_string(defaults.repeats) +
             " runs at the ends, 1 inside)",
         default_strategy, defaults.repeats, defaults.min_span},
    };
    bool met = false, mean_met = false;
    for (const auto& v : variants) {
        double builds = 0, runs = 0, distinct = 0, commit = 0, rebuilt = 0;
        long most = 0;
        int exact = 0;
        for (int seed = 1; seed <= seeds; ++seed) {
            const auto w = make_window(static_cast<std::uint64_t>(seed));
            const auto r = hourly_once(w, v.strategy, v.repeats, v.min_span, 0.0004,
                                       static_cast<std::uint64_t>(seed));
            builds += static_cast<double>(r.builds) / seeds;
            runs += static_cast<double>(r.runs) / seeds;
            commit += static_cast<double>(r.commit_builds) / seeds;
            rebuilt += static_cast<double>(r.rebuilds) / seeds;
            distinct += static_cast<double>(r.distinct) / seeds;
            most = std::max(most, r.builds);
            exact += r.exact ? 1 : 0;
        }
        std::printf("%-40s | %6.1f %4ld %7.1f %7.1f | %5.1f | %2d/%-2d | %.1f\n", v.name.c_str(),
                    builds, most, commit, rebuilt, runs, exact, seeds, distinct);
        met = exact == seeds && most <= 10;
        mean_met = exact == seeds && builds <= 10;
    }
    std::printf("builds = mean per window (max = the most in one), of them in the commit stage and "
                "rebuilds of a state built before\n");
    std::printf("goal (defaults: exact culprit, <= 10 builds): mean %s, every window %s\n\n",
                mean_met ? "met" : "NOT met", met ? "met" : "NOT met");
    return met;
}

/// Part D: builds of a state already built, without and with the kept builds (app/build_store),
/// side by side on the same windows; returns true when the defaults meet the goal with them
/// (exact culprit, <= 10 builds in every window, no state built twice).
bool hourly_builds_once(int seeds) {
    std::printf("== hourly, build once per state: the windows of part C with the defaults, "
                "without and with the kept builds (--keep-builds)\n");
    std::printf("%-44s | %-27s | %-35s\n", "", "before: no kept builds",
                "after: kept builds put back");
    std::printf("%-44s | %6s %4s %7s %5s | %6s %4s %7s %7s %5s\n", "scenario", "builds", "max",
                "rebuilt", "exact", "builds", "max", "rebuilt", "put back", "exact");
    struct Scenario {
        std::string name;
        double noise;
        long stop_after;
    };
    const std::vector<Scenario> scenarios = {
        {"the replay (0.04 % noise)", 0.0004, 0},
        {"the replay, stopped after 4 builds, resumed", 0.0004, 4},
        {"a noisier benchmark (1 % noise)", 0.01, 0},
        {"a noisier benchmark, stopped and resumed", 0.01, 4},
    };
    const app::HourlyOptions d;
    const std::string strategy(util::enum_name(app::k_hourly_strategy_names, d.strategy));
    bool met = true;
    for (const auto& sc : scenarios) {
        double mean[2][3] = {};
        long most[2] = {0, 0}, rebuilt_total[2] = {0, 0};
        int exact[2] = {0, 0};
        for (int seed = 1; seed <= seeds; ++seed) {
            const auto w = make_window(static_cast<std::uint64_t>(seed));
            for (int keep = 0; keep < 2; ++keep) {
                const auto r =
                    hourly_once(w, strategy, d.repeats, d.min_span, sc.noise,
                                static_cast<std::uint64_t>(seed), keep == 1, sc.stop_after);
                mean[keep][0] += static_cast<double>(r.builds) / seeds;
                mean[keep][1] += static_cast<double>(r.rebuilds) / seeds;
                mean[keep][2] += static_cast<double>(r.restores) / seeds;
                most[keep] = std::max(most[keep], r.builds);
                rebuilt_total[keep] += r.rebuilds;
                exact[keep] += r.exact ? 1 : 0;
            }
        }
        std::printf("%-44s | %6.1f %4ld %7.2f %2d/%-2d | %6.1f %4ld %7.2f %8.2f %2d/%-2d\n",
                    sc.name.c_str(), mean[0][0], most[0], mean[0][1], exact[0], seeds, mean[1][0],
                    most[1], mean[1][1], mean[1][2], exact[1], seeds);
        if (sc.noise < 0.001)
            met = met && exact[1] == seeds && most[1] <= 10 && rebuilt_total[1] == 0;
    }
    std::printf("builds = mean per window (max = the most in one); rebuilt = builds of a state "
                "built before; put back = revisits served from the kept builds\n");
    std::printf("goal (the replay, defaults: exact culprit, <= 10 builds, 0 builds of a state "
                "already built): %s\n\n",
                met ? "met" : "NOT met");
    return met;
}

} // namespace

int main(int argc, char** argv) {
    const int seeds = argc > 1 ? std::atoi(argv[1]) : 20;
    std::printf(
        "== daily: runs over the goal suite vs the floor and a bisection over pass/fail (one "
        "boundary)\n");
    core::SweepOptions before; // 3 runs per date, a 5-day stride (the defaults of issue 17)
    before.repeats = 3;
    before.min_span = 5;
    const core::SweepOptions defaults; // what `perfsweep daily` uses without flags
    const std::string now = "defaults (" + std::to_string(defaults.repeats) +
                            " run per date at first, shortest excursion " +
                            std::to_string(defaults.min_span) + " days)";
    core::SweepOptions week = defaults; // the default shortest excursion until now
    week.min_span = 7;
    daily_suite(0.0004, seeds, before, "before: 3 runs per date, 5-day stride");
    daily_suite(0.0004, seeds, week, "shortest excursion 7 days (the default until now)");
    // H200: 0.01-0.04 % run-to-run noise for kernel changes.
    const bool quiet = daily_suite(0.0004, seeds, defaults, now);
    if (argc > 2 && std::string(argv[2]) == "spans") {
        // What the shortest-excursion setting costs: the suite with each value.
        for (int span : {3, 5, 7, 10, 14}) {
            core::SweepOptions o = defaults;
            o.min_span = span;
            daily_suite(0.0004, seeds, o, "shortest excursion " + std::to_string(span) + " days");
        }
    }
    // The scenario suite's noise, for the record.
    daily_suite(0.005, seeds, before, "before, the scenario suite's noise");
    daily_suite(0.005, seeds, week, "shortest excursion 7 days, the scenario suite's noise");
    daily_suite(0.005, seeds, defaults, now + ", the scenario suite's noise");
    std::printf("goals at H200 noise: %s\n\n", quiet ? "met" : "NOT met");
    seed_suite(seeds);
    focus_suite(seeds, 4);
    parallel_suite(0.0004, seeds, 4, 7);
    const bool parallel = parallel_suite(0.0004, seeds, 4, defaults.min_span);
    std::printf("goal 4 GPUs wall <= 0.3 of one: %s\n\n", parallel ? "met" : "NOT met");
    stream_suite(seeds, 4);
    hourly_window(seeds);
    hourly_builds_once(seeds);
    return 0;
}
