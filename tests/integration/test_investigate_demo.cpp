#include "support/demo_args.hpp"
#include "support/temp_dir.hpp"
#include "util/strings.hpp"

#include <catch2/catch.hpp>

#include <filesystem>

using namespace perfsweep;

TEST_CASE("demo: the real pipeline finds the compiler culprit offline", "[demo][investigate]") {
    test::TempDir dir;
    const auto out_dir = dir.file("demo");
    auto r = test::run_perfsweep({"demo", "--output-dir", out_dir});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    // The 7 % drop is narrowed to the day, the hour and the merge of PR #4711 in the compiler.
    CHECK(r.out.find("between nightly 2023-08-22 and 2023-08-23") != std::string::npos);
    CHECK(r.out.find("culprit: compiler@") != std::string::npos);
    CHECK(r.out.find("Merge pull request #4711 from dev/vector-width") != std::string::npos);
    // The broken nightly is listed as skipped, never as a regression.
    CHECK(r.out.find("2023-08-19 | failed") != std::string::npos);
    const auto report = test::read_file(out_dir + "/report/report.md");
    CHECK(report.find("<!-- perfsweep:demo -->") == 0);
    CHECK(report.find("xychart-beta") != std::string::npos);
    CHECK(std::filesystem::exists(out_dir + "/report/result.json"));
    // A second demo never overwrites the first: it picks a fresh directory.
    auto again = test::run_perfsweep({"demo", "--output-dir", out_dir});
    REQUIRE(again.exit_code == 0);
    CHECK(std::filesystem::exists(out_dir + "-2/report/report.md"));
}

TEST_CASE("investigate on the demo world honours --fail-on-regression", "[investigate]") {
    test::TempDir dir;
    const auto demo = dir.file("d");
    REQUIRE(test::run_perfsweep({"demo", "--output-dir", demo}).exit_code == 0);
    auto args = test::demo_investigate_args(demo);
    args.insert(args.end(), {"--logs", dir.file("logs"), "--output-dir", dir.file("out"),
                             "--fail-on-regression"});
    auto r = test::run_perfsweep(args);
    INFO(r.err);
    CHECK(r.exit_code == 1);
    // The verdict names the repo as OWNER/NAME, taken from its remote (compare URL).
    CHECK(r.out.find("culprit: perfsweep-demo/compiler@") != std::string::npos);
    CHECK(r.out.find("#4711") != std::string::npos);
    // Bad input: a naive --from date range is refused with the flag named.
    auto bad = test::run_perfsweep({"investigate", "--history", demo + "/history.jsonl", "--test",
                                    "true", "--from", "2023-08-30", "--to", "2023-08-01"});
    INFO(bad.err);
    CHECK(bad.exit_code == 2);
    CHECK(bad.err.find("--from/--to") != std::string::npos);
}

TEST_CASE("investigate reads its options from a TOML config section", "[investigate][config]") {
    test::TempDir dir;
    const auto config = dir.file("perfsweep.toml");
    auto example =
        test::read_file(std::string(PERFSWEEP_SOURCE_DIR) + "/examples/config/perfsweep.toml");
    // The shipped example parses; a bad date range in it is refused before anything runs.
    test::write_file(config, example + "from = \"2023-09-30\"\nto = \"2023-09-01\"\n");
    auto r = test::run_perfsweep({"--config", config, "investigate"});
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("--from/--to '2023-09-30'/'2023-09-01'") != std::string::npos);
    test::write_file(config, "[investigate]\nno-such-option = 1\n");
    CHECK(test::run_perfsweep({"--config", config, "investigate"}).exit_code == 2);
}

TEST_CASE("investigate over an explicit release range: the sweep decides, no history needed",
          "[investigate]") {
    // Between two releases with an empty history (the first run of a new benchmark): detect has
    // nothing to judge, so the verdict, exit code, outputs and result.json follow the range's
    // daily sweep. The benchmark prints exactly one value per nightly (no noise at all).
    test::TempDir dir;
    const auto bench = dir.file("bench.sh");
    test::write_file(bench, "#!/bin/sh\n"
                            "if [ \"$1\" \\< \"$2\" ]; then echo 'MLUPS: 577.0'; "
                            "else echo 'MLUPS: 537.0'; fi\n");
    std::filesystem::permissions(bench, std::filesystem::perms::owner_all);
    auto investigate = [&](const std::string& name, const std::string& bad_from) {
        const auto gh_out = dir.file(name + ".out");
        test::write_file(gh_out, "");
        auto r = test::run_perfsweep({"investigate",
                                      "--history",
                                      dir.file(name + ".jsonl"),
                                      "--benchmark",
                                      "lbm",
                                      "--metric",
                                      "MLUPS",
                                      "--runtime",
                                      "none",
                                      "--test",
                                      "'" + bench + "' {date} " + bad_from,
                                      "--from",
                                      "2024-05-01",
                                      "--to",
                                      "2024-05-16",
                                      "--env-probe",
                                      "none",
                                      "--logs",
                                      dir.file(name + "-logs"),
                                      "--output-dir",
                                      dir.file(name),
                                      "--fail-on-regression"},
                                     {"GITHUB_ACTIONS=true", "GITHUB_OUTPUT=" + gh_out});
        return std::make_pair(r, test::read_file(gh_out));
    };
    const auto [reg, reg_out] = investigate("reg", "2024-05-09");
    INFO(reg.err);
    CHECK(reg.exit_code == 1);
    CHECK_THAT(reg.err, Catch::Contains("detect: inconclusive — no measurement of this benchmark "
                                        "in the history yet") &&
                            Catch::Contains("range 2024-05-01 → 2024-05-16: regression"));
    CHECK_THAT(reg_out, Catch::Contains("verdict=regression") &&
                            Catch::Contains("last-good=2024-05-08") &&
                            Catch::Contains("first-bad=2024-05-09"));
    const auto json = test::read_file(dir.file("reg") + "/result.json");
    CHECK(json.rfind("{\n  \"kind\": \"investigate\",\n  \"format_version\": 2,\n  \"verdict\": "
                     "\"regression\",",
                     0) == 0);
    CHECK_THAT(test::read_file(dir.file("reg") + "/report.md"),
               Catch::Contains("MLUPS fell 6.9 % (577.0 → 537.0) between nightly 2024-05-08 and "
                               "2024-05-09"));
    // The sweep's measurements went into the history (the next run has something to detect on).
    CHECK_THAT(test::read_file(dir.file("reg.jsonl")), Catch::Contains("\"2024-05-09\""));
    // A deterministic benchmark needs no escalation: every measured nightly ran 3 times or fewer.
    CHECK(reg.err.find("4 values") == std::string::npos);

    // The same range without a change: no_regression, exit 0.
    const auto [same, same_out] = investigate("same", "2099-01-01");
    INFO(same.err);
    CHECK(same.exit_code == 0);
    CHECK_THAT(same_out, Catch::Contains("verdict=no_regression"));
    CHECK_THAT(same.err, Catch::Contains("no level change between the"));
}
