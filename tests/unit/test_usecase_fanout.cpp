// The distributed fan-out in-process with the in-memory ports (tests/support/fakes): `plan`'s
// matrix, one scripted matrix job per date writing its record like `run --json`, and `merge`
// into the history and a daily result, idempotent on a second merge. The binary's own plan, run
// and merge stay covered by tests/integration/test_fanout_cli.cpp.
#include "adapters/json/measurement_json.hpp"
#include "adapters/json/record_format.hpp"
#include "adapters/json/result_json.hpp"
#include "app/fanout.hpp"
#include "app/report.hpp"
#include "report/result_json.hpp"
#include "support/fakes/world.hpp"

#include <catch2/catch.hpp>

using namespace perfsweep;

TEST_CASE("merge in-process: matrix results find the step and are recorded idempotently",
          "[usecase][fanout]") {
    fakes::World w;
    // 16 days from 2023-08-10, an 8 % drop from 08-19, 08-15 broken (exit 1).
    w.runners.run = [](const ports::PointRequest& r, int repeat) {
        if (r.label == "2023-08-15")
            return fakes::Run::failed();
        const double level = r.label < "2023-08-19" ? 500.0 : 460.0;
        return fakes::Run::of(level * (1 + 0.003 * ((repeat * 5 + r.label.back()) % 3 - 1)));
    };
    // A coarse round of the matrix plus the dates around the step.
    app::PlanOptions po;
    po.dates = {*util::parse_day("2023-08-10"), *util::parse_day("2023-08-25")};
    po.max_points = 6;
    const auto plan = app::plan_daily_matrix(po, nullptr);
    std::vector<std::string> dates;
    for (const auto& e : plan.entries)
        dates.push_back(e.front().second);
    REQUIRE(dates == std::vector<std::string>{"2023-08-10", "2023-08-13", "2023-08-16",
                                              "2023-08-19", "2023-08-22", "2023-08-25"});
    for (const auto* extra : {"2023-08-15", "2023-08-17", "2023-08-18"})
        dates.emplace_back(extra);
    // Each matrix job: `perfsweep run --json` of its date, uploaded as points/point-D/result.json.
    ports::RunnerConfig rc;
    rc.metric = "MLUPS";
    rc.benchmark = "sim";
    auto runner = w.runners.make(rc);
    for (const auto& d : dates) {
        ports::PointRequest req;
        req.label = d;
        req.values["date"] = d;
        req.repeats = 3;
        const auto m = runner->run_points({req}).at(0);
        w.files.write_atomic("points/point-" + d + "/result.json",
                             adapters::measurement_to_json(m) + "\n");
    }

    auto merge = [&](const std::vector<std::string>& paths) {
        std::vector<app::MergeInput> inputs;
        for (const auto& p : paths)
            for (const auto& f : w.files.result_files(p))
                inputs.push_back({f, adapters::read_records(w.files.read_text(f), f)});
        app::MergeOptions mo;
        mo.benchmark = "sim";
        auto history = w.histories.open("history.jsonl");
        return app::merge_points(inputs, mo, history.get());
    };
    const auto m = merge({"points"});
    CHECK(m.daily.from == "2023-08-10");
    CHECK(m.daily.to == "2023-08-25");
    REQUIRE(m.daily.sweep.boundaries.size() == 1);
    const auto& b = m.daily.sweep.boundaries[0];
    CHECK(m.daily.sweep.points[b.last_before].label == "2023-08-18");
    CHECK(m.daily.sweep.points[b.first_after].label == "2023-08-19");
    CHECK(b.kind == core::ChangeKind::regression);
    CHECK(b.relative_change == Approx(-0.08).margin(0.01));
    bool broken_listed = false;
    for (const auto& p : m.daily.sweep.points)
        if (p.label == "2023-08-15")
            broken_listed = p.status == core::Status::failed;
    CHECK(broken_listed);
    CHECK(m.records == 9);
    CHECK(m.appended == 9);
    const auto stored = w.histories.at("history.jsonl").records;

    // The daily JSON is what `perfsweep report --input` renders.
    w.files.write_atomic("daily.json", report::render_json(m.daily));
    app::ReportRequest rr;
    rr.input = "daily.json";
    const auto doc = adapters::read_result_document(w.files.read_text(rr.input), rr.input);
    CHECK_THAT(app::make_report(rr, doc, w.files), Catch::Contains("2023-08-19"));

    // Merging the same files again (one file listed twice) adds nothing.
    const auto again = merge({"points", "points/point-2023-08-10/result.json"});
    CHECK(again.appended == 0);
    CHECK(again.already == 10);
    CHECK(w.histories.at("history.jsonl").records.size() == stored.size());
    REQUIRE(again.daily.sweep.boundaries.size() == 1);
    CHECK(again.daily.sweep.points[again.daily.sweep.boundaries[0].first_after].label ==
          "2023-08-19");
}
