#include "core/environment.hpp"
#include "core/report_model.hpp"
#include "report/markdown.hpp"

#include <catch2/catch.hpp>

using namespace perfsweep;

namespace {

core::ReportInput with_attribution(const std::string& cause, const std::string& after) {
    core::ReportInput in;
    in.metric = "MLUPS";
    in.boundaries.push_back({"2023-08-21", "2023-08-22", 500, 450, -0.1, "regression", {}, {}});
    core::ReportAttribution a;
    a.last_good = "2023-08-21";
    a.first_bad = "2023-08-22";
    a.cause = cause;
    a.commits_known = cause != "unknown";
    a.environment_known = true;
    a.components = {"cudnn"};
    a.diff = {{"cudnn", "cuDNN", "9.1.0", after}};
    core::Attribution ca;
    ca.cause = cause == "environment" ? core::Cause::environment
               : cause == "both"      ? core::Cause::both
                                      : core::Cause::unknown;
    ca.diff = {{"cudnn", "9.1.0", after}};
    ca.components = {"cudnn"};
    ca.changed_repos = {"xla"};
    a.summary = core::describe_attribution(ca);
    in.attributions.push_back(a);
    return in;
}

} // namespace

TEST_CASE("report: an environmental change is named in the verdict and the diff is shown",
          "[report][environment]") {
    const auto in = with_attribution("environment", "9.2.0");
    CHECK(report::verdict_sentence(in) ==
          "MLUPS fell 10.0 % (500.0 → 450.0) between nightly 2023-08-21 and 2023-08-22; "
          "environmental: the source commits are identical and the environment changed (cuDNN "
          "9.1.0 → 9.2.0).");
    const auto md = report::render_markdown(in);
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
    const auto in = with_attribution("unknown", "9.2.0");
    CHECK_THAT(report::verdict_sentence(in), Catch::Contains("source commits are unknown"));
    CHECK_THAT(report::render_markdown(in), Catch::Contains("set --commits-probe"));
}

TEST_CASE("report: hostile environment values are escaped", "[report][environment]") {
    const auto md =
        report::render_markdown(with_attribution("environment", "<img src=x> | @team `x`"));
    CHECK(md.find("<img") == std::string::npos);
    CHECK(md.find("@team") == std::string::npos);
    CHECK_THAT(md, Catch::Contains("&lt;img src=x&gt; \\| &#64;team \\`x\\`"));
}

TEST_CASE("report: an attribution of another boundary is not used", "[report][environment]") {
    auto in = with_attribution("environment", "9.2.0");
    in.attributions[0].first_bad = "2023-08-23";
    CHECK(report::verdict_sentence(in).find("environment") == std::string::npos);
    CHECK(report::render_markdown(in).find("### Environment") == std::string::npos);
}
