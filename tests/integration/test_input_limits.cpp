// Limits that turn absurd requests into clear errors before any work: the hourly grid, daily's
// date range, and a history whose middle line is corrupt (record appends without reading it; its
// readers refuse it). Each command runs in-process as the binary runs it (options by the CLI's
// rules, support/command_values; the real local adapters, support/local_world): a usage error is
// the CLI's exit 2.

#include "adapters/json/record_format.hpp"
#include "app/fanout.hpp"
#include "app/options_data.hpp"
#include "core/model.hpp"
#include "support/command_values.hpp"
#include "support/git_repo.hpp"
#include "support/local_world.hpp"
#include "support/temp_dir.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

using namespace perfsweep;
using namespace perfsweep::test;

TEST_CASE("hourly refuses a grid of millions of points before planning it", "[limits][hourly]") {
    TempDir dir;
    const auto repo = dir.file("repo");
    std::filesystem::create_directories(repo);
    git_at(repo, {"init", "-q", "-b", "main"}, 1672531200);
    write_file(repo + "/f", "x\n");
    git_at(repo, {"add", "f"}, 1672531200);
    git_at(repo, {"commit", "-q", "-m", "one"}, 1672531200);
    // Before: 4.2 GB and 117 s to plan 5.26 million states.
    const auto r = hourly_in_process({"--from", "2023-01-01T00:00Z", "--to", "2033-01-01T00:00Z",
                                      "--step", "1m", "--plan", "--repo", "a=" + repo, "--ref",
                                      "main", "--test", "true"});
    INFO(r.out.substr(0, 2000) << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("--from 2023-01-01T00:00:00Z --to 2033-01-01T00:00:00Z --step 1m: 5260321 "
                     "grid points, more than the limit of 50000") != std::string::npos);
    CHECK(r.err.find("larger --step") != std::string::npos);
}

// (issue-request's side: tests/suites/test_suite_issue_requests.cpp and the core unit test.)
TEST_CASE("daily refuses more than 10 years of dates", "[limits][daily]") {
    // `perfsweep plan --stage daily` (no --history): its options, then its matrix.
    const auto error = usage_error_of([] {
        const auto c = app::resolve_plan(command_values(
            "plan",
            options_of_args({"--stage", "daily", "--from", "1900-01-01", "--to", "2099-12-31"})));
        app::plan_daily_matrix(c.options, nullptr);
    });
    CHECK(error.find("more than 10 years of dates") != std::string::npos);
}

namespace {

/// `perfsweep record ARGS` in-process: what kept it from recording an ok point (the error, or
/// a point's status and reason); "" when every point it recorded is ok (the CLI's exit 0).
std::string record_problem(const std::vector<std::string>& args) {
    LocalWorld w;
    std::string problem;
    const auto r = run_in(w, [&](Ran& ran) {
        const auto c = app::resolve_record(command_values("record", options_of_args(args)));
        for (const auto& m : app::run_record(c.request, w.adapters))
            if (m.status != core::Status::ok)
                problem += std::string(core::to_string(m.status)) + ": " + m.reason + "\n";
        ran.exit_code = 0;
    });
    return r.exit_code == 0 ? problem : r.err;
}

/// The usage error (the CLI's exit 2) of `perfsweep detect ARGS` in-process.
std::string detect_error(const std::vector<std::string>& args) {
    LocalWorld w;
    return usage_error_of([&] {
        auto c = app::resolve_detect(command_values("detect", options_of_args(args)));
        c.request.read_json = adapters::read_json_import;
        app::run_detect_all(c.request, w.adapters);
    });
}

} // namespace

TEST_CASE("record appends without reading the history; its readers refuse a corrupt middle line",
          "[limits][history]") {
    // An append writes only its own line at the end (the same cost at 10^6 points): it does not
    // read, and so does not judge, the lines before. Every reader still refuses a corrupt middle
    // line naming file:line, before and after the append, and the append changes none of them.
    TempDir dir;
    const auto h = dir.file("h.jsonl");
    auto record = [&](const std::string& label) {
        return record_problem(
            {"--history", h, "--metric", "MLUPS", "--label", label, "--value", "500"});
    };
    REQUIRE(record("2023-08-01") == "");
    REQUIRE(record("2023-08-02") == "");
    std::string text = read_file(h);
    const auto nl = text.find('\n');
    text.insert(nl + 1, "{\"benchmark\":\"b\",garbage\n");
    write_file(h, text);
    CHECK(record("2023-08-03") == "");
    const std::string after = read_file(h);
    CHECK(after.substr(0, text.size()) == text);
    CHECK(after.find("2023-08-03", text.size()) != std::string::npos);
    CHECK(detect_error({"--history", h, "--metric", "MLUPS"}).find("h.jsonl:2: invalid JSON") !=
          std::string::npos);
    // A torn last line (a crash of another writer) stays skipped; the next record starts a line.
    write_file(h, text.substr(0, nl + 1) + text.substr(text.find('\n', nl + 1) + 1) + "{\"la");
    CHECK(record("2023-08-04") == "");
    CHECK(read_file(h).find("{\"la\n{") != std::string::npos);
}
