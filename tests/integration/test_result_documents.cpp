// Result documents: the pure JSON writer (report/result_json) and the reader adapter
// (adapters/json/result_json) agree — render → read → render gives identical JSON and markdown for
// every kind — and the reader dispatches on "kind", reads what older versions wrote and names the
// file, JSON path and expectation of anything else.

#include "adapters/json/result_json.hpp"
#include "report/markdown.hpp"
#include "report/result_json.hpp"
#include "support/json_doc.hpp"
#include "support/result_samples.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

#include <limits>

using namespace perfsweep;

namespace {

/// Render `doc`, read it back, render again: JSON and markdown must be identical.
void check_round_trip(const core::ResultDocument& doc) {
    const std::string json = report::render_json(doc);
    const std::string md = report::render_markdown(doc);
    const auto again = adapters::read_result_document(json, "result.json");
    CHECK(core::kind_of(again) == core::kind_of(doc));
    CHECK(report::render_json(again) == json);
    CHECK(report::render_markdown(again) == md);
}

} // namespace

TEST_CASE("every kind of result document survives render, read, render unchanged",
          "[result-json][round-trip]") {
    SECTION("detect") {
        check_round_trip(test::sample_detect("2023-08-24", "2023-08-26"));
    }
    SECTION("daily") {
        check_round_trip(
            test::sample_daily({"2023-08-23", "2023-08-24", "2023-08-25", "2023-08-26"}, 1, 3));
    }
    SECTION("daily in exit-code mode, with its first failing run") {
        check_round_trip(test::exit_code_daily());
    }
    SECTION("hourly window, culprit, no_change") {
        for (auto c : {core::HourlyConclusion::window, core::HourlyConclusion::culprit,
                       core::HourlyConclusion::no_change})
            check_round_trip(test::sample_hourly(c));
    }
    SECTION("hourly in exit-code mode") {
        auto h = test::sample_hourly(core::HourlyConclusion::culprit);
        h.failure_rates = true;
        h.good_runs = {3, 0};
        h.bad_runs = {1, 2};
        h.first_bad_log = core::FailureLog{"2023-08-25T14:00:00Z jax@aaaaaaa xla@3c66a1f",
                                           "logs/14.log", -11, "Segmentation fault\n"};
        check_round_trip(h);
    }
    SECTION("an investigation with two narrowed regressions") {
        check_round_trip(test::sample_investigation(true));
    }
    SECTION("numbers with many digits read back bit for bit") {
        auto d = test::sample_detect("a", "b");
        d.noise = 0.1 + 0.2;
        d.relative_noise = 9.879999999999999e37;
        d.threshold = std::numeric_limits<double>::denorm_min();
        d.change_points.front().p_value = 1.0 / 3.0;
        const auto again = adapters::read_result_document(report::render_json(d), "r.json");
        const auto& r = std::get<core::DetectResult>(again);
        CHECK(r.noise == d.noise);
        CHECK(r.relative_noise == d.relative_noise);
        CHECK(r.threshold == d.threshold);
        CHECK(r.change_points.front().p_value == d.change_points.front().p_value);
    }
}

TEST_CASE("every document names its kind and format version", "[result-json]") {
    const std::vector<std::pair<core::ResultDocument, std::string>> docs = {
        {test::sample_detect("a", "b"), "detect"},
        {test::sample_daily({"2023-08-01", "2023-08-02"}, 0, 1), "daily"},
        {test::sample_hourly(core::HourlyConclusion::window), "hourly"},
        {test::sample_investigation(), "investigate"}};
    for (const auto& [doc, kind] : docs) {
        const auto d = test::parse_json_object(report::render_json(doc));
        CHECK(std::string(d["kind"].GetString()) == kind);
        CHECK(d["format_version"].GetInt() == core::k_result_format_version);
    }
    const auto inv = test::parse_json_object(report::render_json(test::sample_investigation(true)));
    CHECK(inv["daily"].Size() == 2);
    CHECK(inv["hourly"].Size() == 2);
    CHECK(inv["regressions"].Size() == 2);
    CHECK(inv["regressions"][1]["hourly"].GetInt() == 1);
}

TEST_CASE("detect JSON carries the documented fields", "[result-json][detect]") {
    core::DetectResult r;
    r.metric = "MLUPS";
    r.verdict = core::Verdict::regression;
    core::ChangePoint c;
    c.last_before = "2023-08-23";
    c.first_after = "2023-08-24";
    c.old_level = 577.3;
    c.new_level = 537;
    c.relative_change = -0.07;
    c.p_value = 1e-9;
    c.kind = core::ChangeKind::regression;
    r.change_points.push_back(c);
    r.failed.push_back({"2023-08-16", "failed: Traceback"});
    const auto d = test::parse_json_object(report::render_json(r));
    CHECK(std::string(d["metric"].GetString()) == "MLUPS");
    CHECK(std::string(d["direction"].GetString()) == "higher");
    CHECK(std::string(d["verdict"].GetString()) == "regression");
    const auto& cp = d["change_points"][0];
    CHECK(std::string(cp["last_before"].GetString()) == "2023-08-23");
    CHECK(std::string(cp["first_after"].GetString()) == "2023-08-24");
    CHECK(cp["old"].GetDouble() == 577.3);
    CHECK(cp["new"].GetDouble() == 537);
    CHECK(cp["relative_change"].GetDouble() == -0.07);
    CHECK(std::string(cp["kind"].GetString()) == "regression");
    CHECK(std::string(d["failed"][0]["label"].GetString()) == "2023-08-16");
    CHECK(std::string(d["failed"][0]["reason"].GetString()) == "failed: Traceback");
}

