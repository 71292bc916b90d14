// The sticky comment in-process against the loopback GitHub (every request validated against
// GitHub's OpenAPI description): `comment`'s options resolved by the CLI's rules, the real Actions
// environment adapter reading the event, the real GitHub client, app::post_sticky_comment. What
// the binary prints and writes inside Actions is tested in test_github_secrets.

#include "adapters/github/actions_env.hpp"
#include "adapters/github/github_client.hpp"
#include "adapters/system/local_files.hpp"
#include "app/comment.hpp"
#include "app/options_data.hpp"
#include "support/command_values.hpp"
#include "support/fake_github.hpp"
#include "support/fakes/memory.hpp"
#include "support/temp_dir.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>
#include <rapidjson/document.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

using namespace perfsweep;
using namespace perfsweep::test;

namespace {

const std::string k_events = std::string(PERFSWEEP_SOURCE_DIR) + "/tests/data/events/";

std::vector<std::string> env_for(const FakeGitHub& gh, const std::string& token = "tok-user") {
    return {"GITHUB_API_URL=" + gh.url(),
            "GITHUB_TOKEN=" + token,
            "PERFSWEEP_GITHUB_BACKOFF_S=0.05",
            "PERFSWEEP_GITHUB_TIMEOUT_S=1",
            "GITHUB_ACTIONS=",
            "GITHUB_EVENT_PATH=",
            "GITHUB_REPOSITORY="};
}

rapidjson::Document json(const std::string& s) {
    rapidjson::Document d;
    d.Parse(s.c_str());
    REQUIRE(!d.HasParseError());
    return d;
}

/// Comments of acme/lbm#n as (author, body) from the server's state.
std::vector<std::pair<std::string, std::string>> comments(const FakeGitHub& gh, int n) {
    auto d = json(gh.control("state"));
    std::vector<std::pair<std::string, std::string>> out;
    const std::string key = "acme/lbm#" + std::to_string(n);
    if (!d["issues"].HasMember(key.c_str()))
        return out;
    for (const auto& c : d["issues"][key.c_str()]["comments"].GetArray())
        out.emplace_back(c["login"].GetString(), c["body"].GetString());
    return out;
}

/// Every recorded request was valid against the OpenAPI description.
void check_all_valid(const FakeGitHub& gh) {
    auto d = json(gh.control("requests"));
    REQUIRE(d.IsArray());
    CHECK(d.Size() > 0);
    for (const auto& r : d.GetArray()) {
        INFO(r["method"].GetString() << " " << r["path"].GetString());
        CHECK(r["invalid"].Size() == 0);
        CHECK(std::string(r["headers"]["authorization"].GetString()) == "Bearer <redacted>");
        CHECK(std::string(r["headers"]["user-agent"].GetString()).rfind("perfsweep/", 0) == 0);
    }
}

int count_requests(const FakeGitHub& gh, const std::string& method, const std::string& path_part,
                   const std::string& query_part = "") {
    auto d = json(gh.control("requests"));
    int n = 0;
    for (const auto& r : d.GetArray())
        if (r["method"].GetString() == method &&
            std::string(r["path"].GetString()).find(path_part) != std::string::npos &&
            std::string(r["query"].GetString()).find(query_part) != std::string::npos)
            ++n;
    return n;
}

/// How one `comment` ended: what it did to which issue, or the error that stopped it.
struct Commented {
    int exit_code = -1; ///< 0, or the exit code the CLI maps the error's kind to (2 usage, 3 other)
    std::string action; ///< created | updated | issue-created
    long long number = 0;
    std::string err; ///< the error's message
};

/// `perfsweep comment --github-repo acme/lbm --body-file BODY --key nightly ARGS` in-process, in
/// a step whose environment is env_for(gh, token) and `extra_env` ("NAME=value"): the event read
/// by the real ActionsEnv, the client's settings read from it as the binary reads them.
Commented comment(const FakeGitHub& gh, const TempDir& dir, std::vector<std::string> args,
                  std::vector<std::string> extra_env = {}, const std::string& token = "tok-user") {
    const std::string body = dir.file("body.md");
    if (!std::ifstream(body))
        write_file(body, "## perfsweep\nMLUPS fell 7.0 %\n");
    std::vector<std::string> argv = {"--body-file", body, "--key", "nightly"};
    if (std::find(args.begin(), args.end(), "--github-repo") == args.end())
        argv.insert(argv.end(), {"--github-repo", "acme/lbm"});
    argv.insert(argv.end(), args.begin(), args.end());
    auto envs = env_for(gh, token);
    envs.insert(envs.end(), extra_env.begin(), extra_env.end());
    const auto get = env_reader(envs);
    Commented r;
    try {
        const auto res = post_comment_in_process(argv, get).first;
        r.action = res.action;
        r.number = res.number;
        r.exit_code = 0;
    } catch (const Error& e) {
        r.err = e.what();
        r.exit_code = e.kind() == ErrorKind::usage ? 2 : 3;
    }
    return r;
}

} // namespace

