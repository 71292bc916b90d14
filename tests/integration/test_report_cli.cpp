#include "support/temp_dir.hpp"
#include "support/xychart_check.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace perfsweep::test;

namespace {
const std::string k_data = std::string(PERFSWEEP_SOURCE_DIR) + "/tests/data/";
}

TEST_CASE("report renders each stage's result exactly like its golden file", "[report][golden]") {
    for (const std::string name : {"investigate", "daily", "hourly", "detect_none"}) {
        INFO(name);
        const auto r = run_perfsweep(
            {"report", "--input", k_data + "results/" + name + ".json", "--key", "ci/nightly"});
        REQUIRE(r.exit_code == 0);
        CHECK(r.out == read_file(k_data + "golden/" + name + ".md"));
        for (const auto& block : mermaid_blocks(r.out))
            CHECK(check_xychart(block) == "");
    }
    const auto inv = read_file(k_data + "golden/investigate.md");
    CHECK(mermaid_blocks(inv).size() == 2);
}

TEST_CASE("report --json output is accepted back by report --input", "[report]") {
    TempDir dir;
    for (const std::string name : {"investigate", "daily", "hourly", "detect_none"}) {
        INFO(name);
        const auto once = dir.file(name + "-1.json"), twice = dir.file(name + "-2.json");
        auto r = run_perfsweep({"report", "--input", k_data + "results/" + name + ".json", "--json",
                                "--output", once});
        REQUIRE(r.exit_code == 0);
        CHECK(r.out.empty());
        const auto j = read_file(once);
        CHECK(j.find("\"kind\": \"" + std::string(name == "detect_none" ? "detect" : name) +
                     "\"") != std::string::npos);
        CHECK(j.find("\"format_version\": 2") != std::string::npos);
        // render → parse → render: the same JSON and the same markdown as the original gives.
        r = run_perfsweep({"report", "--input", once, "--json", "--output", twice});
        REQUIRE(r.exit_code == 0);
        CHECK(read_file(twice) == j);
        const auto md = run_perfsweep({"report", "--input", once, "--key", "ci/nightly"});
        REQUIRE(md.exit_code == 0);
        CHECK(md.out == read_file(k_data + "golden/" + name + ".md"));
    }
}

TEST_CASE("report --json and --output write the document, the old --format json too", "[report]") {
    TempDir dir;
    const auto out = dir.file("r.json");
    const auto r = run_perfsweep(
        {"report", "--input", k_data + "results/investigate.json", "--json", "--output", out});
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.empty());
    CHECK(r.err.empty());
    // The old spelling still works, with a warning naming the new one.
    const auto old = dir.file("old.json");
    const auto o = run_perfsweep({"report", "--input", k_data + "results/investigate.json",
                                  "--format", "json", "--output", old});
    REQUIRE(o.exit_code == 0);
    CHECK(o.err.find("perfsweep: warning: --format is an old name; use --json") !=
          std::string::npos);
    CHECK(read_file(old) == read_file(out));
    const auto j = read_file(out);
    CHECK(j.find("\"kind\": \"investigate\"") != std::string::npos);
    CHECK(j.find("\"format_version\": 2") != std::string::npos);
}

TEST_CASE("report names the file and JSON path of a wrongly typed field", "[report]") {
    TempDir dir;
    const auto bad = dir.file("bad.json");
    write_file(bad, R"({"points": [{"label": "d1", "values": [1, "x"]}]})");
    auto r = run_perfsweep({"report", "--input", bad});
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(bad + ": at $.points[0].values[1]: expected a number") != std::string::npos);
    write_file(bad, R"({"hourly": {"window": []}})");
    r = run_perfsweep({"report", "--input", bad});
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("at $.hourly.window: expected an object") != std::string::npos);
    write_file(bad, R"({"something": 1})");
    r = run_perfsweep({"report", "--input", bad});
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("expected a result document") != std::string::npos);
    r = run_perfsweep({"report", "--input", k_data + "results/daily.json", "--key", "x-->y"});
    CHECK(r.exit_code == 2);
}
