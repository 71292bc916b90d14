#include "core/report_model.hpp"
#include "report/markdown.hpp"
#include "support/xychart_check.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

using namespace perfsweep;

namespace {

core::ReportInput sample() {
    core::ReportInput in;
    in.metric = "MLUPS";
    in.repo_urls["xla"] = "https://github.com/openxla/xla";
    in.boundaries.push_back(
        {"2023-08-24", "2023-08-26", 577.3, 536.7, -0.0703, "regression", {}, {}});
    core::ReportWindow w;
    w.last_good = {"2023-08-25T13:00:00Z", {{"xla", "2222222bbbb"}}, true, "ok", {577.0}, "", ""};
    w.first_bad = {"2023-08-25T14:00:00Z", {{"xla", "3c66a1fcccc"}}, true, "ok", {536.7}, "", ""};
    in.window = w;
    in.culprit = core::ReportCulprit{"xla", "3c66a1fcccc", "Faster fusion", "Jane", ""};
    in.candidates["xla"].push_back(
        {"3c66a1fcccc", "2023-08-25T13:41:07Z", "Jane", "Faster fusion", ""});
    return in;
}

} // namespace

TEST_CASE("verdict sentence names change, nightlies, window and culprit", "[report][markdown]") {
    CHECK(report::verdict_sentence(sample()) ==
          "MLUPS fell 7.0 % (577.3 → 536.7) between nightly 2023-08-24 and 2023-08-26 (sources "
          "between 2023-08-25T13:00:00Z and 2023-08-25T14:00:00Z); culprit: openxla/xla@3c66a1f… "
          "'Faster fusion'.");
    core::ReportInput none;
    none.metric = "t";
    CHECK(report::verdict_sentence(none) == "No regression of t found.");
    core::ReportInput lower;
    lower.metric = "time";
    lower.direction = core::Direction::lower_is_better;
    lower.change_points.push_back({"a", "b", 10.0, 12.0, 0.2, "regression", {}, {}});
    CHECK(report::verdict_sentence(lower) == "time rose 20.0 % (10.00 → 12.00) between a and b.");
}

TEST_CASE("untrusted text is escaped for markdown and HTML and pings nobody",
          "[report][markdown]") {
    CHECK(report::escape_markdown("a|b") == "a\\|b");
    CHECK(report::escape_markdown("<script>") == "&lt;script&gt;");
    CHECK(report::escape_markdown("`x`") == "\\`x\\`");
    CHECK(report::escape_markdown("one\ntwo\r\nthree") == "one two three");
    CHECK(report::escape_markdown("cc @octocat") == "cc &#64;octocat");
    auto in = sample();
    in.candidates["xla"][0].subject = "evil | <img src=x> @team\n# heading";
    const auto md = report::render_markdown(in);
    CHECK(md.find("<img") == std::string::npos);
    CHECK(md.find("@team") == std::string::npos);
    CHECK(md.find("\n# heading") == std::string::npos);
}

TEST_CASE("marker keys cannot escape the HTML comment", "[report][markdown]") {
    CHECK(report::marker_for_key("nightly/mlups") == "<!-- perfsweep:nightly/mlups -->");
    CHECK_THROWS_AS(report::marker_for_key("a-->b"), perfsweep::Error);
    CHECK_THROWS_AS(report::marker_for_key("a b"), perfsweep::Error);
    CHECK_THROWS_AS(report::marker_for_key(""), perfsweep::Error);
}

TEST_CASE("a huge report is trimmed under the limit, keeping verdict and window",
          "[report][markdown]") {
    auto in = sample();
    for (int i = 0; i < 4000; ++i)
        in.daily_points.push_back({"day-" + std::to_string(i),
                                   i % 7 ? "ok" : "failed",
                                   {500.0 + i % 13, 501.0},
                                   "log-" + std::to_string(i) + ".txt",
                                   i % 7 ? "" : "some long failure reason that takes space"});
    for (int i = 0; i < 3000; ++i)
        in.candidates["xla"].push_back(
            {"sha" + std::to_string(i), "t", "a", "subject " + std::to_string(i), ""});
    const auto full = report::render_markdown(in, {"k", 10'000'000, 10});
    REQUIRE(full.size() > report::k_comment_limit);
    const auto md = report::render_markdown(in);
    CHECK(md.size() <= report::k_comment_limit);
    CHECK(md.find(report::verdict_sentence(in)) != std::string::npos);
    CHECK(md.find("### Window") != std::string::npos);
    CHECK(md.find("compare/2222222bbbb...3c66a1fcccc") != std::string::npos);
    CHECK(md.find("rows not shown") != std::string::npos);
    CHECK(md.rfind("<!-- perfsweep:default -->", 0) == 0);
}

TEST_CASE("long tables fold into details", "[report][markdown]") {
    auto in = sample();
    for (int i = 0; i < 12; ++i)
        in.daily_points.push_back({"d" + std::to_string(i), "ok", {1.0 + i}, "", ""});
    const auto md = report::render_markdown(in);
    CHECK(md.find("<details><summary>Daily (nightly containers) table (12 rows)</summary>") !=
          std::string::npos);
}

TEST_CASE("xychart output satisfies the strict xychart-beta checker", "[report][mermaid]") {
    const auto chart =
        report::xychart("MLUPS \"per\" nightly", "MLUPS", {"2023-08-24", "a\"b]c"}, {577.3, 536.7});
    CHECK(test::check_xychart(chart) == "");
    CHECK(report::xychart("t", "y", {"one"}, {1.0}).empty());
    // The checker itself rejects broken diagrams.
    CHECK(test::check_xychart("xychart-beta\n x-axis [a, b]\n line [1]\n") != "");
    CHECK(test::check_xychart("xychart-beta\n title \"x\n line [1, 2]\n") != "");
    CHECK(test::check_xychart("graph TD\n a-->b\n") != "");
    CHECK(test::check_xychart("xychart-beta\n y-axis \"v\" 5 --> 1\n line [1, 2]\n") != "");
}