TEST_CASE("strings are escaped and invalid UTF-8 becomes U+FFFD", "[result-json]") {
    auto d = test::sample_detect("a", "b");
    d.reason = std::string("quote \" backslash \\ newline \n tab \t bell \x07 bad \xff end");
    const std::string json = report::render_json(d);
    CHECK_THAT(json, Catch::Contains(R"(quote \" backslash \\ newline \n tab \t bell \u0007 bad )"
                                     "\xEF\xBF\xBD end"));
    const auto r = std::get<core::DetectResult>(adapters::read_result_document(json, "r.json"));
    CHECK(r.reason == "quote \" backslash \\ newline \n tab \t bell \x07 bad \xEF\xBF\xBD end");
}

TEST_CASE("the reader names the file, the JSON path and what was expected", "[result-json]") {
    auto err = [](const std::string& json) {
        try {
            adapters::read_result_document(json, "res.json");
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("(accepted)");
    };
    CHECK_THAT(err(R"({"kind": "daily", "format_version": 2, "points": [{"label": "d",
                       "values": [1, "x"]}]})"),
               Catch::Contains("res.json: at $.points[0].values[1]: expected a number"));
    CHECK_THAT(err(R"({"kind": "report", "format_version": 2})"),
               Catch::Contains("res.json: at $.kind: expected \"detect\", \"daily\""));
    CHECK_THAT(err(R"({"kind": "daily", "format_version": 3})"),
               Catch::Contains("written by a newer perfsweep"));
    CHECK_THAT(err(R"({"kind": "hourly", "format_version": 2, "conclusion": "maybe"})"),
               Catch::Contains("at $.conclusion: expected \"planned\", \"window\""));
    CHECK_THAT(err(R"({"kind": "hourly", "format_version": 2, "states": [{"time": "noon"}]})"),
               Catch::Contains("at $.states[0].time: expected an ISO 8601 time"));
    CHECK_THAT(err(R"({"kind": "daily", "format_version": 2, "points": [{"label": "a"}],
                       "boundaries": [{"last_before": "a", "first_after": "zz"}]})"),
               Catch::Contains("at $.boundaries[0].first_after: expected the label of a listed "
                               "point"));
    CHECK_THAT(err(R"({"kind": "investigate", "format_version": 2, "daily": [],
                       "regressions": [{"daily": 0}]})"),
               Catch::Contains("at $.regressions[0].daily: expected the index of a daily result"));
    CHECK_THAT(err(R"({"kind": "investigate", "format_version": 2, "daily": {}})"),
               Catch::Contains("at $.daily: expected an array"));
    CHECK_THAT(err("[1, 2]"), Catch::Contains("res.json: at $: expected a JSON object"));
    CHECK_THAT(err("{\"kind\": "), Catch::Contains("res.json: not valid JSON at offset"));
    CHECK_THAT(err(std::string(200, '[') + std::string(200, ']')),
               Catch::Contains("res.json: not valid JSON at offset 128: arrays and objects nested "
                               "deeper than 128 levels (line 1, column 129)"));
    // The report model an older `report --format json` wrote is refused with the way out.
    CHECK_THAT(err(R"({"kind": "investigate", "daily_points": [], "hourly_states": []})"),
               Catch::Contains("render the stage result it was made from"));
}

