#include "core/environment.hpp"
#include "core/report_model.hpp"
#include "report/markdown.hpp"
#include "support/result_samples.hpp"

#include <catch2/catch.hpp>

using namespace perfsweep;

namespace {

/// A daily regression 2023-08-21 → 2023-08-22 whose builds differ in cuDNN (9.1.0 → `after`):
/// same sources (environment), different sources (both) or unknown sources.
core::DailyResult with_attribution(const std::string& cause, const std::string& after) {
    auto d = test::sample_daily({"2023-08-21", "2023-08-22"}, 0, 1, 500, 450);
    auto& good = d.measurements[0].front();
    auto& bad = d.measurements[1].front();
    good.digest = bad.digest = "";
    bad.environment["cudnn"] = after;
    if (cause == "environment")
        bad.commits = good.commits;
    if (cause == "unknown")
        good.commits.clear();
    return d;
}

} // namespace

TEST_CASE("report: an environmental change is named in the verdict and the diff is shown",
          "[report][environment]") {
    const auto d = with_attribution("environment", "9.2.0");
    CHECK(report::verdict_sentence(d) ==
          "MLUPS fell 10.0 % (500.0 → 450.0) between nightly 2023-08-21 and 2023-08-22; "
          "environmental: the source commits are identical and the environment changed (cuDNN "
          "9.1.0 → 9.2.0).");
    const auto md = report::render_markdown(d);
    CHECK_THAT(md, Catch::Contains("### Environment") &&
                       Catch::Contains("| cuDNN | 9.1.0 | 9.2.0 |") &&
                       Catch::Contains("hourly and commit stages were not run"));
}

TEST_CASE("report: both changed says so and that the good build's environment is held",
          "[report][environment]") {
    const auto md = report::render_markdown(with_attribution("both", "9.2.0"));
    CHECK_THAT(md, Catch::Contains("sources (xla) and environment both changed") &&
                       Catch::Contains("inside the last good nightly's image"));
}

TEST_CASE("report: unknown commits show the diff and say the commits are unknown",
          "[report][environment]") {
    const auto d = with_attribution("unknown", "9.2.0");
    CHECK_THAT(report::verdict_sentence(d), Catch::Contains("source commits are unknown"));
    CHECK_THAT(report::render_markdown(d), Catch::Contains("set --commits-probe"));
}

TEST_CASE("report: hostile environment values are escaped", "[report][environment]") {
    const auto md =
        report::render_markdown(with_attribution("environment", "<img src=x> | @team `x`"));
    CHECK(md.find("<img") == std::string::npos);
    CHECK(md.find("@team") == std::string::npos);
    CHECK_THAT(md, Catch::Contains("&lt;img src=x&gt; \\| &#64;team \\`x\\`"));
}

TEST_CASE("report: the environment of another boundary is not used", "[report][environment]") {
    // The investigation narrowed 08-24 → 08-26; an environment change elsewhere is not its cause.
    auto inv = test::sample_investigation();
    auto& d = inv.daily.front();
    d.measurements[0].front().environment["cudnn"] = "8.9.0";
    CHECK(report::verdict_sentence(inv).find("environment") == std::string::npos);
    CHECK(report::render_markdown(inv).find("### Environment") == std::string::npos);
}
