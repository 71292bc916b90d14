// The daily stage in-process with the in-memory ports (tests/support/fakes): the boundary of a
// step, broken nightlies skipped, every run in the history once, and a sweep killed mid-way that
// resumes from its state directory without running a finished date again.
#include "app/daily.hpp"
#include "support/fakes/world.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

#include <string>

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