TEST_CASE("documents older versions wrote are read: stage results and result.json",
          "[result-json][legacy]") {
    // `hourly --json` before format 2: no kind, measured states only "good"/"bad".
    const auto h = adapters::read_result_document(
        R"({"conclusion": "culprit", "message": "m", "metric": "MLUPS", "mode": "metric",
            "states": [{"time": "2023-08-25T13:00:00Z", "commits": {"xla": "2222222b"},
                        "changed": ["xla"], "duplicate": false, "status": "good",
                        "values": [577.2, 576.9]},
                       {"time": "2023-08-25T14:00:00Z", "commits": {"xla": "3c66a1fc"},
                        "changed": ["xla"], "duplicate": false, "status": "bad",
                        "values": [536.5, 536.9]}],
            "window": {"last_good": {"time": "2023-08-25T13:00:00Z", "commits": {"xla": "2222222b"}},
                       "first_bad": {"time": "2023-08-25T14:00:00Z", "commits": {"xla": "3c66a1fc"}}},
            "changed": ["xla"],
            "candidates": {"xla": [{"sha": "3c66a1fc", "time": "2023-08-25T13:41:07Z",
                                    "author": "Jane", "subject": "Change A"}]},
            "compare_urls": {}, "commit_steps": [],
            "culprit": {"repo": "xla", "sha": "3c66a1fc", "time": "2023-08-25T13:41:07Z",
                        "author": "Jane", "subject": "Change A", "note": "only xla changed"},
            "builds": 2, "runs": 4, "budget_exhausted": false})",
        "hourly.json");
    REQUIRE(core::kind_of(h) == core::ResultKind::hourly);
    CHECK(report::verdict_sentence(h) ==
          "MLUPS fell 7.0 % (577.0 → 536.7) between 2023-08-25T13:00:00Z and "
          "2023-08-25T14:00:00Z; culprit: xla@3c66a1f… 'Change A'.");
    // investigate's result.json before format 2: one daily and one hourly object.
    const auto inv = adapters::read_result_document(
        R"({"kind": "investigate", "verdict": "regression",
            "detect": {"metric": "MLUPS", "verdict": "regression", "change_points": []},
            "daily": {"stage": "daily", "metric": "MLUPS", "points": [
                {"label": "2023-08-24", "status": "ok", "values": [10]},
                {"label": "2023-08-25", "status": "ok", "values": [8]}],
              "boundaries": [{"last_before": "2023-08-24", "first_after": "2023-08-25",
                              "old": 10, "new": 8, "relative_change": -0.2,
                              "kind": "regression"}], "runs": 2, "complete": true},
            "hourly": {"conclusion": "no_change", "message": "no repo changed", "states": [],
                       "window": {"last_good": null, "first_bad": null}, "builds": 1,
                       "runs": 3}})",
        "result.json");
    const auto& i = std::get<core::Investigation>(inv);
    CHECK(i.daily.size() == 1);
    CHECK(i.hourly.size() == 1);
    REQUIRE(i.regressions.size() == 1);
    CHECK(i.regressions[0].hourly == std::optional<std::size_t>(0));
    CHECK(i.spend.runs == 5);
    CHECK(i.spend.builds == 1);
    CHECK(report::verdict_sentence(inv) ==
          "MLUPS fell 20.0 % (10.00 → 8.00) between nightly 2023-08-24 and 2023-08-25; the "
          "hourly stage found no change (no repo changed).");
}

TEST_CASE("an older daily result may name points it does not list", "[result-json][legacy]") {
    // A boundary between unlisted nightlies (as `hourly --from-result` inputs were trimmed): the
    // points are added, each with its (empty) records, and the boundary's builds are kept.
    const auto trimmed = adapters::read_result_document(
        R"({"metric": "MLUPS", "points": [], "boundaries": [
            {"last_before": "2023-08-24", "first_after": "2023-08-25", "kind": "regression",
             "last_before_commits": {"xla": "aaaa"},
             "last_before_commit_times": {"xla": "2023-08-24T01:00:00Z"},
             "first_after_commits": {"xla": "bbbb"},
             "first_after_commit_times": {"xla": "2023-08-25T01:00:00Z"}}]})",
        "daily.json");
    const auto& t = std::get<core::DailyResult>(trimmed);
    REQUIRE(t.sweep.points.size() == 2);
    CHECK(t.measurements.size() == 2);
    const auto w = core::regression_window(t, "daily.json");
    CHECK(w.last_good_label == "2023-08-24");
    CHECK(w.first_bad_label == "2023-08-25");
    CHECK(w.good_commits.at("xla") == "aaaa");
    CHECK(w.bad_times.at("xla") == "2023-08-25T01:00:00Z");
    CHECK_FALSE(report::render_markdown(trimmed).empty());

    // An unlisted broken nightly inside the boundary being read moves its first bad point.
    const auto doc = adapters::read_result_document(
        R"({"metric": "MLUPS", "points": [{"label": "2023-08-23", "values": [10]},
                                          {"label": "2023-08-26", "values": [8]}],
            "boundaries": [{"last_before": "2023-08-24", "first_after": "2023-08-26",
                            "broken_between": ["2023-08-25"], "kind": "regression"}]})",
        "daily.json");
    const auto& d = std::get<core::DailyResult>(doc);
    REQUIRE(d.sweep.points.size() == 4);
    CHECK(d.measurements.size() == 4);
    REQUIRE(d.sweep.boundaries.size() == 1);
    const auto& b = d.sweep.boundaries[0];
    CHECK(d.sweep.points.at(b.last_before).label == "2023-08-24");
    CHECK(d.sweep.points.at(b.first_after).label == "2023-08-26");
    REQUIRE(b.broken_between.size() == 1);
    CHECK(d.sweep.points.at(b.broken_between[0]).label == "2023-08-25");
}
