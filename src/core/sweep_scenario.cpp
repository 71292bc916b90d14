#include "core/sweep_scenario.hpp"

#include <algorithm>
#include <cmath>

namespace perfsweep::core {

namespace {

std::uint64_t splitmix64(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

double unit(std::uint64_t x) { // (0, 1)
    return (static_cast<double>(x >> 11) + 0.5) / 9007199254740992.0;
}

// Measure `rq` of the scenario into `plan`: a missing image costs no run, a broken nightly one.
void measure_request(const SweepScenario& s, SweepPlan& plan, const SweepRequest& rq,
                     std::uint64_t seed) {
    const int day = static_cast<int>(rq.index);
    const bool missing = std::find(s.missing.begin(), s.missing.end(), day) != s.missing.end();
    if (scenario_unavailable(s, day)) {
        plan.observe(rq.index, missing ? Status::missing : Status::failed, {},
                     missing ? "image not found" : "exit code 1", {}, missing ? 0 : 1);
        return;
    }
    std::vector<double> v;
    const int have = static_cast<int>(plan.point(rq.index).values.size());
    for (int k = 0; k < rq.repeats; ++k)
        v.push_back(scenario_value(s, day, seed, have + k));
    plan.observe(rq.index, Status::ok, v, {}, {}, rq.repeats);
}

// A plan over the scenario's days ("day0", "day1", ...) in the scenario's direction.
SweepPlan scenario_plan(const SweepScenario& s, SweepOptions options) {
    std::vector<std::string> labels;
    for (int d = 0; d < s.days; ++d)
        labels.push_back("day" + std::to_string(d));
    options.direction = s.direction;
    return SweepPlan(labels, options);
}

} // namespace

SweepScenario seed_replay_scenario() {
    SweepScenario s;
    s.name = "seed_replay";
    s.start = "2023-07-01";
    s.days = 80;
    s.base = 587.6;
    s.noise = 0.001;
    s.levels = {{13, 0.970388}, {19, 0.99983}, {22, 0.982471}, {56, 0.913376}};
    s.broken = {55};
    s.missing = {13, 14, 15};
    return s;
}

double scenario_level(const SweepScenario& s, int day) {
    double level = 1.0;
    for (const auto& [from, l] : s.levels)
        if (day >= from)
            level = l;
    return level;
}

bool scenario_unavailable(const SweepScenario& s, int day) {
    return std::find(s.broken.begin(), s.broken.end(), day) != s.broken.end() ||
           std::find(s.missing.begin(), s.missing.end(), day) != s.missing.end();
}

std::vector<int> scenario_true_boundaries(const SweepScenario& s) {
    std::vector<int> out;
    for (int d = 1; d < s.days; ++d)
        if (scenario_level(s, d) != scenario_level(s, d - 1))
            out.push_back(d);
    return out;
}

double scenario_value(const SweepScenario& s, int day, std::uint64_t seed, int repeat) {
    double noise = s.noise;
    for (const auto& [d, n] : s.noisy)
        if (d == day)
            noise = n;
    const std::uint64_t key = splitmix64(seed * 1000003ULL + static_cast<std::uint64_t>(day)) ^
                              splitmix64(static_cast<std::uint64_t>(repeat) + 0x1234567ULL);
    const double u1 = unit(splitmix64(key)), u2 = unit(splitmix64(key + 1));
    const double z = std::sqrt(-2 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    return s.base * scenario_level(s, day) * (1 + noise * z);
}

} // namespace perfsweep::core

namespace perfsweep::core {

SweepResult simulate_sweep(const SweepScenario& s, const SweepOptions& options, std::uint64_t seed,
                           long* wall) {
    SimulationTrace trace;
    auto r = simulate_sweep(s, options, seed, SimulatedHistory{}, &trace);
    if (wall)
        *wall += trace.wall;
    return r;
}

SweepResult simulate_sweep(const SweepScenario& s, const SweepOptions& options, std::uint64_t seed,
                           const SimulatedHistory& history, SimulationTrace* trace) {
    SweepPlan plan = scenario_plan(s, options);
    std::vector<std::vector<double>> context;
    for (int d = -history.nights_before; d < 0; ++d)
        context.push_back({scenario_value(s, d, seed, 0)});
    if (!context.empty())
        plan.set_noise_context(std::move(context));
    for (int d : history.reused)
        if (!scenario_unavailable(s, d))
            plan.reuse(static_cast<std::size_t>(d), {scenario_value(s, d, seed, 0)});
    SimulationTrace local;
    SimulationTrace& t = trace ? *trace : local;
    auto focus_check = [&] {
        if (options.focus && t.runs_to_focus < 0 && plan.focus_boundary()) {
            t.runs_to_focus = plan.result().runs;
            t.wall_to_focus = t.wall;
        }
    };
    focus_check();
    for (int round = 0; round < 100000; ++round) {
        const auto reqs = plan.next();
        if (reqs.empty())
            break;
        int longest = 0;
        for (const auto& rq : reqs)
            longest = std::max(longest, rq.repeats);
        t.wall += longest;
        for (const auto& rq : reqs)
            measure_request(s, plan, rq, seed);
        focus_check();
    }
    return plan.result(plan.budget_exhausted() ? "run budget spent" : "");
}

double scenario_run_seconds(const SweepScenario& s, int day) {
    if (std::find(s.missing.begin(), s.missing.end(), day) != s.missing.end())
        return 0;
    return scenario_unavailable(s, day) ? 0.2 : 1.0 + day % 2;
}

double stream_sweep(const SweepScenario& s, SweepPlan& plan, int workers, std::uint64_t seed,
                    const std::function<double(int day)>& run_seconds, const StreamCheck& check) {
    double now = 0;
    std::vector<std::pair<double, SweepRequest>> busy; // (ends, request)
    for (;;) {
        while (busy.size() < static_cast<std::size_t>(workers)) {
            ProposalHints h;
            for (const auto& b : busy)
                h.in_flight.push_back(b.second);
            const auto q = plan.next_one(h);
            if (!q)
                break;
            if (check)
                check(*q, h.in_flight);
            busy.emplace_back(now + run_seconds(static_cast<int>(q->index)) * q->repeats, *q);
        }
        if (busy.empty())
            return now;
        const auto first =
            std::min_element(busy.begin(), busy.end(),
                             [](const auto& a, const auto& b) { return a.first < b.first; });
        now = first->first;
        const SweepRequest rq = first->second;
        busy.erase(first);
        measure_request(s, plan, rq, seed);
    }
}

SweepResult simulate_timed_sweep(const SweepScenario& s, const SweepOptions& options,
                                 std::uint64_t seed, bool stream, double* seconds) {
    SweepPlan plan = scenario_plan(s, options);
    double now = 0;
    auto length = [&](const SweepRequest& rq) {
        return scenario_run_seconds(s, static_cast<int>(rq.index)) * rq.repeats;
    };
    if (!stream) {
        for (auto reqs = plan.next(); !reqs.empty(); reqs = plan.next()) {
            double longest = 0;
            for (const auto& rq : reqs)
                longest = std::max(longest, length(rq));
            now += longest;
            for (const auto& rq : reqs)
                measure_request(s, plan, rq, seed);
        }
    } else {
        now = stream_sweep(s, plan, options.workers, seed,
                           [&](int day) { return scenario_run_seconds(s, day); });
    }
    if (seconds)
        *seconds = now;
    return plan.result(plan.budget_exhausted() ? "run budget spent" : "");
}

int pass_fail_bisection_runs(const SweepScenario& s, std::uint64_t seed) {
    const auto truth = scenario_true_boundaries(s);
    if (truth.empty() || s.days < 2)
        return std::min(s.days, 2);
    const double before = scenario_level(s, 0);
    const double threshold = s.base * (before + scenario_level(s, truth.front())) / 2;
    const bool higher = s.direction == Direction::higher_is_better;
    auto missing = [&](int d) {
        return std::find(s.missing.begin(), s.missing.end(), d) != s.missing.end();
    };
    int runs = 0;
    auto fails = [&](int d) {
        ++runs;
        if (scenario_unavailable(s, d))
            return true;
        const double v = scenario_value(s, d, seed, 0);
        return higher ? v < threshold : v > threshold;
    };
    int good = 0, bad = s.days - 1;
    while (good < bad && missing(good))
        ++good;
    while (bad > good && missing(bad))
        --bad;
    fails(good);
    if (!fails(bad)) {
        bad = truth.front(); // the dip's first day, given (the peer needs a failing end)
        ++runs;
    }
    while (bad - good > 1) {
        int mid = good + (bad - good) / 2;
        int probe = -1;
        for (int off = 0; off < bad - good && probe < 0; ++off)
            for (int c : {mid + off, mid - off})
                if (c > good && c < bad && !missing(c)) {
                    probe = c;
                    break;
                }
        if (probe < 0)
            break;
        if (fails(probe))
            bad = probe;
        else
            good = probe;
    }
    return runs;
}

ScenarioCheck check_sweep(const SweepScenario& s, const SweepResult& r) {
    ScenarioCheck c;
    const auto truth = scenario_true_boundaries(s);
    c.truth = static_cast<int>(truth.size());
    std::vector<bool> used(r.boundaries.size(), false);
    for (int k : truth) {
        for (std::size_t i = 0; i < r.boundaries.size(); ++i) {
            const auto& b = r.boundaries[i];
            if (used[i] || b.kind == ChangeKind::unknown || b.untested_between != 0)
                continue;
            if (static_cast<int>(b.last_before) < k && k <= static_cast<int>(b.first_after)) {
                used[i] = true;
                ++c.found;
                break;
            }
        }
    }
    for (std::size_t i = 0; i < r.boundaries.size(); ++i) {
        if (r.boundaries[i].kind == ChangeKind::unknown)
            ++c.unknown;
        else if (!used[i])
            ++c.invented;
    }
    return c;
}

} // namespace perfsweep::core
