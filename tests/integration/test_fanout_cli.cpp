// The fan-out in-process, on real files and a real JSON Lines history: `plan`'s matrix
// (app::plan_daily_matrix), matrix jobs simulated by real runs of examples/scenarios/simbench.py
// (the process runner with runtime none, as `perfsweep run --runtime none --json` runs them), and
// `merge` combining their files into a history and a daily result (app::merge_points). Options
// are resolved by the CLI's rules (support/command_values).

#include "adapters/history/jsonl_store.hpp"
#include "adapters/json/measurement_json.hpp"
#include "adapters/json/record_format.hpp"
#include "adapters/process/process_runner.hpp"
#include "adapters/system/local_files.hpp"
#include "app/fanout.hpp"
#include "app/options.hpp"
#include "app/options_data.hpp"
#include "app/run_point.hpp"
#include "core/exit_policy.hpp"
#include "report/result_json.hpp"
#include "support/command_values.hpp"
#include "support/json_doc.hpp"
#include "support/recording_progress.hpp"
#include "support/temp_dir.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>
#include <rapidjson/document.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

using namespace perfsweep;
using namespace perfsweep::test;

namespace {

using Options = std::vector<std::pair<std::string, std::string>>;

const std::string k_sim = std::string(PERFSWEEP_SOURCE_DIR) + "/examples/scenarios/simbench.py";

std::vector<std::string> labels_of(const rapidjson::Document& matrix) {
    std::vector<std::string> out;
    REQUIRE(matrix.HasMember("include"));
    for (const auto& e : matrix["include"].GetArray())
        out.emplace_back(e["label"].GetString());
    return out;
}

/// What `perfsweep plan` made: the matrix it prints and the lines it writes to stderr.
struct Planned {
    rapidjson::Document matrix;
    std::vector<std::string> notes;
};

/// `perfsweep plan` with `options`, in-process.
Planned plan(const Options& options) {
    const auto c = app::resolve_plan(command_values("plan", options));
    std::unique_ptr<adapters::JsonlHistoryStore> history;
    if (!c.history.empty())
        history = std::make_unique<adapters::JsonlHistoryStore>(c.history);
    auto p = app::plan_daily_matrix(c.options, history.get());
    return {parse_json_object(app::matrix_json(p.entries)), p.notes};
}

/// `perfsweep merge` with `options` (positional paths as "inputs"), in-process.
app::MergeResult merge(const Options& options) {
    const auto c = app::resolve_merge(command_values("merge", options));
    adapters::LocalFiles files;
    std::vector<app::MergeInput> inputs;
    for (const auto& p : c.paths)
        for (const auto& file : files.result_files(p))
            inputs.push_back({file, adapters::read_records(files.read_text(file), file)});
    std::unique_ptr<adapters::JsonlHistoryStore> history;
    if (!c.history.empty())
        history = std::make_unique<adapters::JsonlHistoryStore>(c.history);
    return app::merge_points(inputs, c.options, history.get());
}

// 16 days from 2023-08-10, an 8 % drop from day 9 (08-19), day 5 (08-15) broken.
std::string write_scenario(const TempDir& dir) {
    const auto path = dir.file("scenario.json");
    write_file(path, R"({"name":"tiny","start":"2023-08-10","days":16,"base":500,"noise":0.003,
 "levels":[{"from":9,"level":0.92}],"broken":[5],"missing":[],"noisy":[]})");
    return path;
}

// One simulated matrix job: `perfsweep run --runtime none --json` for `date` (the real process
// runner and the simulated benchmark), the JSON lines it prints written to a file.
std::string run_point(const TempDir& dir, const std::string& scenario, const std::string& date) {
    const auto r = app::resolve_run(
        command_values("run", {{"runtime", "none"},
                               {"test", "python3 -S " + k_sim + " " + scenario +
                                            " {date} --counter-dir " + dir.file("counts")},
                               {"benchmark", "sim"},
                               {"date", date},
                               {"label", date},
                               {"repeats", "3"},
                               {"logs", dir.file("logs")},
                               {"json", ""}}),
        0);
    RecordingProgress progress;
    adapters::SystemClock clock;
    adapters::ProcessRunner runner(r.runner, progress, clock);
    std::string out;
    for (const auto& m : app::run_point_metrics(runner, nullptr, r.point, nullptr))
        out += adapters::measurement_to_json(m) + "\n";
    const auto path = dir.file("points/point-" + date + "/result.json");
    write_file(path, out);
    return path;
}

} // namespace

