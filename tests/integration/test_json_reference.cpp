// docs/json.md against the writers: every result document kind (report/result_json) and the
// history record (adapters/json/measurement_json) is rendered in process with every optional
// field set, and the set of field paths it holds must equal the one the page's tables list. A
// field added or removed on one side only fails here.

#include "adapters/json/measurement_json.hpp"
#include "report/compare_text.hpp"
#include "report/result_json.hpp"
#include "support/json_doc.hpp"
#include "support/result_samples.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

using namespace perfsweep;

namespace {

using Paths = std::set<std::string>;

/// The backticked field paths in the first column of the tables under each `## ` heading of
/// docs/json.md, by heading.
std::map<std::string, Paths> documented_paths() {
    std::ifstream in(std::string(PERFSWEEP_SOURCE_DIR) + "/docs/json.md");
    REQUIRE(in.good());
    std::map<std::string, Paths> out;
    std::string line, section;
    const std::regex name("`([^`]+)`");
    while (std::getline(in, line)) {
        if (line.rfind("## ", 0) == 0) {
            section = line.substr(3);
            continue;
        }
        if (section.empty() || line.rfind("|", 0) != 0)
            continue;
        const auto end = line.find('|', 1);
        const std::string first = line.substr(1, end == std::string::npos ? end : end - 1);
        for (std::sregex_iterator it(first.begin(), first.end(), name), stop; it != stop; ++it)
            out[section].insert((*it)[1].str());
    }
    return out;
}

/// The paths P of `paths` that are objects keyed by names: some path starts with "P.*".
Paths name_keyed(const Paths& paths) {
    Paths out;
    for (const auto& p : paths)
        for (auto at = p.find(".*"); at != std::string::npos; at = p.find(".*", at + 2))
            out.insert(p.substr(0, at));
    return out;
}

void walk_object(const rapidjson::Value& o, const std::string& prefix, const Paths& maps,
                 Paths& out);

/// Records the path of a member `path` holding `v` (arrays as "path[]", name-keyed objects as
/// "path.*") and descends into objects.
void walk_member(const rapidjson::Value& v, const std::string& path, const Paths& maps,
                 Paths& out) {
    if (v.IsArray()) {
        out.insert(path + "[]");
        for (const auto& e : v.GetArray())
            if (e.IsObject())
                walk_object(e, path + "[]", maps, out);
    } else if (v.IsObject() && maps.count(path)) {
        for (auto m = v.MemberBegin(); m != v.MemberEnd(); ++m)
            walk_member(m->value, path + ".*", maps, out);
    } else {
        out.insert(path);
        if (v.IsObject())
            walk_object(v, path, maps, out);
    }
}

void walk_object(const rapidjson::Value& o, const std::string& prefix, const Paths& maps,
                 Paths& out) {
    for (auto m = o.MemberBegin(); m != o.MemberEnd(); ++m) {
        const std::string key(m->name.GetString(), m->name.GetStringLength());
        walk_member(m->value, prefix.empty() ? key : prefix + "." + key, maps, out);
    }
}

/// The field paths of every JSON object in `texts`, together.
Paths written_paths(const std::vector<std::string>& texts, const Paths& documented) {
    Paths out;
    for (const auto& t : texts) {
        const auto d = test::parse_json_object(t);
        walk_object(d, "", name_keyed(documented), out);
    }
    return out;
}

/// Fails naming every path on one side only.
void check_same(const std::string& kind, const Paths& written, const Paths& documented) {
    std::ostringstream only_written, only_documented;
    for (const auto& p : written)
        if (!documented.count(p))
            only_written << "\n  " << p;
    for (const auto& p : documented)
        if (!written.count(p))
            only_documented << "\n  " << p;
    INFO("docs/json.md section '" << kind << "'");
    INFO("written but not listed in docs/json.md:" << only_written.str());
    INFO("listed in docs/json.md but never written:" << only_documented.str());
    CHECK(written == documented);
}

/// `section`'s paths under `prefix` (a result document embedded in an investigation).
Paths embedded(const Paths& section, const std::string& prefix) {
    Paths out;
    for (const auto& p : section)
        if (p != "kind" && p != "format_version")
            out.insert(prefix + "." + p);
    return out;
}

core::DetectResult full_detect() {
    auto d = test::sample_detect("2023-08-24", "2023-08-26");
    d.outliers = {"2023-08-15"};
    d.testbed = "H100 80GB HBM3";
    d.reference = d.segments.front();
    d.present = d.segments.back();
    d.present_change = (536.7 - 577.3) / 577.3;
    return d;
}

/// A daily sweep whose boundary also changed the environment (an environment_diff entry).
core::DailyResult with_environment_change(core::DailyResult d) {
    for (auto& m : d.measurements.at(d.sweep.boundaries.front().first_after))
        m.environment["cudnn"] = "9.2.0";
    return d;
}

/// Culprit with states that carry a reason and a log, in metric or exit-code mode.
core::HourlyResult full_hourly(bool exit_code) {
    auto h = test::sample_hourly(core::HourlyConclusion::culprit);
    h.states.front().log = "logs/12.log";
    h.commit_steps.front().log = "logs/commit-1.log";
    h.commit_steps.front().reason = "test failed: exit 1";
    if (exit_code) {
        h.failure_rates = true;
        h.good_runs = {3, 0};
        h.bad_runs = {1, 2};
        h.first_bad_log = core::FailureLog{"2023-08-25T14:00:00Z", "logs/14.log", -11, "SEGV\n"};
    }
    return h;
}

/// Two narrowed regressions, in metric or exit-code mode.
core::Investigation full_investigation(bool exit_code) {
    auto inv = test::sample_investigation(true);
    inv.detect = full_detect();
    inv.daily.front() =
        with_environment_change(exit_code ? test::exit_code_daily() : inv.daily.front());
    inv.hourly.front() = full_hourly(exit_code);
    inv.repo_urls = {{"xla", "https://github.com/openxla/xla"}};
    inv.runner = {{"gpu", "NVIDIA H100 80GB HBM3"}};
    // several series: every one checked, and which one each regression is
    inv.series = {{{"lbm", "MLUPS", "H100 80GB HBM3"}, {"a note"}, full_detect()}};
    for (auto& r : inv.regressions)
        r.series = "lbm · MLUPS · H100 80GB HBM3";
    return inv;
}

} // namespace