#define REQUIRE_NODE(gh)                                                                           \
    if (!(gh).available()) {                                                                       \
        WARN("node is not installed: skipping the fake GitHub API tests");                         \
        return;                                                                                    \
    }

TEST_CASE("comment creates once, then updates the same comment in place", "[github][comment]") {
    FakeGitHub gh;
    REQUIRE_NODE(gh);
    TempDir dir;
    auto r = comment(gh, dir, {"--pr", "5"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK((r.action == "created" && r.number == 5));
    write_file(dir.file("body.md"), "second version\n");
    r = comment(gh, dir, {"--pr", "5"});
    REQUIRE(r.exit_code == 0);
    CHECK((r.action == "updated" && r.number == 5));
    const auto c = comments(gh, 5);
    REQUIRE(c.size() == 1);
    CHECK(c[0].second == "<!-- perfsweep:nightly -->\nsecond version\n");
    check_all_valid(gh);
    CHECK(r.err.find("tok-user") == std::string::npos);
}

TEST_CASE("the marker is found on page 3 of 250 comments via the Link header",
          "[github][comment]") {
    FakeGitHub gh;
    REQUIRE_NODE(gh);
    std::string seed = R"({"repo":"acme/lbm","number":9,"comments":[)";
    for (int i = 0; i < 250; ++i) {
        std::string body =
            i == 230 ? "<!-- perfsweep:nightly -->\\nold report" : "chatter " + std::to_string(i);
        if (i == 10)
            body = "<!-- perfsweep:nightly -->\\ncopied by a human"; // other author: ignored
        const std::string who = i == 230 ? "perf-bot-user" : "human";
        seed +=
            std::string(i ? "," : "") + R"({"login":")" + who + R"(","body":")" + body + R"("})";
    }
    seed += "]}";
    gh.control("seed", seed);
    TempDir dir;
    auto r = comment(gh, dir, {"--issue", "9"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.action == "updated");
    const auto c = comments(gh, 9);
    REQUIRE(c.size() == 250);
    CHECK(c[230].second.find("MLUPS fell") != std::string::npos);
    CHECK(c[10].second.find("copied by a human") != std::string::npos);
    CHECK(count_requests(gh, "GET", "/issues/9/comments", "page=3") == 1);
    check_all_valid(gh);
}

TEST_CASE("5xx, 502 and slow replies are retried, reads and PATCH succeed", "[github][faults]") {
    FakeGitHub gh;
    REQUIRE_NODE(gh);
    TempDir dir;
    REQUIRE(comment(gh, dir, {"--pr", "3"}).exit_code == 0);
    gh.control("faults", R"([{"method":"GET","path":"/comments$","status":500},
                             {"method":"GET","path":"/comments$","delay_ms":2500},
                             {"method":"PATCH","status":502},
                             {"method":"PATCH","drop":"before"}])");
    write_file(dir.file("body.md"), "a new report\n");
    auto r = comment(gh, dir, {"--pr", "3"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(comments(gh, 3).size() == 1);
    CHECK(count_requests(gh, "PATCH", "/issues/comments/") == 3);
}

TEST_CASE("a POST whose outcome is unknown never leaves two comments", "[github][faults]") {
    FakeGitHub gh;
    REQUIRE_NODE(gh);
    TempDir dir;
    SECTION("the connection drops after the server created it") {
        gh.control("faults", R"([{"method":"POST","drop":"after"}])");
        auto r = comment(gh, dir, {"--pr", "11"});
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        CHECK(comments(gh, 11).size() == 1);
        CHECK(count_requests(gh, "POST", "/comments") == 1);
    }
    SECTION("a 500 before anything happened: re-list, then post again") {
        gh.control("faults", R"([{"method":"POST","status":500}])");
        auto r = comment(gh, dir, {"--pr", "11"});
        REQUIRE(r.exit_code == 0);
        CHECK(comments(gh, 11).size() == 1);
        CHECK(count_requests(gh, "POST", "/comments") == 2);
        CHECK(count_requests(gh, "GET", "/issues/11/comments") == 2);
    }
}

TEST_CASE("rate limits honour retry-after and x-ratelimit-reset, with a cap", "[github][faults]") {
    FakeGitHub gh;
    REQUIRE_NODE(gh);
    TempDir dir;
    gh.control(
        "faults",
        R"([{"method":"GET","path":"/comments$","status":403,"retry_after":1,"message":"You have exceeded a secondary rate limit"},
                             {"method":"POST","status":429,"reset_in":0}])");
    auto r = comment(gh, dir, {"--pr", "4"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(comments(gh, 4).size() == 1);
    gh.control(
        "faults",
        R"([{"method":"GET","status":403,"retry_after":120,"message":"secondary rate limit"}])");
    r = comment(gh, dir, {"--pr", "4"}, {"PERFSWEEP_GITHUB_MAX_WAIT_S=5"});
    CHECK(r.exit_code == 3);
    CHECK(r.err.find("secondary rate limit") != std::string::npos);
    CHECK(r.err.find("exceeds the cap of 5 s") != std::string::npos);
}

TEST_CASE("401 reports the API's message and status, never the token", "[github][faults]") {
    FakeGitHub gh;
    REQUIRE_NODE(gh);
    TempDir dir;
    auto r = comment(gh, dir, {"--pr", "4"}, {}, "wrong-secret-token");
    CHECK(r.exit_code == 3);
    CHECK(r.err.find("401 Bad credentials") != std::string::npos);
    CHECK(r.err.find("wrong-secret-token") == std::string::npos);
    // A repository that is not OWNER/NAME is refused.
    r = comment(gh, dir, {"--github-repo", "acme", "--pr", "1"});
    CHECK(r.exit_code != 0);
}

TEST_CASE("with an Actions GITHUB_TOKEN the author is the github-actions bot",
          "[github][comment]") {
    FakeGitHub gh;
    REQUIRE_NODE(gh);
    gh.control(
        "seed",
        R"({"repo":"acme/lbm","number":8,"comments":[{"login":"mallory","body":"<!-- perfsweep:nightly -->\nfake"}]})");
    TempDir dir;
    auto r = comment(gh, dir, {"--pr", "8"}, {}, "ghs_actions_token");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.action == "created"); // mallory's copy of the marker is not ours
    r = comment(gh, dir, {"--pr", "8"}, {}, "ghs_actions_token");
    CHECK(r.action == "updated");
    const auto c = comments(gh, 8);
    REQUIRE(c.size() == 2);
    CHECK(c[0].second == "<!-- perfsweep:nightly -->\nfake");
    CHECK(c[1].first == "github-actions[bot]");
}

TEST_CASE("new-issue opens one issue and then reuses it, with a GHES base URL",
          "[github][comment]") {
    FakeGitHub gh;
    REQUIRE_NODE(gh);
    TempDir dir;
    auto env = std::vector<std::string>{"GITHUB_API_URL=" + gh.url() + "/api/v3"};
    auto r = comment(gh, dir,
                     {"--new-issue", "perfsweep: MLUPS regression", "--issue-label", "perf"}, env);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK((r.action == "issue-created" && r.number == 1));
    r = comment(gh, dir, {"--new-issue", "perfsweep: MLUPS regression", "--issue-label", "perf"},
                env);
    REQUIRE(r.exit_code == 0);
    CHECK((r.action == "created" && r.number == 1));
    r = comment(gh, dir, {"--new-issue", "perfsweep: MLUPS regression", "--issue-label", "perf"},
                env);
    CHECK((r.action == "updated" && r.number == 1));
    CHECK(comments(gh, 1).size() == 1);
    CHECK(count_requests(gh, "POST", "/repos/acme/lbm/issues") == 2); // one issue, one comment
    check_all_valid(gh);
}

TEST_CASE("the target comes from the event payload, schedule needs an explicit target",
          "[github][events]") {
    FakeGitHub gh;
    REQUIRE_NODE(gh);
    TempDir dir;
    const std::vector<std::pair<std::string, int>> cases = {
        {"pull_request", 42}, {"issues", 7}, {"issue_comment", 42}, {"workflow_dispatch", 13}};
    for (const auto& [event, number] : cases) {
        INFO(event);
        auto r = comment(
            gh, dir, {},
            {"GITHUB_EVENT_NAME=" + event, "GITHUB_EVENT_PATH=" + k_events + event + ".json"});
        INFO(r.err);
        REQUIRE(r.exit_code == 0);
        CHECK(r.number == number);
    }
    auto r =
        comment(gh, dir, {},
                {"GITHUB_EVENT_NAME=schedule", "GITHUB_EVENT_PATH=" + k_events + "schedule.json"});
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("'schedule' event has no PR or issue") != std::string::npos);
    CHECK(r.err.find("--new-issue") != std::string::npos);
}

TEST_CASE("a PATCH answered 307 and a comment list answered 301 say where it moved, and change "
          "nothing",
          "[github][faults][redirects]") {
    FakeGitHub gh;
    REQUIRE_NODE(gh);
    TempDir dir;
    REQUIRE(comment(gh, dir, {"--pr", "7"}).exit_code == 0);
    // A renamed repository: GitHub answers a write with 307 to the new name.
    gh.control("faults", R"([{"method":"PATCH","status":307,
        "headers":{"location":"https://api.github.example/repos/acme/lbm-new/issues/comments/1"}}])");
    write_file(dir.file("body.md"), "a new report\n");
    auto r = comment(gh, dir, {"--pr", "7"});
    INFO(r.err);
    CHECK(r.exit_code == 3);
    CHECK(r.action.empty());
    CHECK(r.err.find(
              "307 moved to https://api.github.example/repos/acme/lbm-new/issues/comments/1") !=
          std::string::npos);
    CHECK(r.err.find("renamed or transferred") != std::string::npos);
    CHECK(comments(gh, 7).at(0).second.find("a new report") == std::string::npos);
    // A list answered 301: before, "expected a JSON array".
    gh.control("faults", R"([{"method":"GET","path":"/comments$","status":301,
        "headers":{"location":"https://api.github.example/repositories/42/issues/7/comments"}}])");
    r = comment(gh, dir, {"--pr", "7"});
    CHECK(r.exit_code == 3);
    CHECK(r.err.find("301 moved to https://api.github.example/repositories/42/issues/7/comments") !=
          std::string::npos);
    CHECK(r.err.find("expected a JSON array") == std::string::npos);
}

