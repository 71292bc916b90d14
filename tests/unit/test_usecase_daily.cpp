// The daily stage in-process with the in-memory ports (tests/support/fakes): the boundary of a
// step, broken nightlies skipped, every run in the history once, and a sweep killed mid-way that
// resumes from its state directory without running a finished date again.
#include "app/daily.hpp"
#include "core/sweep_scenario.hpp"
#include "support/fakes/world.hpp"
#include "util/error.hpp"
#include "util/time.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

using namespace perfsweep;

namespace {

// A benchmark at 577 MLUPS that drops 7 % from `first_bad` on (0.05 % deterministic noise).
fakes::RunScript step_at(const std::string& first_bad) {
    return [first_bad](const ports::PointRequest& r, int repeat) {
        const double level = r.label < first_bad ? 577.0 : 536.6;
        return fakes::Run::of(level * (1 + 0.0005 * ((repeat * 7 + r.label.back()) % 3 - 1)));
    };
}

struct Daily {
    fakes::World w;
    std::unique_ptr<ports::BuildingRunner> runner;
    std::unique_ptr<ports::HistoryStore> history;
    app::DailyOptions o;

    Daily() {
        ports::RunnerConfig rc;
        rc.image = "nightly:{date}";
        rc.metric = "MLUPS";
        rc.unit = "MLUPS";
        rc.benchmark = "lbm";
        runner = w.runners.make(rc);
        history = w.histories.open("history.jsonl");
        o.dates = {*util::parse_day("2024-05-01"), *util::parse_day("2024-05-30")};
        o.benchmark = "lbm";
        o.sweep.repeats = 3;
        o.sweep.min_change = 0.02;
    }
    core::DailyResult run() {
        return app::run_daily(o, w.adapters, {*runner, nullptr, history.get()});
    }
};

const core::Boundary* regression(const core::DailyResult& r) {
    for (const auto& b : r.sweep.boundaries)
        if (b.kind == core::ChangeKind::regression)
            return &b;
    return nullptr;
}

} // namespace

TEST_CASE(
    "daily in-process: the step is narrowed to two adjacent nightlies, each run recorded once",
    "[usecase][daily]") {
    Daily d;
    d.w.runners.run = step_at("2024-05-19");
    const auto r = d.run();
    const auto* b = regression(r);
    REQUIRE(b);
    CHECK(r.sweep.points[b->last_before].label == "2024-05-18");
    CHECK(r.sweep.points[b->first_after].label == "2024-05-19");
    CHECK(b->untested_between == 0);
    CHECK(b->relative_change == Approx(-0.07).margin(0.002));
    // Counted once: the result says what the runner ran, the history holds every measurement.
    CHECK(r.sweep.runs == d.w.runners.log.total_runs());
    long values = 0;
    for (const auto& m : d.w.histories.at("history.jsonl").records) {
        CHECK(m.stage == core::Stage::daily);
        CHECK(m.image == "nightly:" + m.label);
        values += static_cast<long>(m.values.size());
    }
    CHECK(values == d.w.runners.log.total_runs());
    // Far fewer runs than measuring all 30 nightlies three times.
    CHECK(d.w.runners.log.runs.size() < 20);
}

TEST_CASE("daily in-process: failed, hanging and missing nightlies are skipped, never a boundary",
          "[usecase][daily]") {
    Daily d;
    const auto step = step_at("2024-05-19");
    d.w.runners.run = [&](const ports::PointRequest& r, int repeat) {
        if (r.label >= "2024-05-15" && r.label <= "2024-05-17")
            return fakes::Run::failed("exit code 139");
        if (r.label == "2024-05-18")
            return fakes::Run::hang();
        if (r.label == "2024-05-20")
            return fakes::Run::missing();
        return step(r, repeat);
    };
    const double start = d.w.clock.now();
    const auto r = d.run();
    const auto* b = regression(r);
    REQUIRE(b);
    // The change lies somewhere among the broken nightlies after the 14th: never before it.
    CHECK(r.sweep.points[b->last_before].label == "2024-05-14");
    CHECK(r.sweep.points[b->first_after].label == "2024-05-19");
    for (const auto& p : r.sweep.points) {
        if (p.label == "2024-05-18" && p.state == core::StateStatus::test_failed)
            CHECK(p.status == core::Status::timeout);
        if (p.label == "2024-05-20" && p.state == core::StateStatus::test_failed)
            CHECK(p.status == core::Status::missing);
    }
    // A hang costs the runner's timeout (1800 s by default) on the clock, not in the test.
    CHECK(d.w.clock.now() - start >= 1800);
}

