// What the action's detect mode relies on: detect writes its step outputs inside GitHub Actions,
// and --threshold takes both a relative change (5%) and github-action-benchmark's ratio of how
// much worse (150%, 1.5x), the latter converted with the metric's direction.
#include "support/temp_dir.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace perfsweep;

namespace {

/// CSV of `n1` points at `v1` then `n2` points at `v2` (a little noise), labels p100...
std::string series(int n1, double v1, int n2, double v2) {
    std::string out = "label,value\n";
    for (int i = 0; i < n1 + n2; ++i) {
        const double base = i < n1 ? v1 : v2;
        out += "p" + std::to_string(100 + i) + "," + std::to_string(base * (1 + 0.001 * (i % 3))) +
               "\n";
    }
    return out;
}

/// A history of `csv` imported as `metric`, `direction`.
std::string history(const test::TempDir& dir, const std::string& csv,
                    const std::string& direction) {
    const auto h = dir.file("h-" + direction + ".jsonl");
    test::write_file(dir.file("in.csv"), csv);
    auto r = test::run_perfsweep({"import", "--history", h, "--metric", "m", "--benchmark", "b",
                                  "--direction", direction, dir.file("in.csv")});
    REQUIRE(r.exit_code == 0);
    return h;
}

int detect(const std::string& h, const std::string& threshold) {
    auto r = test::run_perfsweep({"detect", "--history", h, "--threshold", threshold});
    INFO(threshold << ": " << r.err);
    return r.exit_code;
}

} // namespace

TEST_CASE("detect writes its step outputs inside GitHub Actions", "[cli][detect][actions]") {
    test::TempDir dir;
    const auto h = history(dir, series(20, 577.3, 10, 537.0), "higher");
    const auto out = dir.file("github_output");
    test::write_file(out, "");
    auto r = test::run_perfsweep({"detect", "--history", h},
                                 {"GITHUB_ACTIONS=true", "GITHUB_OUTPUT=" + out});
    INFO(r.err);
    CHECK(r.exit_code == 1);
    const auto o = test::read_file(out);
    CHECK_THAT(o, Catch::Contains("verdict=regression\n"));
    CHECK_THAT(o, Catch::Contains("relative-change=-0.069"));
    CHECK_THAT(o, Catch::Contains("last-good=p119\n"));
    CHECK_THAT(o, Catch::Contains("first-bad=p120\n"));
    // A healthy series: the verdict and the counts (no change point, nothing else to say).
    const auto flat = history(dir, series(30, 577.3, 0, 0), "lower");
    test::write_file(out, "");
    r = test::run_perfsweep({"detect", "--history", flat},
                            {"GITHUB_ACTIONS=true", "GITHUB_OUTPUT=" + out});
    CHECK(r.exit_code == 0);
    CHECK(test::read_file(out) == "regressions=0\nseries=1\nverdict=no_regression\n");
    // Outside Actions nothing is written.
    test::write_file(out, "");
    r = test::run_perfsweep({"detect", "--history", h},
                            {"GITHUB_ACTIONS=", "GITHUB_OUTPUT=" + out});
    CHECK(test::read_file(out).empty());
}

TEST_CASE("threshold: a relative change below 100 %, a ratio of how much worse from 100 % on",
          "[cli][detect][threshold]") {
    test::TempDir dir;
    // Higher is better, a 7 % drop.
    const auto up = history(dir, series(20, 577.3, 10, 537.0), "higher");
    CHECK(detect(up, "5%") == 1);
    CHECK(detect(up, "0.05") == 1);
    CHECK(detect(up, "10%") == 0);
    CHECK(detect(up, "105%") == 1);  // 1.05 times worse = a 4.8 % drop: the 7 % drop counts
    CHECK(detect(up, "1.05x") == 1); // the same, explicitly
    CHECK(detect(up, "110%") == 0);  // 1.1 times worse = a 9.1 % drop
    CHECK(detect(up, "150%") == 0);  // github-action-benchmark's 150 %: a 33 % drop
    // Lower is better (time), 7 % more: a ratio r means r - 1 more.
    const auto down = history(dir, series(20, 100, 10, 107), "lower");
    CHECK(detect(down, "106%") == 1);
    CHECK(detect(down, "108%") == 0);
    CHECK(detect(down, "6%") == 1);
    // Ambiguous or malformed values are refused, naming both forms.
    for (const std::string bad : {"1.5", "150", "-5%", "0.5x", "x", "5 %%"}) {
        auto r = test::run_perfsweep({"detect", "--history", up, "--threshold", bad});
        INFO(bad);
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err,
                   Catch::Contains("--threshold '" + bad + "'") && Catch::Contains("150% or 1.5x"));
    }
}
