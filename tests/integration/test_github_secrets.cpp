// Server-provided text never carries a secret out: the loopback GitHub API echoes the
// Authorization header (as a proxy or a GHES instance may) into error messages, `errors[]`, raw
// bodies, a 3 MB message and the html_url perfsweep stores as an output; the token must appear in
// no output, file or message, and every message stays short.

#include "support/env_guard.hpp"
#include "support/fake_github.hpp"
#include "support/temp_dir.hpp"

#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

using namespace perfsweep::test;

namespace {

#define REQUIRE_NODE(gh)                                                                           \
    if (!(gh).available()) {                                                                       \
        WARN("node is not installed: skipping the fake GitHub API tests");                         \
        return;                                                                                    \
    }

/// A unique secret that does not look like a GitHub token (so only exact masking can hide it).
std::string unique_secret(const char* stem) {
    std::random_device rd;
    return std::string(stem) + std::to_string(rd()) + std::to_string(rd());
}

struct Run {
    CommandResult r;
    std::string files; ///< GITHUB_OUTPUT and GITHUB_STEP_SUMMARY after the run
};

/// `perfsweep comment --pr 5` against `gh` inside a simulated Actions job.
Run comment(const FakeGitHub& gh, const TempDir& dir, const std::vector<std::string>& env_extra,
            const std::vector<std::string>& args_extra = {}) {
    write_file(dir.file("body.md"), "## perfsweep\nMLUPS fell 7.0 %\n");
    write_file(dir.file("output.txt"), "");
    write_file(dir.file("summary.md"), "");
    std::vector<std::string> args = {"comment", "--repo",      "acme/lbm",          "--pr",
                                     "5",       "--body-file", dir.file("body.md"), "--key",
                                     "nightly"};
    args.insert(args.end(), args_extra.begin(), args_extra.end());
    std::vector<std::string> env = {"GITHUB_API_URL=" + gh.url(),
                                    "PERFSWEEP_GITHUB_BACKOFF_S=0.01",
                                    "PERFSWEEP_GITHUB_TIMEOUT_S=2",
                                    "GITHUB_ACTIONS=true",
                                    "GITHUB_OUTPUT=" + dir.file("output.txt"),
                                    "GITHUB_STEP_SUMMARY=" + dir.file("summary.md"),
                                    "GITHUB_EVENT_PATH=",
                                    "GITHUB_REPOSITORY="};
    env.insert(env.end(), env_extra.begin(), env_extra.end());
    Run run;
    run.r = run_perfsweep(args, env);
    run.files = read_file(dir.file("output.txt")) + read_file(dir.file("summary.md"));
    return run;
}

/// The secret appears nowhere but in the runner's own `::add-mask::` request.
void check_no_secret(const Run& run, const std::string& secret) {
    std::string out = run.r.out;
    const std::string mask = "::add-mask::" + secret + "\n";
    if (out.rfind(mask, 0) == 0)
        out = out.substr(mask.size());
    CHECK(out.find(secret) == std::string::npos);
    CHECK(run.r.err.find(secret) == std::string::npos);
    CHECK(run.files.find(secret) == std::string::npos);
    CHECK(run.r.err.size() < 4096);
}

} // namespace