TEST_CASE("a 403 secondary rate limit without Retry-After waits a minute, then longer",
          "[github][faults]") {
    FakeGitHub gh;
    REQUIRE_NODE(gh);
    gh.control("seed", R"({"repo":"acme/lbm","number":5,"comments":[]})");
    gh.control("faults", R"([{"method":"GET","path":"/comments$","status":403,"times":2,
        "message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again."}])");
    perfsweep::fakes::ManualClock clock;
    perfsweep::adapters::GitHubOptions opt;
    opt.api_url = gh.url();
    opt.token = "tok-user";
    perfsweep::adapters::GitHubClient client(opt, clock);
    CHECK(client.list_comments("acme/lbm", 5).empty()); // the third attempt is answered
    CHECK(clock.sleeps == std::vector<double>{60, 120});
}

TEST_CASE("a reply that never ends is cut at the size cap, not read into memory",
          "[github][faults]") {
    FakeGitHub gh;
    REQUIRE_NODE(gh);
    gh.control("faults", R"([{"method":"GET","path":"/comments$","endless":true}])");
    perfsweep::fakes::ManualClock clock;
    perfsweep::adapters::GitHubOptions opt;
    opt.api_url = gh.url();
    opt.token = "tok-user";
    opt.max_reply_bytes = 4u << 20;
    perfsweep::adapters::GitHubClient client(opt, clock);
    try {
        client.list_comments("acme/lbm", 5);
        FAIL("expected an error");
    } catch (const perfsweep::Error& e) {
        CHECK_THAT(std::string(e.what()),
                   Catch::Contains("GET /repos/acme/lbm/issues/5/comments") &&
                       Catch::Contains("larger than 4 MiB"));
    }
    CHECK(clock.sleeps.empty()); // not retried
}
