#include "core/report_model.hpp"
#include "report/dashboard_chart.hpp"
#include "report/markdown.hpp"
#include "support/result_samples.hpp"
#include "support/xychart_check.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

#include <catch2/catch.hpp>

using namespace perfsweep;

namespace {

core::Investigation sample() {
    auto inv = test::sample_investigation();
    auto& c = inv.hourly.front().culprit->commit;
    c.subject = "Faster fusion";
    inv.hourly.front().candidates["xla"].front().subject = "Faster fusion";
    return inv;
}

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
        ++n;
    return n;
}

} // namespace

TEST_CASE("verdict sentence names change, nightlies, window and culprit", "[report][markdown]") {
    CHECK(report::verdict_sentence(sample()) ==
          "MLUPS fell 7.0 % (577.3 → 536.7) between nightly 2023-08-24 and 2023-08-26 (sources "
          "between 2023-08-25T13:00:00Z and 2023-08-25T14:00:00Z); culprit: openxla/xla@3c66a1f… "
          "'Faster fusion'.");
    core::DetectResult lower;
    lower.metric = "time";
    lower.direction = core::Direction::lower_is_better;
    lower.verdict = core::Verdict::regression;
    lower.change_points.push_back(
        {{10.0, 12.0, 0.2, 1e-6, core::ChangeKind::regression}, 1, "a", "b"});
    CHECK(report::verdict_sentence(lower) == "time rose 20.0 % (10.00 → 12.00) between a and b.");
}

TEST_CASE("detect renders its own verdict", "[report][markdown][conclusion]") {
    auto d = test::sample_detect("2023-08-24", "2023-08-26");
    CHECK(report::verdict_sentence(d) ==
          "MLUPS fell 7.0 % (577.3 → 536.7) between 2023-08-24 and 2023-08-26.");
    d.change_points.clear();
    d.verdict = core::Verdict::no_regression;
    CHECK(report::verdict_sentence(d) == "No regression of MLUPS found.");
    d.verdict = core::Verdict::inconclusive;
    d.reason = "only 3 ok points (at least 4 are needed)";
    CHECK(report::verdict_sentence(d) ==
          "Inconclusive for MLUPS: only 3 ok points (at least 4 are needed).");
    const auto md = report::render_markdown(d);
    CHECK_THAT(md, Catch::Contains("| 2023-08-22 | failed | Traceback: CUDA\\_ERROR"));
}

TEST_CASE("daily renders its boundary, or the range's verdict", "[report][markdown][conclusion]") {
    auto d = test::sample_daily({"2023-08-23", "2023-08-24", "2023-08-25", "2023-08-26"}, 1, 3);
    CHECK(report::verdict_sentence(d) ==
          "MLUPS fell 7.0 % (577.3 → 536.7) between nightly 2023-08-24 and 2023-08-26.");
    const auto md = report::render_markdown(d);
    CHECK_THAT(md, Catch::Contains("### Daily boundaries") &&
                       Catch::Contains("| 2023-08-25 | missing | manifest unknown") &&
                       Catch::Contains("### Budget used\n\nruns: 9\n"));
    d.sweep.boundaries.clear();
    CHECK(report::verdict_sentence(d) ==
          "No regression of MLUPS found (no level change between the 3 measured nightlies "
          "2023-08-23 .. 2023-08-26).");
    d.sweep.complete = false;
    d.sweep.stop_reason = "run budget spent";
    CHECK(report::verdict_sentence(d) == "Inconclusive for MLUPS: the sweep over 2023-08-23 .. "
                                         "2023-08-26 stopped early: run budget spent.");
}

TEST_CASE("an hourly window renders with its candidates", "[report][markdown][conclusion]") {
    const auto h = test::sample_hourly(core::HourlyConclusion::window);
    CHECK(report::verdict_sentence(h) ==
          "MLUPS fell 7.0 % (577.0 → 536.7) between 2023-08-25T13:00:00Z and "
          "2023-08-25T14:00:00Z; culprit not isolated: 2 candidate commits in the window.");
    const auto md = report::render_markdown(h);
    CHECK_THAT(md, Catch::Contains("### Window") && Catch::Contains("### Candidate commits") &&
                       Catch::Contains("**openxla/xla: 2 commits**") &&
                       Catch::Contains("runs: 8 · builds: 4"));
    CHECK(md.find("← culprit") == std::string::npos);
    // Measured states are charted (good, bad and unknown; not the failed build).
    CHECK_THAT(md, Catch::Contains("x-axis [\"08-25 12:00\", \"08-25 13:00\", \"08-25 14:00\"]"));
    CHECK_THAT(md, Catch::Contains("| 2023-08-25T15:00:00Z | build\\_failed | build failed"));
}

