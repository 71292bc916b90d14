// `report` in-process: the option table's report options resolved as the CLI resolves them, the
// real JSON reader and the real files adapter, app::make_report (the command's CLI side, what it
// prints and writes and its exit codes, is tested in test_cli_basics).
#include "adapters/json/result_json.hpp"
#include "adapters/system/local_files.hpp"
#include "app/options_data.hpp"
#include "app/report.hpp"
#include "support/command_values.hpp"
#include "support/temp_dir.hpp"
#include "support/xychart_check.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace perfsweep;
using namespace perfsweep::test;

namespace {
const std::string k_data = std::string(PERFSWEEP_SOURCE_DIR) + "/tests/data/";

/// What one `report` made: the rendered text and the deprecation warnings of its options.
struct ReportMade {
    std::string text;
    std::vector<std::string> warnings;
};

/// `perfsweep report` with these options (name and value, "" for a flag), in-process.
ReportMade report_of(const std::vector<std::pair<std::string, std::string>>& options) {
    ReportMade r;
    const auto values = command_values("report", options, &r.warnings);
    const auto req = app::resolve_report(values);
    adapters::LocalFiles files;
    const auto text = files.read_text(req.input);
    r.text = app::make_report(req, adapters::read_result_document(text, req.input), files);
    return r;
}

/// The message of the usage error (exit 2) `report` stops with.
std::string usage_error(const std::vector<std::pair<std::string, std::string>>& options) {
    return usage_error_of([&] { report_of(options); });
}
} // namespace

TEST_CASE("report renders each stage's result exactly like its golden file", "[report][golden]") {
    for (const std::string name : {"investigate", "daily", "hourly", "detect_none"}) {
        INFO(name);
        const auto r =
            report_of({{"input", k_data + "results/" + name + ".json"}, {"key", "ci/nightly"}});
        CHECK(r.text == read_file(k_data + "golden/" + name + ".md"));
        for (const auto& block : mermaid_blocks(r.text))
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
        auto r = report_of(
            {{"input", k_data + "results/" + name + ".json"}, {"json", ""}, {"output", once}});
        const auto j = read_file(once);
        CHECK(r.text == j);
        CHECK(j.find("\"kind\": \"" + std::string(name == "detect_none" ? "detect" : name) +
                     "\"") != std::string::npos);
        CHECK(j.find("\"format_version\": 2") != std::string::npos);
        // render → parse → render: the same JSON and the same markdown as the original gives.
        report_of({{"input", once}, {"json", ""}, {"output", twice}});
        CHECK(read_file(twice) == j);
        const auto md = report_of({{"input", once}, {"key", "ci/nightly"}});
        CHECK(md.text == read_file(k_data + "golden/" + name + ".md"));
    }
}

TEST_CASE("report --json and --output write the document, the old --format json too", "[report]") {
    TempDir dir;
    const auto out = dir.file("r.json");
    const auto r =
        report_of({{"input", k_data + "results/investigate.json"}, {"json", ""}, {"output", out}});
    CHECK(r.warnings.empty());
    // The old spelling still works, with a warning naming the new one.
    const auto old = dir.file("old.json");
    const auto o = report_of(
        {{"input", k_data + "results/investigate.json"}, {"format", "json"}, {"output", old}});
    REQUIRE(o.warnings.size() == 1);
    CHECK(o.warnings[0].find("--format is an old name; use --json") != std::string::npos);
    CHECK(read_file(old) == read_file(out));
    const auto j = read_file(out);
    CHECK(j.find("\"kind\": \"investigate\"") != std::string::npos);
    CHECK(j.find("\"format_version\": 2") != std::string::npos);
}

TEST_CASE("report names the file and JSON path of a wrongly typed field", "[report]") {
    TempDir dir;
    const auto bad = dir.file("bad.json");
    write_file(bad, R"({"points": [{"label": "d1", "values": [1, "x"]}]})");
    CHECK(
        usage_error({{"input", bad}}).find(bad + ": at $.points[0].values[1]: expected a number") !=
        std::string::npos);
    write_file(bad, R"({"hourly": {"window": []}})");
    CHECK(usage_error({{"input", bad}}).find("at $.hourly.window: expected an object") !=
          std::string::npos);
    write_file(bad, R"({"something": 1})");
    CHECK(usage_error({{"input", bad}}).find("expected a result document") != std::string::npos);
    usage_error({{"input", k_data + "results/daily.json"}, {"key", "x-->y"}});
}
