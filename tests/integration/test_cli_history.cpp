#include "support/temp_dir.hpp"

#include <catch2/catch.hpp>
#include <rapidjson/document.h>

#include <algorithm>
#include <cstdio>
#include <string>

using namespace perfsweep;

namespace {
const std::string k_example = std::string(PERFSWEEP_SOURCE_DIR) + "/examples/history/xlb-mlups.csv";

/// A CSV history of `n` points at `level`, then `m` points at `level2`.
std::string csv(int n, double level, int m, double level2) {
    std::string s = "label,value\n";
    for (int i = 0; i < n + m; ++i) {
        const double base = i < n ? level : level2;
        s += "p" + std::to_string(100 + i) + "," +
             std::to_string(base * (1 + 0.001 * (i % 3 - 1))) + "\n";
    }
    return s;
}
} // namespace

TEST_CASE("record --value and --benchmark-output append to the history", "[cli][record]") {
    test::TempDir dir;
    const auto h = dir.file("h.jsonl");
    auto r = test::run_perfsweep({"record",
                                  "--history",
                                  h,
                                  "--metric",
                                  "MLUPS",
                                  "--benchmark",
                                  "MLUPS3d.py 256 200",
                                  "--label",
                                  "2023-08-24",
                                  "--value",
                                  "577.3",
                                  "--value",
                                  "577.1",
                                  "--commit",
                                  "jax=abc123",
                                  "--runner",
                                  "gpu=H200",
                                  "--image",
                                  "ghcr.io/nvidia/jax:nightly",
                                  "--digest",
                                  "sha256:00"});
    REQUIRE(r.exit_code == 0);
    test::write_file(dir.file("out.txt"), "step 1\n\x1b[1;32mMLUPS:\x1b[0m 540.5\nMLUPS: 541.5\n");
    r = test::run_perfsweep({"record", "--history", h, "--metric", "MLUPS", "--label", "2023-08-25",
                             "--benchmark-output", dir.file("out.txt")});
    REQUIRE(r.exit_code == 0);
    r = test::run_perfsweep({"record", "--history", h, "--metric", "MLUPS", "--label", "2023-08-26",
                             "--benchmark-output", "-", "--match", "last"},
                            {}, "MLUPS: 1\nMLUPS: 2\n");
    REQUIRE(r.exit_code == 0);
    // An output without the metric is kept as a failed point, and the command fails loudly.
    r = test::run_perfsweep({"record", "--history", h, "--metric", "MLUPS", "--label", "2023-08-27",
                             "--benchmark-output", "-"},
                            {}, "Traceback (most recent call last):\n");
    REQUIRE(r.exit_code == 4);
    CHECK_THAT(r.err, Catch::Contains("no value of MLUPS for point '2023-08-27'"));
    const auto text = test::read_file(h);
    CHECK_THAT(text, Catch::Contains("\"values\":[577.3,577.1]"));
    CHECK_THAT(text, Catch::Contains("\"jax\":\"abc123\""));
    CHECK_THAT(text, Catch::Contains("\"gpu\":\"H200\""));
    CHECK_THAT(text, Catch::Contains("\"digest\":\"sha256:00\""));
    CHECK_THAT(text, Catch::Contains("\"values\":[540.5,541.5]"));
    CHECK_THAT(text, Catch::Contains("\"values\":[2.0]"));
    CHECK_THAT(text, Catch::Contains("\"status\":\"failed\""));
    CHECK_THAT(text, Catch::Contains("no line of the output matches"));
}

TEST_CASE("bad input is refused with exit 2 and never modifies the history", "[cli][record]") {
    test::TempDir dir;
    const auto h = dir.file("h.jsonl");
    REQUIRE(test::run_perfsweep({"record", "--history", h, "--metric", "MLUPS", "--value", "1"})
                .exit_code == 0);
    const std::string before = test::read_file(h);
    test::write_file(dir.file("bad.csv"), "label,value\na,1\nb,oops\n");
    test::write_file(dir.file("good.csv"), "label,value\nc,3\n");
    const std::vector<std::vector<std::string>> bad = {
        {"record", "--history", h, "--metric", "MLUPS", "--value", "fast"},
        {"record", "--history", h, "--metric", "MLUPS", "--value", "nan"},
        {"record", "--history", h, "--metric", "MLUPS", "--value", "1", "--commit", "jax"},
        {"record", "--history", h, "--metric", "MLUPS", "--value", "1", "--status", "meh"},
        {"record", "--history", h, "--metric", "MLUPS", "--value", "1", "--direction", "up"},
        {"record", "--history", h, "--metric", "MLUPS"},
        {"record", "--history", h, "--metric", "MLUPS", "--benchmark-output", dir.file("none.txt")},
        {"record", "--history", h, "--metric", "MLUPS", "--benchmark-output", "-", "--metric-regex",
         "nogroup"},
        {"import", "--history", h, "--metric", "MLUPS", dir.file("good.csv"), dir.file("bad.csv")},
        {"import", "--history", h, "--metric", "MLUPS", "--format", "xml", dir.file("good.csv")},
        {"import", "--history", h, dir.file("good.csv")}, // csv needs --metric
    };
    for (const auto& args : bad) {
        // Only the stdin case gets input: a child that never reads would raise SIGPIPE here.
        const bool reads_stdin = std::find(args.begin(), args.end(), "-") != args.end();
        auto r = test::run_perfsweep(args, {}, reads_stdin ? "MLUPS: 1\n" : "");
        INFO(args[0] << " " << args.back() << ": " << r.err);
        CHECK(r.exit_code == 2);
        CHECK_FALSE(r.err.empty());
        CHECK(test::read_file(h) == before);
    }
    auto r = test::run_perfsweep(
        {"import", "--history", h, "--metric", "MLUPS", dir.file("good.csv"), dir.file("bad.csv")});
    CHECK_THAT(r.err, Catch::Contains("bad.csv:3") && Catch::Contains("oops"));
}