TEST_CASE("an hourly culprit is the report's conclusion", "[report][markdown][conclusion]") {
    const auto h = test::sample_hourly(core::HourlyConclusion::culprit);
    const auto sentence = report::verdict_sentence(h);
    CHECK(sentence.rfind("MLUPS fell 7.0 % (577.0 → 536.7) between 2023-08-25T13:00:00Z and "
                         "2023-08-25T14:00:00Z; culprit: openxla/xla@3c66a1f… ",
                         0) == 0);
    CHECK(sentence.find("No regression") == std::string::npos);
    CHECK_THAT(report::render_markdown(h), Catch::Contains("**← culprit**"));
}

TEST_CASE("hourly no_change and planned say so", "[report][markdown][conclusion]") {
    const auto h = test::sample_hourly(core::HourlyConclusion::no_change);
    CHECK(report::verdict_sentence(h) ==
          "No change of MLUPS found: the window ends do not differ significantly (change "
          "0.10%, p=0.4000).");
    auto planned = h;
    planned.conclusion = core::HourlyConclusion::planned;
    planned.message = "4 states, 4 distinct";
    for (auto& s : planned.states) {
        s.status = core::StateStatus::planned;
        s.values.clear();
    }
    CHECK(report::verdict_sentence(planned) ==
          "Planned source states, nothing measured: 4 states, 4 distinct.");
    auto stopped = test::sample_hourly(core::HourlyConclusion::window);
    stopped.conclusion = core::HourlyConclusion::inconclusive;
    stopped.last_good.reset();
    stopped.first_bad.reset();
    stopped.message = "budget exhausted before a level change was located";
    CHECK(report::verdict_sentence(stopped) ==
          "Inconclusive for MLUPS: budget exhausted before a level change was located.");
}

TEST_CASE("an investigation with two narrowed regressions reports both",
          "[report][markdown][conclusion]") {
    const auto inv = test::sample_investigation(true);
    const auto md = report::render_markdown(inv);
    CHECK_THAT(md, Catch::Contains("### Regressions"));
    CHECK_THAT(md, Catch::Contains("- MLUPS fell 7.0 % (577.3 → 536.7) between nightly 2023-08-24 "
                                   "and 2023-08-26 (sources between 2023-08-25T13:00:00Z"));
    CHECK_THAT(md, Catch::Contains("- MLUPS fell 3.0 % (595.0 → 577.3) between nightly 2023-08-12 "
                                   "and 2023-08-13 (sources between 2023-08-13T13:00:00Z and "
                                   "2023-08-13T14:00:00Z); culprit not isolated: 2 candidate "
                                   "commits in the window"));
    CHECK(count(md, "### Window (nightly ") == 2);
    CHECK(count(md, "### Daily boundaries (") == 2);
    CHECK(count(md, "### Hourly (source states) (nightly ") == 2);
    CHECK_THAT(md, Catch::Contains("runs: 31 · builds: 8 · time: 1h30m"));
    // The verdict line is the latest regression's.
    CHECK(report::verdict_sentence(inv).rfind("MLUPS fell 7.0 %", 0) == 0);
}

TEST_CASE("an investigation without a regression says what it decided",
          "[report][markdown][conclusion]") {
    core::Investigation inv;
    inv.detect.metric = "MLUPS";
    inv.verdict = core::Verdict::inconclusive;
    inv.reason = "1 undecided boundary between nightlies 2023-08-01 .. 2023-08-09";
    CHECK(report::verdict_sentence(inv) ==
          "Inconclusive for MLUPS: 1 undecided boundary between nightlies 2023-08-01 .. "
          "2023-08-09.");
    inv.verdict = core::Verdict::no_regression;
    CHECK(report::verdict_sentence(inv) == "No regression of MLUPS found.");
}

