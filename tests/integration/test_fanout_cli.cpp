// End-to-end: `perfsweep plan` prints a GitHub Actions matrix, matrix jobs are simulated by real
// `perfsweep run --runtime none --json` calls of examples/scenarios/simbench.py, and
// `perfsweep merge` combines their files into a history and a daily result.

#include "support/json_doc.hpp"
#include "support/temp_dir.hpp"

#include <catch2/catch.hpp>
#include <rapidjson/document.h>

#include <algorithm>
#include <string>
#include <vector>

using namespace perfsweep::test;

namespace {

const std::string k_sim = std::string(PERFSWEEP_SOURCE_DIR) + "/examples/scenarios/simbench.py";

std::vector<std::string> labels_of(const rapidjson::Document& matrix) {
    std::vector<std::string> out;
    REQUIRE(matrix.HasMember("include"));
    for (const auto& e : matrix["include"].GetArray())
        out.emplace_back(e["label"].GetString());
    return out;
}

// 16 days from 2023-08-10, an 8 % drop from day 9 (08-19), day 5 (08-15) broken.
std::string write_scenario(const TempDir& dir) {
    const auto path = dir.file("scenario.json");
    write_file(path, R"({"name":"tiny","start":"2023-08-10","days":16,"base":500,"noise":0.003,
 "levels":[{"from":9,"level":0.92}],"broken":[5],"missing":[],"noisy":[]})");
    return path;
}

// One simulated matrix job: `perfsweep run --json` for `date`, its output written to a file.
std::string run_point(const TempDir& dir, const std::string& scenario, const std::string& date) {
    const auto r = run_perfsweep(
        {"run", "--runtime", "none", "--test",
         "python3 -S " + k_sim + " " + scenario + " {date} --counter-dir " + dir.file("counts"),
         "--benchmark", "sim", "--date", date, "--label", date, "--repeats", "3", "--logs",
         dir.file("logs"), "--json"});
    REQUIRE((r.exit_code == 0 || r.exit_code == 4));
    const auto path = dir.file("points/point-" + date + "/result.json");
    write_file(path, r.out);
    return path;
}

} // namespace