TEST_CASE("daily in-process: a sweep killed mid-way resumes without running a finished date again",
          "[usecase][daily][resume]") {
    Daily d;
    d.o.state_dir = "state/daily";
    d.o.identity = "stage=daily\nimage=nightly:{date}\n";
    const auto step = step_at("2024-05-19");
    int runs = 0;
    d.w.runners.run = [&](const ports::PointRequest& r, int repeat) {
        if (++runs == 8) // killed during the eighth run: nothing of it is committed
            throw_infra("interrupted");
        return step(r, repeat);
    };
    CHECK_THROWS_WITH(d.run(), Catch::Contains("interrupted"));
    const auto stored = d.w.histories.at("history.jsonl").records.size();
    REQUIRE(stored > 0);
    REQUIRE(d.w.files.exists("state/daily/journal.tsv"));

    d.w.runners.run = step;
    d.w.runners.log = {};
    const auto r = d.run();
    const auto* b = regression(r);
    REQUIRE(b);
    CHECK(r.sweep.points[b->first_after].label == "2024-05-19");
    CHECK(r.resumed_runs == 7);
    // The resumed sweep ran only what was not finished: the 7 committed runs came back from the
    // state dir, and the history holds each run once.
    long values = 0;
    for (const auto& m : d.w.histories.at("history.jsonl").records)
        values += static_cast<long>(m.values.size());
    CHECK(values == d.w.runners.log.total_runs() + 7);
    // And it cost exactly what was left: an uninterrupted sweep of the same nightlies runs 7
    // more than the resumed one.
    Daily fresh;
    fresh.w.runners.run = step;
    const auto whole = fresh.run();
    CHECK(fresh.w.runners.log.total_runs() == d.w.runners.log.total_runs() + 7);
    CHECK(whole.sweep.points[regression(whole)->first_after].label == "2024-05-19");
}

TEST_CASE("daily in-process: a run committed to the state dir but killed before its history "
          "append reaches the history on resume",
          "[usecase][daily][resume]") {
    Daily d;
    d.o.state_dir = "state/daily";
    d.o.identity = "stage=daily\nimage=nightly:{date}\n";
    d.w.runners.run = step_at("2024-05-19");
    auto& h = d.w.histories.at("history.jsonl");
    h.kill_at_append = 5; // the fifth run is in the journal, not in the history
    CHECK_THROWS_WITH(d.run(), Catch::Contains("killed before the append"));
    REQUIRE(h.records.size() == 4);
    h.kill_at_append = 0;
    const auto r = d.run();
    CHECK(r.resumed_runs == 5);
    CHECK_THAT(d.w.progress.lines, Catch::VectorContains(std::string(
                                       "appended 1 committed runs missing from history.jsonl")));
    // Every run is in the history exactly once.
    long values = 0;
    for (const auto& m : h.records)
        values += static_cast<long>(m.values.size());
    CHECK(values == d.w.runners.log.total_runs());
    for (std::size_t i = 0; i < h.records.size(); ++i)
        for (std::size_t j = i + 1; j < h.records.size(); ++j)
            CHECK_FALSE(fakes::same_record(h.records[i], h.records[j]));
}

TEST_CASE("daily in-process: points stored under the command line (earlier versions' name) are "
          "reused; another metric's points and an ambiguous command line are not",
          "[usecase][daily][series]") {
    Daily d;
    d.o.metric = "MLUPS";
    d.w.runners.run = step_at("2024-05-19");
    auto& hist = d.w.histories.at("history.jsonl").records;
    auto add = [&](const std::string& bench, const std::string& metric, double scale) {
        for (const auto& label : d.o.dates.labels())
            for (int repeat = 1; repeat <= 3; ++repeat) {
                core::Measurement m;
                m.benchmark = bench;
                m.metric = metric;
                m.label = label;
                m.stage = core::Stage::daily;
                m.runner = d.w.runners.machine;
                m.values = {scale * (label < "2024-05-19" ? 577.0 : 536.6) *
                            (1 + 0.0005 * ((repeat * 7 + label.back()) % 3 - 1))};
                hist.push_back(m);
            }
    };
    add("bash bench/lbm 256", "MLUPS", 1); // recorded before --benchmark existed
    add("lbm", "GFLOPS", 0.001);           // another series of the same benchmark
    SECTION("the command line's points are the series' own: nothing runs") {
        const auto r = d.run();
        CHECK(d.w.runners.log.total_runs() == 0);
        const auto* b = regression(r);
        REQUIRE(b);
        CHECK(r.sweep.points[b->first_after].label == "2024-05-19");
        for (const auto& ms : r.measurements)
            for (const auto& m : ms)
                CHECK(m.metric == "MLUPS");
    }
    SECTION("two command lines of one script are two benchmarks: neither is reused") {
        add("bash bench/lbm 512", "MLUPS", 0.5);
        const auto r = d.run();
        CHECK(d.w.runners.log.total_runs() > 0);
        for (const auto& ms : r.measurements)
            for (const auto& m : ms)
                CHECK(m.benchmark == "lbm");
    }
}