TEST_CASE("exit-code mode reports failure rates", "[report][markdown][exit-code]") {
    const auto d = test::exit_code_daily();
    CHECK(report::verdict_sentence(d) ==
          "MLUPS3d.py 256 200 started failing (0/6 runs failed before, 3/3 after) between "
          "nightly 2023-08-24 and 2023-08-26.");
    const auto md = report::render_markdown(d);
    CHECK_THAT(md, Catch::Contains("## perfsweep: MLUPS3d.py 256 200 (exit status)") &&
                       Catch::Contains("| 0 % (0/6) | 100 % (3/3) | +100 pt | regression |") &&
                       Catch::Contains("### First failing run") &&
                       Catch::Contains("**Nightly 2023-08-26** (exit status 1)"));
}

TEST_CASE("untrusted text is escaped for markdown and HTML and pings nobody",
          "[report][markdown]") {
    CHECK(report::escape_markdown("a|b") == "a\\|b");
    CHECK(report::escape_markdown("<script>") == "&lt;script&gt;");
    CHECK(report::escape_markdown("`x`") == "\\`x\\`");
    CHECK(report::escape_markdown("one\ntwo\r\nthree") == "one two three");
    CHECK(report::escape_markdown("cc @octocat") == "cc &#64;octocat");
    auto in = sample();
    in.hourly[0].candidates["xla"][0].subject = "evil | <img src=x> @team\n# heading";
    const auto md = report::render_markdown(in);
    CHECK(md.find("<img") == std::string::npos);
    CHECK(md.find("@team") == std::string::npos);
    CHECK(md.find("\n# heading") == std::string::npos);
}

TEST_CASE("each escaper writes its table's text for every byte it names and spaces for "
          "control characters",
          "[report][markdown][util]") {
    // Every byte either table names, the control characters around them, a DEL and a UTF-8 é.
    const std::string all = "a|\\`*_[]~<>&@\"'\r\n\t\x01\x1f\x7f\xc3\xa9\r";
    CHECK(report::escape_markdown(all) ==
          "a\\|\\\\\\`\\*\\_\\[\\]\\~&lt;&gt;&amp;&#64;\"'    \x7f\xc3\xa9 ");
    CHECK(report::escape_html(all) == "a|\\`*_[]~&lt;&gt;&amp;@&quot;&#39; \n\t  \x7f\xc3\xa9 ");
    CHECK(report::escape_html("\xff<") == "\xef\xbf\xbd&lt;"); // invalid UTF-8 replaced
    // A table keeps every byte it does not name.
    static constexpr util::EscapeRow rows[] = {{'x', "[x]"}};
    CHECK(util::escape_bytes("x\ty\n", util::escape_table(rows, "_", "\n")) == "[x]_y\n");
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
    auto& d = in.daily.front();
    for (int i = 0; i < 4000; ++i) {
        core::SweepPoint p;
        p.label = "day-" + std::to_string(i);
        p.state = i % 7 ? core::StateStatus::unknown : core::StateStatus::test_failed;
        p.status = i % 7 ? core::Status::ok : core::Status::failed;
        if (i % 7)
            p.values = {500.0 + i % 13, 501.0};
        p.log = "log-" + std::to_string(i) + ".txt";
        p.reason = i % 7 ? "" : "some long failure reason that takes space";
        d.sweep.points.push_back(p);
    }
    for (int i = 0; i < 3000; ++i)
        in.hourly[0].candidates["xla"].push_back(
            {"sha" + std::to_string(i), 0, "a", "subject " + std::to_string(i), {}});
    const auto full = report::render_markdown(in, {"k", 10'000'000, 10, {}});
    REQUIRE(full.size() > report::k_comment_limit);
    const auto md = report::render_markdown(in);
    CHECK(md.size() <= report::k_comment_limit);
    CHECK(md.find(report::verdict_sentence(in)) != std::string::npos);
    CHECK(md.find("### Window") != std::string::npos);
    CHECK(md.find("compare/2222222bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb...") != std::string::npos);
    CHECK(md.find("rows not shown") != std::string::npos);
    CHECK(md.rfind("<!-- perfsweep:default -->", 0) == 0);
}

TEST_CASE("long tables fold into details", "[report][markdown]") {
    auto d = test::sample_daily({"2023-08-23", "2023-08-24", "2023-08-25", "2023-08-26"}, 1, 3);
    for (int i = 0; i < 12; ++i) {
        core::SweepPoint p;
        p.label = "d" + std::to_string(i);
        p.state = core::StateStatus::unknown;
        p.values = {1.0 + i};
        d.sweep.points.push_back(p);
    }
    const auto md = report::render_markdown(d);
    CHECK(md.find("<details><summary>Daily (nightly containers) table (16 rows)</summary>") !=
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
