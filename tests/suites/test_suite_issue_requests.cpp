// Issue-triggered runs (issue 8): `perfsweep issue-request` against the loopback GitHub API. An
// issue by an author without write access, or whose ```perfsweep block tries to pass a command,
// an unknown key or a bad value, is refused with a sticky comment that explains why (quoting no
// hostile text), the command exits non-zero, and the gated workflow step never runs.
#include "support/actions_audit.hpp"
#include "support/fake_github.hpp"
#include "support/figures.hpp"
#include "support/temp_dir.hpp"

#include <catch2/catch.hpp>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

using namespace perfsweep::test;

namespace {

/// An `issues` (or `issue_comment`) payload for acme/lbm#`number`.
std::string event_json(long long number, const std::string& login, const std::string& association,
                       const std::string& body, bool as_comment = false) {
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    auto str = [&](const std::string& s) {
        w.String(s.c_str(), static_cast<rapidjson::SizeType>(s.size()));
    };
    auto author = [&](const std::string& text) {
        w.Key("body");
        str(text);
        w.Key("author_association");
        str(association);
        w.Key("user");
        w.StartObject();
        w.Key("login");
        str(login);
        w.EndObject();
    };
    w.StartObject();
    w.Key("action");
    str(as_comment ? "created" : "labeled");
    w.Key("issue");
    w.StartObject();
    w.Key("number");
    w.Int64(number);
    w.Key("title");
    str("MLUPS dropped");
    if (as_comment) {
        w.Key("body");
        str("see below");
        w.Key("author_association");
        str("OWNER");
        w.Key("user");
        w.StartObject();
        w.Key("login");
        str("maintainer");
        w.EndObject();
    } else {
        author(body);
    }
    w.EndObject();
    if (as_comment) {
        w.Key("comment");
        w.StartObject();
        w.Key("id");
        w.Int64(77);
        author(body);
        w.EndObject();
    }
    w.Key("repository");
    w.StartObject();
    w.Key("full_name");
    str("acme/lbm");
    w.EndObject();
    w.EndObject();
    return buf.GetString();
}

std::string fenced(const std::string& lines) {
    return "The nightly got slower.\n\n```perfsweep\n" + lines + "```\n";
}

rapidjson::Document json(const std::string& s) {
    rapidjson::Document d;
    d.Parse(s.c_str());
    REQUIRE(!d.HasParseError());
    return d;
}

/// Bodies of the comments on acme/lbm#n.
std::vector<std::string> comments(const FakeGitHub& gh, long long n) {
    auto d = json(gh.control("state"));
    std::vector<std::string> out;
    const std::string key = "acme/lbm#" + std::to_string(n);
    if (d["issues"].HasMember(key.c_str()))
        for (const auto& c : d["issues"][key.c_str()]["comments"].GetArray())
            out.emplace_back(c["body"].GetString());
    return out;
}

int requests_matching(const FakeGitHub& gh, const std::string& part, int* invalid) {
    auto d = json(gh.control("requests"));
    int n = 0;
    for (const auto& r : d.GetArray()) {
        if (r["invalid"].Size() != 0)
            ++*invalid;
        if (std::string(r["path"].GetString()).find(part) != std::string::npos)
            ++n;
    }
    return n;
}

struct Case {
    std::string name;
    std::string login, association, role; ///< role: the permission API's answer ("" = not set)
    std::string body;
    bool accept = false;
    std::string reason; ///< part of the refusal comment
    bool as_comment = false;
};

} // namespace

