// Many series in one step (issue 25): what a series is and how older points join it
// (core/series), `detect` over every series of a real 26-series github-action-benchmark history
// with each verdict equal to its single-series call, several metrics of one benchmark output, and
// the loud failures of detect and record (a missing history, a series that does not exist).
#include "adapters/json/result_json.hpp"
#include "app/detect.hpp"
#include "app/record.hpp"
#include "app/report.hpp"
#include "core/series.hpp"
#include "report/markdown.hpp"
#include "report/result_json.hpp"
#include "report/series_table.hpp"
#include "support/fakes/world.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

using namespace perfsweep;

namespace {

core::Measurement point(const std::string& bench, const std::string& gpu, double v,
                        const std::string& label) {
    core::Measurement m;
    m.benchmark = bench;
    m.metric = "MLUPS";
    m.label = label;
    m.values = {v};
    if (!gpu.empty())
        m.runner["gpu"] = gpu;
    return m;
}

std::string read_source(const std::string& rel) {
    std::ifstream f(std::string(PERFSWEEP_SOURCE_DIR) + "/" + rel, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

} // namespace

TEST_CASE("the default benchmark name is the program or script, whatever its arguments",
          "[core][series]") {
    CHECK(core::default_benchmark_name("bash bench/run.sh 256 200") == "run.sh");
    CHECK(core::default_benchmark_name("bash bench/run.sh 512 100") == "run.sh");
    CHECK(core::default_benchmark_name("sh /bench/run.sh") == "run.sh");
    CHECK(core::default_benchmark_name("python3 -u MLUPS3d.py 256 200") == "MLUPS3d.py");
    CHECK(core::default_benchmark_name("python3 -m xlb.bench --size 256") == "xlb.bench");
    CHECK(core::default_benchmark_name("env XLA_FLAGS=--x python3.11 b.py {gpu}") == "b.py");
    CHECK(core::default_benchmark_name("CUDA_VISIBLE_DEVICES={gpu} ./lbm --size 256") == "lbm");
    CHECK(core::default_benchmark_name("'unclosed ./x") == "'unclosed");
    CHECK(core::is_legacy_command_name("bash examples/jax/test.sh 256 200"));
    CHECK(core::is_legacy_command_name("MLUPS3d.py 256 200"));
    CHECK_FALSE(core::is_legacy_command_name("Rust Benchmark"));
    CHECK_FALSE(core::is_legacy_command_name("Compilation Memory"));
    CHECK_FALSE(core::is_legacy_command_name("run.sh"));
}

TEST_CASE("group_series: older names join their series, two GPU types never pool",
          "[core][series]") {
    std::vector<core::Measurement> all;
    // earlier versions stored the whole test command as the benchmark name
    all.push_back(point("bash bench/run.sh 256 200", "NVIDIA H100 80GB HBM3", 100, "d1"));
    all.push_back(point("run.sh", "NVIDIA H100 80GB HBM3", 101, "d2"));
    // a CSV import without --benchmark and without a GPU
    all.push_back(point("", "", 99, "d0"));
    // another GPU type: its own series
    all.push_back(point("run.sh", "NVIDIA A100-SXM4-80GB", 50, "d2"));
    const auto s = core::group_series(all);
    // The unnamed point takes the one benchmark name of its metric, but with two known testbeds
    // it cannot tell which: it stays a series of its own, without a testbed.
    REQUIRE(s.size() == 3);
    CHECK(core::to_string(s[0].key) == "run.sh · MLUPS");
    CHECK(s[0].points.size() == 1);
    CHECK(core::to_string(s[1].key) == "run.sh · MLUPS · A100-SXM4-80GB");
    CHECK(s[1].points.size() == 1);
    CHECK(core::to_string(s[2].key) == "run.sh · MLUPS · H100 80GB HBM3");
    CHECK(s[2].points.size() == 2);
    REQUIRE(s[2].notes.size() == 1);
    CHECK_THAT(s[2].notes[0], Catch::Contains("'bash bench/run.sh 256 200'"));

    // Without the A100 points the unnamed, GPU-less point has one place to go: it joins, said so.
    all.pop_back();
    const auto one = core::group_series(all);
    REQUIRE(one.size() == 1);
    CHECK(one[0].points.size() == 3);
    CHECK(one[0].notes.size() == 2);
    // Two different command lines of one script are two benchmarks: neither is folded, and the
    // unnamed point has three names to choose from: it stays apart too.
    all.push_back(point("bash bench/run.sh 512 100", "NVIDIA H100 80GB HBM3", 40, "d3"));
    const auto apart = core::group_series(all);
    REQUIRE(apart.size() == 4);
    CHECK(apart[0].key.benchmark.empty());
    CHECK(apart[1].key.benchmark == "bash bench/run.sh 256 200");
    CHECK(apart[2].key.benchmark == "bash bench/run.sh 512 100");
    CHECK(apart[3].key.benchmark == "run.sh");
}

TEST_CASE("detect over a real 26-series history: one table, each verdict its single call's",
          "[usecase][detect][series]") {
    fakes::World w;
    fakes::import_file(w, "noir.data.js", read_source("bench/data/noir.data.js"), "history.jsonl");

    app::DetectRequest all;
    all.history = "history.jsonl";
    all.empty_history_inconclusive = true;
    const auto out = app::run_detect_all(all, w.adapters);
    REQUIRE(out.series.size() == 26);
    std::size_t regressions = 0;
    for (const auto& s : out.series) {
        app::DetectRequest one = all;
        one.benchmark = s.key.benchmark;
        one.metric = s.key.metric;
        const auto single = app::run_detect(one, w.adapters);
        INFO(core::to_string(s.key));
        CHECK(single.result.verdict == s.result.verdict);
        CHECK(single.result.points == s.result.points);
        CHECK(single.result.change_points.size() == s.result.change_points.size());
        regressions += s.result.verdict == core::Verdict::regression ? 1 : 0;
    }
    const auto outputs = app::detect_all_outputs(out);
    CHECK(outputs.at("series") == "26");
    CHECK(outputs.at("regressions") == std::to_string(regressions));
    CHECK(outputs.at("verdict") == core::to_string(core::worst_verdict(out.series)));

    SECTION("report --input renders the many-series document: the table detect writes") {
        const std::string doc = report::render_series_json(out.series);
        const auto back = adapters::read_series_document(doc, "d.json");
        REQUIRE(back);
        REQUIRE(back->size() == 26);
        app::ReportRequest rr;
        rr.input = "d.json";
        CHECK(app::make_series_report(rr, *back, w.files) ==
              report::marker_for_key("default") + "\n" +
                  report::render_series_markdown(out.series));
        rr.format = "json";
        CHECK(app::make_series_report(rr, *back, w.files) == doc);
        // Where one result is expected, the error names the file and the document's kind.
        CHECK_THROWS_WITH(adapters::read_result_document(doc, "d.json"),
                          Catch::StartsWith("d.json: ") && Catch::Contains("detect-series"));
        const core::ResultDocument one = out.series.front().result;
        CHECK_FALSE(adapters::read_series_document(report::render_json(one), "one.json"));
    }
    SECTION("a series that does not exist is an error listing the ones there are") {
        app::DetectRequest none = all;
        none.metric = "no such metric";
        CHECK_THROWS_WITH(app::run_detect_all(none, w.adapters),
                          Catch::Contains("matches --metric 'no such metric'") &&
                              Catch::Contains("Compilation Memory"));
    }
}

TEST_CASE("detect: a missing history file is an error; an empty git history is the first night",
          "[usecase][detect][series]") {
    fakes::World w;
    app::DetectRequest r;
    r.history = "histroy.jsonl"; // mistyped
    r.empty_history_inconclusive = true;
    CHECK_THROWS_WITH(app::run_detect_all(r, w.adapters),
                      Catch::Contains("'histroy.jsonl' does not exist"));
    r.history = "git:perfsweep-data";
    const auto first = app::run_detect_all(r, w.adapters);
    CHECK(first.series.empty());
    CHECK_THAT(first.empty_reason, Catch::Contains("first night"));
}

TEST_CASE("record: several metrics of one output, each its own series; a missing one fails",
          "[usecase][record][series]") {
    fakes::World w;
    w.files.files["out.txt"] = "MLUPS_128: 5505.5\nMLUPS_256: 5670.25\nnoise\nMLUPS_128: 5507\n";
    app::RecordRequest r;
    r.history = "h.jsonl";
    r.base.benchmark = "lbm";
    r.base.metric = "MLUPS_128";
    r.output_file = "out.txt";
    r.metrics = {"MLUPS_128", "MLUPS_256"};
    auto ms = app::run_record(r, w.adapters);
    REQUIRE(ms.size() == 2);
    CHECK(ms[0].metric == "MLUPS_128");
    CHECK(ms[0].values == std::vector<double>{5505.5, 5507});
    CHECK(ms[1].metric == "MLUPS_256");
    CHECK(ms[1].values == std::vector<double>{5670.25});
    CHECK(w.histories.at("h.jsonl").records.size() == 2);

    SECTION("a (?<name>...) group names the metric of each match") {
        r.metrics.clear();
        r.metric_regex = R"((?<name>MLUPS_\d+):\s*([0-9.]+))";
        ms = app::run_record(r, w.adapters);
        REQUIRE(ms.size() == 2);
        CHECK(ms[0].metric == "MLUPS_128");
        CHECK(ms[0].values.size() == 2);
        CHECK(ms[1].metric == "MLUPS_256");
    }
    SECTION("a metric the output lacks is a failed point of its own") {
        r.metrics = {"MLUPS_128", "GFLOPS"};
        ms = app::run_record(r, w.adapters);
        REQUIRE(ms.size() == 2);
        CHECK(ms[0].status == core::Status::ok);
        CHECK(ms[1].status == core::Status::failed);
        CHECK_THAT(ms[1].reason, Catch::StartsWith("out.txt: "));
    }
    SECTION("--testbed is stored as the runner's testbed") {
        r.metrics = {"MLUPS_256"};
        r.testbed = "dgx-h100";
        ms = app::run_record(r, w.adapters);
        CHECK(core::testbed_of(ms.at(0)) == "dgx-h100");
    }
}

TEST_CASE("detect --metric decodes only that metric's records, and older names still join; a "
          "series not there lists every series",
          "[usecase][detect][series]") {
    // detect with --metric reads the history through load_matching (a JSON Lines history skips
    // the other metrics' lines undecoded: issue 29, 1e6 points): every fold of group_series stays
    // within one metric, so the points stored under an older name or without one still join.
    fakes::World w;
    std::vector<core::Measurement> all;
    for (int d = 0; d < 6; ++d) {
        const std::string label = "d" + std::to_string(d);
        all.push_back(point(d < 3 ? "bash bench/run.sh 256 200" : "run.sh", "NVIDIA H100 80GB HBM3",
                            d < 4 ? 100 : 80, label));
        auto other = point("train.py", "NVIDIA H100 80GB HBM3", 5, label);
        other.metric = "step_time";
        all.push_back(other);
    }
    w.histories.open("h.jsonl")->append(all);
    app::DetectRequest r;
    r.history = "h.jsonl";
    r.metric = "MLUPS";
    r.benchmark = "run.sh";
    const auto out = app::run_detect_all(r, w.adapters);
    REQUIRE(out.series.size() == 1);
    CHECK(out.series[0].result.points == 6); // 3 of them stored under the command line
    r.benchmark = "lbm";
    CHECK_THROWS_WITH(app::run_detect_all(r, w.adapters),
                      Catch::Contains("matches --benchmark 'lbm' --metric 'MLUPS'") &&
                          Catch::Contains("train.py"));
}