TEST_CASE("GitHub error text that echoes the Authorization header never shows the token",
          "[github][secrets]") {
    const std::string secret = unique_secret("EchoedSecret");
    std::unique_ptr<FakeGitHub> server;
    {
        EnvGuard token("FAKE_GITHUB_TOKEN", secret); // the fake server accepts it
        server = std::make_unique<FakeGitHub>();
    }
    FakeGitHub& gh = *server;
    REQUIRE_NODE(gh);
    TempDir dir;
    const std::vector<std::string> env = {"GITHUB_TOKEN=" + secret};

    SECTION("message and errors[] of a 422") {
        gh.control("faults", R"([{"method": "POST", "path": "/comments$", "status": 422,
            "message": "Validation failed for {authorization}",
            "errors": [{"resource": "IssueComment", "message": "header was {authorization}"},
                       {"resource": "IssueComment", "code": "invalid", "field": "body"},
                       "also {authorization}"]}])");
        const auto run = comment(gh, dir, env);
        INFO(run.r.err);
        CHECK(run.r.exit_code == 3);
        CHECK(run.r.err.find("422 Validation failed for Bearer *** (header was Bearer ***; "
                             "invalid body; also Bearer ***)") != std::string::npos);
        check_no_secret(run, secret);
    }
    SECTION("a 5xx message after every retry") {
        gh.control("faults", R"([{"method": "GET", "path": "/comments$", "status": 502,
            "times": 9, "message": "upstream rejected {authorization}"}])");
        const auto run = comment(gh, dir, env);
        INFO(run.r.err);
        CHECK(run.r.exit_code == 3);
        CHECK(run.r.err.find("502 upstream rejected Bearer ***") != std::string::npos);
        check_no_secret(run, secret);
    }
    SECTION("a raw HTML body (no JSON message)") {
        gh.control("faults", R"([{"method": "GET", "path": "/comments$", "status": 400,
            "content_type": "text/html", "body": "<html>{authorization}\n<b>bad</b></html>"}])");
        const auto run = comment(gh, dir, env);
        INFO(run.r.err);
        CHECK(run.r.exit_code == 3);
        CHECK(run.r.err.find("400 <html>Bearer *** <b>bad</b></html>") != std::string::npos);
        check_no_secret(run, secret);
    }
    SECTION("a 3 MB message is cut") {
        gh.control("faults", R"([{"method": "GET", "path": "/comments$", "status": 422,
            "message": "{authorization} ", "message_repeat": 100000}])");
        const auto run = comment(gh, dir, env);
        INFO(run.r.err.substr(0, 1000));
        CHECK(run.r.exit_code == 3);
        CHECK(run.r.err.find("bytes in all)") != std::string::npos);
        check_no_secret(run, secret);
    }
    SECTION("the html_url stored as the comment-url output") {
        gh.control("faults", R"([{"method": "POST", "path": "/comments$",
            "body": "{\"id\": 99, \"html_url\": \"https://github.example/{authorization}\", \"body\": \"x\", \"user\": {\"login\": \"perf-bot-user\"}}"}])");
        const auto run = comment(gh, dir, env);
        INFO(run.r.err);
        CHECK(run.r.exit_code == 0);
        CHECK(run.files.find("comment-url=https://github.example/Bearer ***") != std::string::npos);
        check_no_secret(run, secret);
    }
    SECTION("a token of another variable and a token-shaped word") {
        const std::string other = unique_secret("OtherSecret");
        const std::string shaped = "ghp_" + std::string(30, 'Q') + "123456";
        gh.control("faults", R"([{"method": "GET", "path": "/comments$", "status": 422,
            "message": ")" + other +
                                 " and " + shaped + R"("}])");
        const auto run =
            comment(gh, dir, {"GITHUB_TOKEN=" + secret, "PERFSWEEP_GIT_TOKEN=" + other});
        INFO(run.r.err);
        CHECK(run.r.exit_code == 3);
        CHECK(run.r.err.find("422 *** and ***") != std::string::npos);
        check_no_secret(run, other);
        check_no_secret(run, shaped);
    }
}

TEST_CASE("GitHub error text never shows the --token-env token", "[github][secrets]") {
    const std::string secret = unique_secret("TokenEnvSecret");
    std::unique_ptr<FakeGitHub> server;
    {
        EnvGuard token("FAKE_GITHUB_TOKEN", secret);
        server = std::make_unique<FakeGitHub>();
    }
    FakeGitHub& gh = *server;
    REQUIRE_NODE(gh);
    TempDir dir;
    gh.control("faults", R"([{"method": "GET", "path": "/comments$", "status": 404,
        "message": "Not Found for {authorization}"}])");
    const auto run =
        comment(gh, dir, {"GITHUB_TOKEN=", "MY_TOKEN=" + secret}, {"--token-env", "MY_TOKEN"});
    INFO(run.r.err);
    CHECK(run.r.exit_code == 3);
    CHECK(run.r.err.find("404 Not Found for Bearer ***") != std::string::npos);
    check_no_secret(run, secret);
}

// The binary inside an Actions step: its stdout and GITHUB_OUTPUT (the use case and the client
// against the loopback GitHub are tested in-process in test_github_comment).

TEST_CASE("inside Actions: token masked once, outputs with a random delimiter",
          "[github][actions]") {
    FakeGitHub gh;
    REQUIRE_NODE(gh);
    TempDir dir;
    const std::string out = dir.file("output.txt");
    write_file(out, "");
    write_file(dir.file("body.md"), "## perfsweep\nMLUPS fell 7.0 %\n");
    auto r = run_perfsweep({"comment", "--github-repo", "acme/lbm", "--body-file",
                            dir.file("body.md"), "--key", "nightly", "--pr", "2"},
                           {"GITHUB_API_URL=" + gh.url(), "GITHUB_TOKEN=tok-user",
                            "PERFSWEEP_GITHUB_BACKOFF_S=0.05", "PERFSWEEP_GITHUB_TIMEOUT_S=1",
                            "GITHUB_EVENT_PATH=", "GITHUB_REPOSITORY=", "GITHUB_ACTIONS=true",
                            "GITHUB_OUTPUT=" + out});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.rfind("::add-mask::tok-user\n", 0) == 0);
    CHECK(r.out.find("tok-user", 20) == std::string::npos);
    CHECK(r.out.find("created acme/lbm#2") != std::string::npos); // what comment prints
    const auto o = read_file(out);
    CHECK(o.find("number=2\n") != std::string::npos);
    CHECK(o.find("comment-url=https://github.example/acme/lbm/issues/2#issuecomment-") !=
          std::string::npos);
    // A --token-env variable that is empty is a usage error naming it (exit 2).
    r = run_perfsweep({"comment", "--github-repo", "acme/lbm", "--pr", "1", "--body-file",
                       dir.file("body.md"), "--token-env", "NOPE_TOKEN"},
                      {"NOPE_TOKEN="});
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("--token-env NOPE_TOKEN") != std::string::npos);
}