TEST_CASE("issue-triggered runs: refused requests comment and run nothing",
          "[suites][issue_request]") {
    FakeGitHub gh;
    if (!gh.available()) {
        WARN("node not found; skipping");
        return;
    }
    TempDir dir;
    const std::string canary = dir.file("CANARY");
    const std::string ran = dir.file("RAN");
    const std::string good =
        fenced("from: 2023-08-01\nto: 2023-09-30\nmetric: MLUPS\nthreshold: 2%\n");
    const std::vector<Case> cases = {
        {"no write access (read)", "outsider", "COLLABORATOR", "read", good, false,
         "has 'read' access"},
        {"triage is not enough", "triager", "MEMBER", "triage", good, false, "has 'triage' access"},
        {"association NONE", "drive-by", "NONE", "write", good, false, "association"},
        {"first-time contributor", "newbie", "FIRST_TIME_CONTRIBUTOR", "", good, false,
         "OWNER, MEMBER or COLLABORATOR"},
        {"hostile login", "evil\n::set-output name=x::y", "OWNER", "admin", good, false,
         "not a GitHub login"},
        {"command substitution in a value", "alice", "OWNER", "admin",
         fenced("from: $(touch " + canary + ")\nto: 2023-09-30\n"), false,
         "'from' is not a calendar date"},
        {"backticks in a value", "alice", "OWNER", "admin",
         fenced("from: 2023-08-01\nto: `touch " + canary + "`\n"), false,
         "'to' is not a calendar date"},
        {"a test command key", "alice", "OWNER", "admin",
         fenced("from: 2023-08-01\nto: 2023-09-30\ntest: rm -rf / ; touch " + canary + "\n"), false,
         "unknown key 'test'"},
        {"a hostile key", "alice", "OWNER", "admin",
         fenced("from: 2023-08-01\nto: 2023-09-30\n$(touch " + canary + "): 1\n"), false,
         "not shown"},
        {"workflow command in metric", "alice", "OWNER", "admin",
         fenced("from: 2023-08-01\nto: 2023-09-30\nmetric: ::set-output name=x::y\n"), false,
         "'metric' is not"},
        {"mention and fence in threshold", "alice", "OWNER", "admin",
         fenced("from: 2023-08-01\nto: 2023-09-30\nthreshold: @victim ```\n"), false,
         "'threshold' is not"},
        {"two blocks", "alice", "OWNER", "admin", good + good, false,
         "perfsweep blocks; expected exactly one"},
        {"no block", "alice", "OWNER", "admin", "please run `perfsweep investigate --test 'rm'`",
         false, "fenced block (expected"},
        {"from after to", "alice", "OWNER", "admin", fenced("from: 2023-09-30\nto: 2023-08-01\n"),
         false, "before 'to'"},
        {"impossible date", "alice", "OWNER", "admin", fenced("from: 2023-02-30\nto: 2023-08-01\n"),
         false, "not a calendar date"},
        {"more than 10 years (daily would refuse it after the GPU job started)", "alice", "OWNER",
         "admin", fenced("from: 1900-01-01\nto: 2099-12-31\n"), false,
         "more than 3660 nightly dates"},
        {"a block hidden in an HTML comment", "alice", "OWNER", "admin",
         "Looks fine to me.\n<!--\n" + good + "\n-->\n", false, "inside an HTML comment"},
        {"hostile comment by a reader", "outsider", "CONTRIBUTOR", "read",
         fenced("from: 2023-08-01\nto: 2023-09-30\n"), false, "association", true},
        {"good request (issue)", "alice", "OWNER", "admin", good, true, ""},
        {"good request (comment, maintain)", "bob", "MEMBER", "maintain",
         fenced("from: 2023-08-02\r\nto: 2023-08-20\r\n"), true, "", true},
    };
    int refused_ok = 0, accepted_ok = 0, ran_on_refusal = 0, canaries = 0, hostile_echoed = 0,
        forged = 0, bad_outputs = 0;
    long long number = 100;
    for (const auto& c : cases) {
        INFO("case: " << c.name);
        ++number;
        if (!c.role.empty())
            gh.control("permission", "{\"repo\":\"acme/lbm\",\"login\":\"" +
                                         (c.login.find('\n') == std::string::npos ? c.login : "x") +
                                         "\",\"role\":\"" + c.role + "\"}");
        const std::string event = dir.file("event-" + std::to_string(number) + ".json");
        write_file(event, event_json(number, c.login, c.association, c.body, c.as_comment));
        const std::string out_file = dir.file("output-" + std::to_string(number));
        write_file(out_file, "");
        std::filesystem::remove(ran);
        // The workflow: the request step, and (only when it succeeds) a step that runs the
        // benchmark with the validated values; here a real `perfsweep run` whose test leaves RAN.
        const std::string script = dir.file("bench.sh");
        write_file(script, "#!/bin/sh\ntouch " + ran + "\necho 'MLUPS: 500'\n");
        auto r = run_perfsweep(
            {"issue-request"},
            {"GITHUB_API_URL=" + gh.url(), "GITHUB_TOKEN=tok-user", "GITHUB_ACTIONS=true",
             "GITHUB_OUTPUT=" + out_file, "GITHUB_STEP_SUMMARY=" + dir.file("summary.md"),
             "GITHUB_EVENT_PATH=" + event,
             std::string("GITHUB_EVENT_NAME=") + (c.as_comment ? "issue_comment" : "issues"),
             "GITHUB_REPOSITORY=acme/lbm", "PERFSWEEP_GITHUB_BACKOFF_S=0.05"});
        if (r.exit_code == 0)
            run_perfsweep({"run", "--runtime", "none", "--test", "sh " + script, "--metric",
                           "MLUPS", "--logs", dir.file("logs")});
        const bool did_run = std::filesystem::exists(ran);
        const bool touched = std::filesystem::exists(canary);
        canaries += touched ? 1 : 0;
        CHECK_FALSE(touched);
        // Workflow commands: only perfsweep's own (add-mask of the token, its annotation).
        const auto a1 = audit_workflow_commands(r.out, {"tok-user"});
        const auto a2 = audit_workflow_commands(r.err, {"tok-user"});
        forged += static_cast<int>(a1.forged.size() + a2.forged.size());
        CHECK(a1.forged.empty());
        CHECK(a2.forged.empty());
        std::string err;
        const auto outputs = parse_github_output(read_file(out_file), &err);
        CHECK(err.empty());
        std::set<std::string> keys;
        for (const auto& [k, v] : outputs)
            keys.insert(k);
        const auto notes = comments(gh, number);
        if (c.accept) {
            INFO(r.err);
            CHECK(r.exit_code == 0);
            CHECK(did_run);
            const std::set<std::string> want = {"accepted",  "from", "to",   "metric",
                                                "threshold", "mode", "issue"};
            bad_outputs += keys == want ? 0 : 1;
            CHECK(keys == want);
            CHECK(notes.empty()); // no earlier refusal: nothing to update, nothing posted
            if (r.exit_code == 0 && did_run && keys == want)
                ++accepted_ok;
        } else {
            INFO(r.out << r.err);
            CHECK(r.exit_code == 2);
            CHECK_FALSE(did_run);
            ran_on_refusal += did_run ? 1 : 0;
            const std::set<std::string> want = {"accepted", "comment-url"};
            bad_outputs += keys == want ? 0 : 1;
            CHECK(keys == want);
            REQUIRE(notes.size() == 1);
            CHECK(notes[0].find("<!-- perfsweep:issue-request -->") == 0);
            CHECK(notes[0].find(c.reason) != std::string::npos);
            // Nothing hostile is echoed, in the comment or on the console.
            bool echoed = false;
            for (const char* h : {"$(", "`touch", "rm -rf", "::set-output", "@victim", "evil"})
                echoed = echoed || notes[0].find(h) != std::string::npos ||
                         r.err.find(h) != std::string::npos || r.out.find(h) != std::string::npos;
            CHECK_FALSE(echoed);
            hostile_echoed += echoed ? 1 : 0;
            if (r.exit_code == 2 && !did_run && notes.size() == 1 && !echoed)
                ++refused_ok;
        }
    }
    int invalid = 0;
    // The permission API is asked only for authors whose association allows a request.
    const int perm_calls = requests_matching(gh, "/collaborators/", &invalid);
    CHECK(perm_calls == 16);
    CHECK(invalid == 0);
    const int refusals = static_cast<int>(
        std::count_if(cases.begin(), cases.end(), [](const Case& c) { return !c.accept; }));
    CHECK(refused_ok == refusals);
    CHECK(accepted_ok == 2);
    report_figure("issue_requests", {{"requests", std::to_string(cases.size())},
                                     {"refused_with_comment",
                                      std::to_string(refused_ok) + "/" + std::to_string(refusals)},
                                     {"accepted", std::to_string(accepted_ok) + "/2"},
                                     {"runs_after_refusal", std::to_string(ran_on_refusal)},
                                     {"canaries", std::to_string(canaries)},
                                     {"hostile_text_echoed", std::to_string(hostile_echoed)},
                                     {"forged_workflow_commands", std::to_string(forged)},
                                     {"unexpected_output_keys", std::to_string(bad_outputs)}});
}