TEST_CASE("plan prints the dates and images of the daily stage as a matrix", "[fanout][cli]") {
    const auto r = plan({{"stage", "daily"},
                         {"from", "2023-08-30"},
                         {"to", "2023-09-02"},
                         {"image", "ghcr.io/nvidia/jax:nightly-{date}"}});
    const auto& d = r.matrix;
    CHECK(labels_of(d) ==
          std::vector<std::string>{"2023-08-30", "2023-08-31", "2023-09-01", "2023-09-02"});
    const auto& e = d["include"][2];
    CHECK(std::string(e["date"].GetString()) == "2023-09-01");
    CHECK(std::string(e["image"].GetString()) == "ghcr.io/nvidia/jax:nightly-2023-09-01");

    SECTION("--max-points spreads the points evenly, both ends included, and says so") {
        const auto c = plan({{"from", "2023-08-01"},
                             {"to", "2023-08-31"},
                             {"image", "reg/jax:jax-{yyyy}{mm}{dd}"},
                             {"max-points", "4"}});
        const auto& m = c.matrix;
        CHECK(labels_of(m) ==
              std::vector<std::string>{"2023-08-01", "2023-08-11", "2023-08-21", "2023-08-31"});
        CHECK(std::string(m["include"][1]["image"].GetString()) == "reg/jax:jax-20230811");
        CHECK(std::any_of(c.notes.begin(), c.notes.end(), [](const std::string& n) {
            return n.find("coarse round: 4 of 31 dates") != std::string::npos;
        }));
    }
    SECTION("more points than GitHub's 256-entry matrix limit is an error naming the limit") {
        const auto big = usage_error_of([] {
            plan({{"from", "2023-01-01"}, {"to", "2023-12-31"}});
        });
        CHECK(big.find("365 points exceed") != std::string::npos);
        CHECK(big.find("256") != std::string::npos);
        const auto ok = plan({{"from", "2023-01-01"}, {"to", "2023-12-31"}, {"max-points", "256"}});
        CHECK(labels_of(ok.matrix).size() == 256);
    }
    SECTION("bad dates and options name the flag") {
        const auto bad = usage_error_of([] {
            plan({{"from", "2023-13-01"}, {"to", "2023-12-31"}});
        });
        CHECK(bad.find("--from '2023-13-01'") != std::string::npos);
        const auto one = usage_error_of([] {
            plan({{"from", "2023-01-01"}, {"to", "2023-01-31"}, {"max-points", "1"}});
        });
        CHECK(one.find("--max-points 1") != std::string::npos);
    }
}

TEST_CASE("plan --exclude-measured leaves out dates measured ok in the history", "[fanout][cli]") {
    TempDir dir("ps-fanout");
    const auto hist = dir.file("history.jsonl");
    auto record = [](const std::string& bench, const std::string& date, const std::string& status,
                     const std::string& values) {
        return R"({"benchmark":")" + bench + R"(","metric":"MLUPS","values":)" + values +
               R"(,"label":")" + date + R"(","timestamp":")" + date + R"(T10:00:00Z","status":")" +
               status + "\"}\n";
    };
    write_file(hist, record("sim", "2023-08-02", "ok", "[500]") +
                         record("sim", "2023-08-03", "failed", "[]") +
                         record("other", "2023-08-04", "ok", "[7]"));
    const auto r = plan({{"from", "2023-08-01"},
                         {"to", "2023-08-05"},
                         {"history", hist},
                         {"benchmark", "sim"},
                         {"exclude-measured", ""}});
    // 08-02 measured ok (left out); 08-03 failed and 08-04 another benchmark: still planned.
    CHECK(labels_of(r.matrix) ==
          std::vector<std::string>{"2023-08-01", "2023-08-03", "2023-08-04", "2023-08-05"});
    CHECK(std::any_of(r.notes.begin(), r.notes.end(), [](const std::string& n) {
        return n.find("1 date(s) already measured") != std::string::npos;
    }));
}

// The merge of a whole matrix round (step found, failed date listed, idempotent re-merge, report
// --input of its JSON) is tested in-process: tests/unit/test_usecase_fanout.cpp.

