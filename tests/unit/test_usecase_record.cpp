// `record` in-process with the in-memory ports (tests/support/fakes): the value from benchmark
// output, the label from the clock, bad input refused before anything is written, and the
// history's record line as `record --json` prints it.
#include "adapters/json/measurement_json.hpp"
#include "adapters/json/record_format.hpp"
#include "app/record.hpp"
#include "support/fakes/world.hpp"

#include <catch2/catch.hpp>

using namespace perfsweep;

namespace {

app::RecordRequest lbm_request() {
    app::RecordRequest r;
    r.history = "history.jsonl";
    r.base.benchmark = "lbm";
    r.base.metric = "MLUPS";
    r.base.unit = "MLUPS";
    return r;
}

} // namespace

TEST_CASE("record in-process: the metric from benchmark output, labelled with today's UTC date",
          "[usecase][record]") {
    fakes::World w;
    w.clock.t = 1715817600.75; // 2024-05-16T00:00:00.75Z
    w.files.files["bench.out"] = "warmup\nMLUPS: 577.25\nMLUPS: 578.5\ndone\n";
    auto r = lbm_request();
    r.output_file = "bench.out";
    r.match = app::MatchPolicy::last;
    r.commits = {"xla=0123abc"};
    const auto ms = app::run_record(r, w.adapters);
    REQUIRE(ms.size() == 1);
    const auto& m = ms.front();
    CHECK(m.label == "2024-05-16");
    CHECK(m.timestamp == "2024-05-16T00:00:00Z");
    CHECK(m.values == std::vector<double>{578.5});
    CHECK(m.log == "bench.out");
    const auto& stored = w.histories.at("history.jsonl").records;
    REQUIRE(stored.size() == 1);
    CHECK(fakes::same_record(stored[0], m));
    // `record --json` prints the history's own record line, which reads back as the same record.
    const auto line = adapters::measurement_to_json(m);
    const auto back = adapters::read_records(line + "\n", "record.json");
    REQUIRE(back.size() == 1);
    CHECK(fakes::same_record(back[0], m));

    SECTION("output without the metric is recorded as a failed measurement") {
        w.files.files["bench.out"] = "Segmentation fault\n";
        const auto fs = app::run_record(r, w.adapters);
        REQUIRE(fs.size() == 1);
        const auto& f = fs.front();
        CHECK(f.status == core::Status::failed);
        CHECK(f.values.empty());
        CHECK_THAT(f.reason, Catch::StartsWith("bench.out: "));
        CHECK(w.histories.at("history.jsonl").records.size() == 2);
    }
}

TEST_CASE("record in-process: bad input names the flag and writes nothing", "[usecase][record]") {
    fakes::World w;
    auto r = lbm_request();
    r.values = {"577", "nan"};
    CHECK_THROWS_WITH(app::run_record(r, w.adapters), Catch::Contains("--value 'nan'"));
    r.values = {"577"};
    r.output_file = "bench.out";
    CHECK_THROWS_WITH(app::run_record(r, w.adapters), Catch::Contains("not both"));
    r.output_file.clear();
    r.commits = {"xla"};
    CHECK_THROWS_WITH(app::run_record(r, w.adapters), Catch::Contains("--commit"));
    r.commits.clear();
    r.output_file = "missing.out";
    r.values.clear();
    CHECK_THROWS_WITH(app::run_record(r, w.adapters), Catch::Contains("missing.out"));
    CHECK(w.histories.at("history.jsonl").records.empty());
    CHECK(w.files.writes == 0);
}