TEST_CASE("import then detect on the history, with JSON output and exit codes", "[cli][detect]") {
    test::TempDir dir;
    const auto h = dir.file("h.jsonl");
    test::write_file(dir.file("drop.csv"), csv(20, 577.3, 10, 537.0));
    auto r = test::run_perfsweep({"import", "--history", h, "--metric", "MLUPS", "--benchmark",
                                  "xlb", dir.file("drop.csv")});
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("imported 30"));
    r = test::run_perfsweep({"detect", "--history", h, "--json"});
    CHECK(r.exit_code == 1);
    rapidjson::Document d;
    d.Parse(r.out.c_str());
    REQUIRE_FALSE(d.HasParseError());
    CHECK(std::string(d["verdict"].GetString()) == "regression");
    CHECK(std::string(d["metric"].GetString()) == "MLUPS");
    REQUIRE(d["change_points"].Size() == 1);
    CHECK(std::string(d["change_points"][0]["last_before"].GetString()) == "p119");
    CHECK(std::string(d["change_points"][0]["first_after"].GetString()) == "p120");
    // The same history in lower-is-better terms is an improvement (exit 5).
    CHECK(test::run_perfsweep({"detect", "--history", h, "--direction", "lower"}).exit_code == 5);
    // A second metric: without a selector every series is checked in one table, exit the worst.
    test::write_file(dir.file("flat.csv"), csv(30, 10, 0, 0));
    REQUIRE(test::run_perfsweep({"import", "--history", h, "--metric", "GB/s", "--benchmark", "xlb",
                                 dir.file("flat.csv")})
                .exit_code == 0);
    r = test::run_perfsweep({"detect", "--history", h});
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.out, Catch::Contains("2 series: 1 regression, 1 no_regression") &&
                          Catch::Contains("xlb · GB/s") && Catch::Contains("xlb · MLUPS"));
    r = test::run_perfsweep({"detect", "--history", h, "--metric", "GB/s"});
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("no_regression"));
    // Too little data.
    test::write_file(dir.file("short.csv"), "label,value\na,1\nb,2\n");
    r = test::run_perfsweep({"detect", "--input", dir.file("short.csv"), "--metric", "MLUPS"});
    CHECK(r.exit_code == 4);
    CHECK_THAT(r.out, Catch::Contains("inconclusive"));
}

TEST_CASE("detect reads grep output and the shipped example directly", "[cli][detect]") {
    test::TempDir dir;
    std::string grep;
    for (int d = 1; d <= 24; ++d) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "OUT-08-%02d:MLUPS: %.2f\n", d,
                      (d < 20 ? 577.3 : 537.0) + (d % 3) * 0.4);
        grep += buf;
        if (d == 10)
            grep += "OUT-08-10b:MLUPS: Traceback (most recent call last)\n";
    }
    test::write_file(dir.file("grep.txt"), grep);
    auto r = test::run_perfsweep({"detect", "--input", dir.file("grep.txt"), "--json"});
    CHECK(r.exit_code == 1);
    rapidjson::Document d;
    d.Parse(r.out.c_str());
    REQUIRE_FALSE(d.HasParseError());
    CHECK(std::string(d["change_points"][0]["first_after"].GetString()) == "OUT-08-20");
    CHECK(std::string(d["failed"][0]["label"].GetString()) == "OUT-08-10b");

    r = test::run_perfsweep({"detect", "--input", k_example, "--metric", "MLUPS"});
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.out, Catch::Contains("2023-08-24") && Catch::Contains("2023-07-12") &&
                          Catch::Contains("2023-08-16") && Catch::Contains("regression"));
    r = test::run_perfsweep(
        {"detect", "--input", k_example, "--metric", "MLUPS", "--threshold", "50%"});
    CHECK(r.exit_code == 0);
    r = test::run_perfsweep(
        {"detect", "--input", k_example, "--metric", "MLUPS", "--threshold", "-1"});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("--threshold"));
    r = test::run_perfsweep({"detect", "--input", dir.file("missing.csv")});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("missing.csv"));
}