TEST_CASE("the JSON reference (docs/json.md) lists exactly the fields the writers write",
          "[result-json][docs]") {
    const auto doc = documented_paths();
    for (const char* section : {"detect", "daily", "hourly", "investigate", "history record"})
        REQUIRE(doc.count(section));
    const auto render = [](const core::ResultDocument& d) { return report::render_json(d); };

    SECTION("detect") {
        const auto& want = doc.at("detect");
        check_same("detect", written_paths({render(full_detect())}, want), want);
    }
    SECTION("detect-series and compare") {
        Paths want = doc.at("detect-series");
        for (const auto& p : embedded(doc.at("detect"), "series[]"))
            want.insert(p);
        core::SeriesDetect s{{"lbm", "MLUPS", "H100 80GB HBM3"}, {"a note"}, full_detect()};
        check_same("detect-series", written_paths({report::render_series_json({s, s})}, want),
                   want);
        report::CompareReport c;
        c.verdict = "regression";
        c.base_source = "interleaved runs";
        report::CompareRow row;
        row.key = {"lbm", "MLUPS", "H100 80GB HBM3"};
        row.estimate = {-0.03, -0.04, -0.02, 0.005, 6, 5};
        c.rows = {row};
        check_same("compare", written_paths({report::render_compare_json(c)}, doc.at("compare")),
                   doc.at("compare"));
    }
    SECTION("daily, metric and exit-code mode") {
        const auto& want = doc.at("daily");
        const auto metric = with_environment_change(
            test::sample_daily({"2023-08-23", "2023-08-24", "2023-08-25", "2023-08-26"}, 1, 3));
        const auto exit_code = with_environment_change(test::exit_code_daily());
        check_same("daily", written_paths({render(metric), render(exit_code)}, want), want);
    }
    SECTION("hourly, metric and exit-code mode") {
        const auto& want = doc.at("hourly");
        check_same("hourly",
                   written_paths({render(full_hourly(false)), render(full_hourly(true))}, want),
                   want);
    }
    SECTION("investigate, metric and exit-code mode, with the documents it embeds") {
        Paths want = doc.at("investigate");
        for (const auto& [key, section] : {std::pair<std::string, std::string>{"detect", "detect"},
                                           {"daily[]", "daily"},
                                           {"hourly[]", "hourly"}}) {
            const auto inner = embedded(doc.at(section), key);
            want.insert(inner.begin(), inner.end());
        }
        for (const auto& p : embedded(doc.at("detect"), "series[]"))
            want.insert(p);
        want.insert({"series[].name", "series[].notes[]"});
        check_same("investigate",
                   written_paths(
                       {render(full_investigation(false)), render(full_investigation(true))}, want),
                   want);
    }
    SECTION("history record, metric and exit-code mode") {
        const auto& want = doc.at("history record");
        auto m = test::nightly_record("2023-08-24", "3c66a1fcccccccccccccccccccccccccccccccccc",
                                      "9.1.0");
        m.benchmark = "MLUPS3d.py 256 200";
        m.values = {577.3, 577.1};
        m.timestamp = "2023-08-24T06:00:00Z";
        m.runner = {{"gpu", "NVIDIA H100 80GB HBM3"}};
        auto failing = m;
        failing.values = {1};
        failing.exit_codes = {-11};
        failing.failure_log = "logs/2023-08-24.log";
        failing.recipe = "bash {path:lbm}/build.sh"; // a rebuilt state (hourly, commit stages)
        check_same(
            "history record",
            written_paths(
                {adapters::measurement_to_json(m), adapters::measurement_to_json(failing)}, want),
            want);
    }
}