TEST_CASE("plan prints the dates and images of the daily stage as a matrix", "[fanout][cli]") {
    const auto r = run_perfsweep({"plan", "--stage", "daily", "--from", "2023-08-30", "--to",
                                  "2023-09-02", "--image", "ghcr.io/nvidia/jax:nightly-{date}"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const auto d = parse_json_object(r.out);
    CHECK(labels_of(d) ==
          std::vector<std::string>{"2023-08-30", "2023-08-31", "2023-09-01", "2023-09-02"});
    const auto& e = d["include"][2];
    CHECK(std::string(e["date"].GetString()) == "2023-09-01");
    CHECK(std::string(e["image"].GetString()) == "ghcr.io/nvidia/jax:nightly-2023-09-01");

    SECTION("--max-points spreads the points evenly, both ends included, and says so") {
        const auto c =
            run_perfsweep({"plan", "--from", "2023-08-01", "--to", "2023-08-31", "--image",
                           "reg/jax:jax-{yyyy}{mm}{dd}", "--max-points", "4"});
        REQUIRE(c.exit_code == 0);
        const auto m = parse_json_object(c.out);
        CHECK(labels_of(m) ==
              std::vector<std::string>{"2023-08-01", "2023-08-11", "2023-08-21", "2023-08-31"});
        CHECK(std::string(m["include"][1]["image"].GetString()) == "reg/jax:jax-20230811");
        CHECK(c.err.find("coarse round: 4 of 31 dates") != std::string::npos);
    }
    SECTION("more points than GitHub's 256-entry matrix limit is an error naming the limit") {
        const auto big = run_perfsweep({"plan", "--from", "2023-01-01", "--to", "2023-12-31"});
        CHECK(big.exit_code == 2);
        CHECK(big.out.empty());
        CHECK(big.err.find("365 points exceed") != std::string::npos);
        CHECK(big.err.find("256") != std::string::npos);
        const auto ok = run_perfsweep(
            {"plan", "--from", "2023-01-01", "--to", "2023-12-31", "--max-points", "256"});
        CHECK(ok.exit_code == 0);
        CHECK(labels_of(parse_json_object(ok.out)).size() == 256);
    }
    SECTION("bad dates and options name the flag") {
        const auto bad = run_perfsweep({"plan", "--from", "2023-13-01", "--to", "2023-12-31"});
        CHECK(bad.exit_code == 2);
        CHECK(bad.err.find("--from '2023-13-01'") != std::string::npos);
        const auto one = run_perfsweep(
            {"plan", "--from", "2023-01-01", "--to", "2023-01-31", "--max-points", "1"});
        CHECK(one.exit_code == 2);
        CHECK(one.err.find("--max-points 1") != std::string::npos);
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
    const auto r = run_perfsweep({"plan", "--from", "2023-08-01", "--to", "2023-08-05", "--history",
                                  hist, "--benchmark", "sim", "--exclude-measured"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    // 08-02 measured ok (left out); 08-03 failed and 08-04 another benchmark: still planned.
    CHECK(labels_of(parse_json_object(r.out)) ==
          std::vector<std::string>{"2023-08-01", "2023-08-03", "2023-08-04", "2023-08-05"});
    CHECK(r.err.find("1 date(s) already measured") != std::string::npos);
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
    REQUIRE(run_perfsweep({"merge", "--history", hist, dir.file("points")}).exit_code == 0);
    // Now the matrix (plan --exclude-measured) runs only new dates, in a fresh directory.
    const auto plan =
        run_perfsweep({"plan", "--from", "2023-08-10", "--to", "2023-08-25", "--max-points", "6",
                       "--history", hist, "--benchmark", "sim", "--exclude-measured"});
    REQUIRE(plan.exit_code == 0);
    const auto dates = labels_of(parse_json_object(plan.out));
    CHECK(std::find(dates.begin(), dates.end(), "2023-08-10") == dates.end());
    TempDir second("ps-fanout2");
    std::vector<std::string> args = {"merge",      "--history", hist,      "--from",
                                     "2023-08-10", "--json",    "--inputs"};
    for (const auto& d : {std::string("2023-08-19"), std::string("2023-08-25")})
        args.push_back(run_point(second, scenario, d));
    const auto m = run_perfsweep(args);
    INFO(m.err);
    // The boundary is found, but the changed interval still has a date to measure and the
    // 6 days after it one more for the 3-day coverage: the sweep is not finished, and merge
    // exits 4 like daily does (it used to exit 0).
    REQUIRE(m.exit_code == 4);
    CHECK(m.err.find("2 dates to measure next") != std::string::npos);
    const auto d = parse_json_object(m.out);
    REQUIRE(d["boundaries"].Size() == 1);
    CHECK(std::string(d["boundaries"][0]["last_before"].GetString()) == "2023-08-14");
    CHECK(std::string(d["boundaries"][0]["first_after"].GetString()) == "2023-08-19");
    CHECK(m.err.find("3 dates taken from it") != std::string::npos);
}

TEST_CASE("merge rejects bad inputs naming the file and line", "[fanout][cli]") {
    TempDir dir("ps-fanout");
    const auto good = R"({"benchmark":"sim","metric":"MLUPS","values":[500],)"
                      R"("label":"2023-08-10","timestamp":"2023-08-10T10:00:00Z","status":"ok"})";
    SECTION("an empty file") {
        write_file(dir.file("empty.json"), "\n");
        const auto r = run_perfsweep({"merge", dir.file("empty.json")});
        CHECK(r.exit_code == 2);
        CHECK(r.err.find("empty.json: empty") != std::string::npos);
    }
    SECTION("a broken line of a JSON Lines file") {
        write_file(dir.file("points.jsonl"), std::string(good) + "\n{\"benchmark\": \n");
        const auto r = run_perfsweep({"merge", dir.file("points.jsonl")});
        CHECK(r.exit_code == 2);
        CHECK(r.err.find("points.jsonl:2") != std::string::npos);
    }
    SECTION("a label that is not a date") {
        write_file(dir.file("r.json"),
                   R"({"benchmark":"sim","metric":"MLUPS","values":[1],"label":"nightly",)"
                   R"("timestamp":"2023-08-10T10:00:00Z","status":"ok"})");
        const auto r = run_perfsweep({"merge", dir.file("r.json")});
        CHECK(r.exit_code == 2);
        CHECK(r.err.find("r.json: label 'nightly' is not a date") != std::string::npos);
    }
    SECTION("two benchmarks mixed") {
        write_file(dir.file("a.json"), good);
        write_file(dir.file("b.json"),
                   R"({"benchmark":"other","metric":"MLUPS","values":[1],"label":"2023-08-11",)"
                   R"("timestamp":"2023-08-11T10:00:00Z","status":"ok"})");
        const auto r = run_perfsweep({"merge", dir.file("a.json"), dir.file("b.json")});
        CHECK(r.exit_code == 2);
        CHECK(r.err.find("b.json: benchmark 'other'") != std::string::npos);
        const auto only =
            run_perfsweep({"merge", "--benchmark", "sim", dir.file("a.json"), dir.file("b.json")});
        CHECK(only.exit_code == 0);
    }
    SECTION("a path that does not exist, and nothing appended on error") {
        write_file(dir.file("a.json"), good);
        const auto hist = dir.file("h.jsonl");
        const auto r = run_perfsweep(
            {"merge", "--history", hist, dir.file("a.json"), dir.file("missing.json")});
        CHECK(r.exit_code == 2);
        CHECK(r.err.find("missing.json: no such file") != std::string::npos);
        const auto none = run_perfsweep({"merge"});
        CHECK(none.exit_code == 2);
    }
}