TEST_CASE("issue-triggered runs: the refusal comment is sticky and an accepted retry updates it",
          "[suites][issue_request]") {
    FakeGitHub gh;
    if (!gh.available()) {
        WARN("node not found; skipping");
        return;
    }
    TempDir dir;
    gh.control("permission", R"({"repo":"acme/lbm","login":"alice","role":"write"})");
    const std::vector<std::string> env = {
        "GITHUB_API_URL=" + gh.url(), "GITHUB_TOKEN=tok-user",
        "GITHUB_ACTIONS=", "GITHUB_REPOSITORY=", "GITHUB_EVENT_NAME="};
    auto ask = [&](const std::string& body) {
        write_file(dir.file("e.json"), event_json(7, "alice", "COLLABORATOR", body));
        return run_perfsweep({"issue-request", "--event", dir.file("e.json")}, env);
    };
    auto r1 = ask(fenced("from: 2023-08-01\nto: 2023-09-30\nimage: evil:latest\n"));
    CHECK(r1.exit_code == 2);
    auto r2 = ask(fenced("from: 2023-08-01\nto: 2023-09-30\ntest: id\n"));
    CHECK(r2.exit_code == 2);
    auto notes = comments(gh, 7);
    REQUIRE(notes.size() == 1);
    CHECK(notes[0].find("unknown key 'test'") != std::string::npos);
    CHECK(notes[0].find("'image'") == std::string::npos); // updated in place, not appended
    auto r3 = ask(fenced("from: 2023-08-01\nto: 2023-09-30\n"));
    INFO(r3.err);
    CHECK(r3.exit_code == 0);
    CHECK(r3.out == "from=2023-08-01\nto=2023-09-30\nmetric=\nthreshold=\nmode=\nissue=7\n");
    notes = comments(gh, 7);
    REQUIRE(notes.size() == 1);
    CHECK(notes[0].find("request accepted") != std::string::npos);
    // --no-comment refuses without posting; a missing event is a usage error naming it.
    write_file(dir.file("e2.json"), event_json(8, "alice", "COLLABORATOR", "nothing"));
    CHECK(run_perfsweep({"issue-request", "--event", dir.file("e2.json"), "--no-comment"}, env)
              .exit_code == 2);
    CHECK(comments(gh, 8).empty());
    auto bad = run_perfsweep({"issue-request", "--event", dir.file("missing.json")}, env);
    CHECK(bad.exit_code == 2);
    CHECK(bad.err.find("missing.json") != std::string::npos);
    write_file(dir.file("e3.json"), R"({"issue":{"number":3},"repository":{"full_name":"a/b"}})");
    auto partial = run_perfsweep({"issue-request", "--event", dir.file("e3.json")}, env);
    CHECK(partial.exit_code == 2);
    CHECK(partial.err.find("$.issue.body is missing") != std::string::npos);
}