TEST_CASE("merge takes dates the matrix left out from the history", "[fanout][cli]") {
    TempDir dir("ps-fanout");
    const auto scenario = write_scenario(dir);
    const auto hist = dir.file("history.jsonl");
    // Earlier sweep: 08-10, 08-12 and 08-14 measured (every 3 days at most: the coverage is
    // complete), merged into the history.
    for (const auto* d : {"2023-08-10", "2023-08-12", "2023-08-14"})
        run_point(dir, scenario, d);
    REQUIRE(core::sweep_exit_code(
                merge({{"history", hist}, {"inputs", dir.file("points")}}).daily) == 0);
    // Now the matrix (plan --exclude-measured) runs only new dates, in a fresh directory.
    const auto planned = plan({{"from", "2023-08-10"},
                               {"to", "2023-08-25"},
                               {"max-points", "6"},
                               {"history", hist},
                               {"benchmark", "sim"},
                               {"exclude-measured", ""}});
    const auto dates = labels_of(planned.matrix);
    CHECK(std::find(dates.begin(), dates.end(), "2023-08-10") == dates.end());
    TempDir second("ps-fanout2");
    Options args = {{"history", hist}, {"from", "2023-08-10"}, {"json", ""}};
    for (const auto& d : {std::string("2023-08-19"), std::string("2023-08-25")})
        args.emplace_back("inputs", run_point(second, scenario, d));
    const auto m = merge(args);
    // The boundary is found, but the changed interval still has a date to measure and the
    // 6 days after it one more for the 3-day coverage: the sweep is not finished, and merge
    // exits 4 like daily does (it used to exit 0).
    CHECK(core::sweep_exit_code(m.daily) == 4);
    CHECK(m.next.size() == 2);
    const auto d = parse_json_object(report::render_json(m.daily)); // what merge --json prints
    REQUIRE(d["boundaries"].Size() == 1);
    CHECK(std::string(d["boundaries"][0]["last_before"].GetString()) == "2023-08-14");
    CHECK(std::string(d["boundaries"][0]["first_after"].GetString()) == "2023-08-19");
    CHECK(m.from_history == 3);
}

TEST_CASE("merge rejects bad inputs naming the file and line", "[fanout][cli]") {
    TempDir dir("ps-fanout");
    const auto good = R"({"benchmark":"sim","metric":"MLUPS","values":[500],)"
                      R"("label":"2023-08-10","timestamp":"2023-08-10T10:00:00Z","status":"ok"})";
    auto merge_error = [](const Options& options) {
        return usage_error_of([&] { merge(options); });
    };
    SECTION("an empty file") {
        write_file(dir.file("empty.json"), "\n");
        CHECK(merge_error({{"inputs", dir.file("empty.json")}}).find("empty.json: empty") !=
              std::string::npos);
    }
    SECTION("a broken line of a JSON Lines file") {
        write_file(dir.file("points.jsonl"), std::string(good) + "\n{\"benchmark\": \n");
        CHECK(merge_error({{"inputs", dir.file("points.jsonl")}}).find("points.jsonl:2") !=
              std::string::npos);
    }
    SECTION("a label that is not a date") {
        write_file(dir.file("r.json"),
                   R"({"benchmark":"sim","metric":"MLUPS","values":[1],"label":"nightly",)"
                   R"("timestamp":"2023-08-10T10:00:00Z","status":"ok"})");
        CHECK(merge_error({{"inputs", dir.file("r.json")}})
                  .find("r.json: label 'nightly' is not a date") != std::string::npos);
    }
    SECTION("two benchmarks mixed") {
        write_file(dir.file("a.json"), good);
        write_file(dir.file("b.json"),
                   R"({"benchmark":"other","metric":"MLUPS","values":[1],"label":"2023-08-11",)"
                   R"("timestamp":"2023-08-11T10:00:00Z","status":"ok"})");
        CHECK(merge_error({{"inputs", dir.file("a.json")}, {"inputs", dir.file("b.json")}})
                  .find("b.json: benchmark 'other'") != std::string::npos);
        const auto only = merge(
            {{"benchmark", "sim"}, {"inputs", dir.file("a.json")}, {"inputs", dir.file("b.json")}});
        CHECK(core::sweep_exit_code(only.daily) == 0);
    }
    SECTION("a path that does not exist, and nothing appended on error") {
        write_file(dir.file("a.json"), good);
        const auto hist = dir.file("h.jsonl");
        CHECK(merge_error({{"history", hist},
                           {"inputs", dir.file("a.json")},
                           {"inputs", dir.file("missing.json")}})
                  .find("missing.json: no such file") != std::string::npos);
        merge_error({});
    }
}
