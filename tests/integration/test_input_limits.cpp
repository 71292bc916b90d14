// Limits that turn absurd requests into clear errors before any work: the hourly grid, daily's
// date range, and a history whose middle line is corrupt (record refuses to append to it).

#include "support/git_repo.hpp"
#include "support/temp_dir.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

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
    const auto r = run_perfsweep({"hourly", "--from", "2023-01-01T00:00Z", "--to",
                                  "2033-01-01T00:00Z", "--step", "1m", "--plan", "--repo",
                                  "a=" + repo, "--ref", "main", "--test", "true"});
    INFO(r.out.substr(0, 2000) << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("--from 2023-01-01T00:00:00Z --to 2033-01-01T00:00:00Z --step 1m: 5260321 "
                     "grid points, more than the limit of 50000") != std::string::npos);
    CHECK(r.err.find("larger --step") != std::string::npos);
}

// (issue-request's side: tests/suites/test_suite_issue_requests.cpp and the core unit test.)
TEST_CASE("daily refuses more than 10 years of dates", "[limits][daily]") {
    const auto d =
        run_perfsweep({"plan", "--stage", "daily", "--from", "1900-01-01", "--to", "2099-12-31"});
    CHECK(d.exit_code == 2);
    CHECK(d.err.find("more than 10 years of dates") != std::string::npos);
}

TEST_CASE("record appends without reading the history; its readers refuse a corrupt middle line",
          "[limits][history]") {
    // An append writes only its own line at the end (the same cost at 10^6 points): it does not
    // read, and so does not judge, the lines before. Every reader still refuses a corrupt middle
    // line naming file:line, before and after the append, and the append changes none of them.
    TempDir dir;
    const auto h = dir.file("h.jsonl");
    auto record = [&](const std::string& label) {
        return run_perfsweep(
            {"record", "--history", h, "--metric", "MLUPS", "--label", label, "--value", "500"});
    };
    REQUIRE(record("2023-08-01").exit_code == 0);
    REQUIRE(record("2023-08-02").exit_code == 0);
    std::string text = read_file(h);
    const auto nl = text.find('\n');
    text.insert(nl + 1, "{\"benchmark\":\"b\",garbage\n");
    write_file(h, text);
    const auto r = record("2023-08-03");
    CHECK(r.exit_code == 0);
    const std::string after = read_file(h);
    CHECK(after.substr(0, text.size()) == text);
    CHECK(after.find("2023-08-03", text.size()) != std::string::npos);
    const auto d = run_perfsweep({"detect", "--history", h, "--metric", "MLUPS"});
    CHECK(d.exit_code == 2);
    CHECK(d.err.find("h.jsonl:2: invalid JSON") != std::string::npos);
    // A torn last line (a crash of another writer) stays skipped; the next record starts a line.
    write_file(h, text.substr(0, nl + 1) + text.substr(text.find('\n', nl + 1) + 1) + "{\"la");
    CHECK(record("2023-08-04").exit_code == 0);
    CHECK(read_file(h).find("{\"la\n{") != std::string::npos);
}