TEST_CASE("daily in-process: a --state another perfsweep holds stops before a run (issue 29)",
          "[usecase][daily][locks]") {
    // Two daily on one --state measured every date twice and the journal kept half; the stage now
    // locks its state directory before reading the journal (suite [locks] runs two processes).
    Daily d;
    d.o.state_dir = "state/daily";
    d.o.identity = "stage=daily\n";
    d.w.runners.run = step_at("2024-05-19");
    d.w.files.held_elsewhere.insert("state/daily");
    CHECK_THROWS_WITH(d.run(), Catch::Contains("holds --state state/daily"));
    CHECK(d.w.runners.log.total_runs() == 0);
    CHECK_FALSE(d.w.files.exists("state/daily/journal.tsv"));
    d.w.files.held_elsewhere.clear();
    d.run();
    CHECK(d.w.files.locked.at("state/daily") == 1);
}

namespace {

// GPUs on a simulated clock replaying a core::SweepScenario: a good nightly's run takes 1 or 2
// s (by date), a broken one fails in 0.2 s, a missing image costs nothing. run_points is a round
// (its points start together, it ends with the slowest); run_stream starts a point whenever a GPU
// is free. `wall` is the simulated time spent.
class SimulatedGpus : public ports::PointRunner {
public:
    SimulatedGpus(core::SweepScenario s, int gpus) : m_s(std::move(s)), m_gpus(gpus) {}
    int workers() const override { return m_gpus; }
    std::vector<core::Measurement>
    run_points(const std::vector<ports::PointRequest>& requests) override {
        double longest = 0;
        std::vector<core::Measurement> out;
        for (const auto& r : requests) {
            longest = std::max(longest, seconds(r));
            out.push_back(measure(r));
        }
        wall += longest;
        return out;
    }
    void run_stream(const std::function<std::optional<ports::PointRequest>()>& next,
                    const std::function<void(const ports::PointRequest&,
                                             std::vector<core::Measurement>)>& done) override {
        std::vector<std::pair<double, ports::PointRequest>> busy; // (ends, point)
        for (;;) {
            while (busy.size() < static_cast<std::size_t>(m_gpus)) {
                auto q = next();
                if (!q)
                    break;
                for (const auto& b : busy)
                    REQUIRE(b.second.label != q->label); // never a point twice at once
                busy.emplace_back(wall + seconds(*q), std::move(*q));
            }
            if (busy.empty())
                return;
            const auto first = std::min_element(busy.begin(), busy.end(),
                                                [](auto& a, auto& b) { return a.first < b.first; });
            wall = first->first;
            const auto q = first->second;
            busy.erase(first);
            done(q, {measure(q)});
        }
    }
    double wall = 0;

private:
    int day(const ports::PointRequest& r) const {
        return static_cast<int>(util::days_from_civil(*util::parse_date(r.label)) -
                                util::days_from_civil(*util::parse_date(m_s.start)));
    }
    double seconds(const ports::PointRequest& r) const {
        const int d = day(r);
        if (std::count(m_s.missing.begin(), m_s.missing.end(), d))
            return 0;
        return core::scenario_unavailable(m_s, d) ? 0.2 : 1.0 + d % 2;
    }
    core::Measurement measure(const ports::PointRequest& r) const {
        core::Measurement m;
        m.label = r.label;
        m.metric = "MLUPS";
        const int d = day(r);
        if (std::count(m_s.missing.begin(), m_s.missing.end(), d)) {
            m.status = core::Status::missing;
            m.reason = "image not found";
        } else if (core::scenario_unavailable(m_s, d)) {
            m.status = core::Status::failed;
            m.reason = "exit code 1";
        } else {
            for (int k = 0; k < r.repeats; ++k)
                m.values.push_back(core::scenario_value(m_s, d, 1, r.first_repeat - 1 + k));
        }
        return m;
    }
    core::SweepScenario m_s;
    int m_gpus;
};

} // namespace

TEST_CASE("daily in-process: four GPUs without a round barrier take <= 0.35 of one GPU's time "
          "on the seed replay",
          "[usecase][daily][parallel]") {
    // Uneven runs (1-2 s, a broken nightly 0.2 s): in rounds every GPU waits for the slowest.
    // Without the barrier a GPU that finishes gets the next useful point at once.
    const auto s = core::seed_replay_scenario();
    auto sweep = [&](int gpus) {
        fakes::World w;
        SimulatedGpus gpu(s, gpus);
        app::DailyOptions o;
        o.dates = {*util::parse_day("2023-07-01"), *util::parse_day("2023-09-18")};
        o.benchmark = "lbm";
        const auto r = app::run_daily(o, w.adapters, {gpu, nullptr, nullptr});
        const auto c = core::check_sweep(s, r.sweep);
        CHECK(c.found == 4);
        CHECK(c.invented == 0);
        CHECK(r.sweep.complete);
        return std::make_pair(gpu.wall, r.sweep.runs);
    };
    const auto [one, runs1] = sweep(1);
    const auto [four, runs4] = sweep(4);
    INFO("1 GPU: " << one << " s, " << runs1 << " runs; 4 GPUs: " << four << " s, " << runs4
                   << " runs");
    CHECK(four <= 0.35 * one);
    CHECK(static_cast<double>(runs4) <= 1.25 * static_cast<double>(runs1));
}
