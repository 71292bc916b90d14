// The scheduled job's sticky issue against the loopback GitHub (every request validated against
// GitHub's OpenAPI description): one issue per key, opened on a regression, its report updated on
// the next nights, a recovery said (or the issue closed) on a healthy night, a quiet night posts
// nothing. First the use case, then the whole `investigate --comment` on a `schedule` event (its
// other ports in memory), all in-process.
#include "adapters/github/github_client.hpp"
#include "adapters/system/local_files.hpp"
#include "app/comment.hpp"
#include "app/investigate.hpp"
#include "app/option_table.hpp"
#include "app/option_values.hpp"
#include "app/options.hpp"
#include "support/fake_github.hpp"
#include "support/fakes/world.hpp"
#include "support/temp_dir.hpp"

#include <catch2/catch.hpp>
#include <rapidjson/document.h>

#include <string>
#include <vector>

using namespace perfsweep;
using test::FakeGitHub;

namespace {

rapidjson::Document json(const std::string& s) {
    rapidjson::Document d;
    d.Parse(s.c_str());
    REQUIRE(!d.HasParseError());
    return d;
}

struct Issue {
    long long number = 0;
    std::string title, body, state, state_reason, login;
    std::vector<std::string> labels;
    std::vector<std::pair<std::string, std::string>> comments; ///< (login, body)
    int edits = 0;
};

/// Issues of acme/lbm in the fake server's state, by number.
std::vector<Issue> issues(const FakeGitHub& gh) {
    auto d = json(gh.control("state"));
    std::vector<Issue> out;
    for (auto it = d["issues"].MemberBegin(); it != d["issues"].MemberEnd(); ++it) {
        const auto& v = it->value;
        if (std::string(v["repo"].GetString()) != "acme/lbm")
            continue;
        Issue i;
        i.number = v["number"].GetInt64();
        i.title = v["title"].GetString();
        i.body = v["body"].GetString();
        i.state = v["state"].GetString();
        if (v.HasMember("state_reason") && v["state_reason"].IsString())
            i.state_reason = v["state_reason"].GetString();
        if (v.HasMember("login") && v["login"].IsString())
            i.login = v["login"].GetString();
        for (const auto& l : v["labels"].GetArray())
            i.labels.push_back(l.GetString());
        for (const auto& c : v["comments"].GetArray())
            i.comments.emplace_back(c["login"].GetString(), c["body"].GetString());
        if (v.HasMember("edits"))
            i.edits = v["edits"].GetInt();
        out.push_back(i);
    }
    return out;
}

/// Requests of `method` whose path contains `part`.
int count(const FakeGitHub& gh, const std::string& method, const std::string& part = "") {
    auto d = json(gh.control("requests"));
    int n = 0;
    for (const auto& r : d.GetArray())
        if (r["method"].GetString() == method &&
            std::string(r["path"].GetString()).find(part) != std::string::npos)
            ++n;
    return n;
}

void check_all_valid(const FakeGitHub& gh) {
    auto d = json(gh.control("requests"));
    for (const auto& r : d.GetArray()) {
        INFO(r["method"].GetString() << " " << r["path"].GetString());
        CHECK(r["invalid"].Size() == 0);
    }
}

struct Host {
    adapters::SystemClock clock;
    adapters::GitHubClient client;
    Host(const FakeGitHub& gh, const std::string& token)
        : client(
              [&] {
                  adapters::GitHubOptions o;
                  o.api_url = gh.url();
                  o.token = token;
                  o.backoff_s = 0.05;
                  o.timeout_s = 1;
                  return o;
              }(),
              clock) {}
};

app::StickyIssueRequest request(const std::string& id = "MLUPS 2023-08-25..2023-08-26") {
    app::StickyIssueRequest r;
    r.repo = "acme/lbm";
    r.key = "nightly";
    r.title = "perfsweep: MLUPS regression";
    r.labels = {"perfsweep"};
    r.regression_id = id;
    return r;
}

const std::string k_report1 = "<!-- perfsweep:nightly -->\n## MLUPS fell 7.0 %\nnight 1\n";
const std::string k_report2 = "<!-- perfsweep:nightly -->\n## MLUPS fell 7.0 %\nnight 2\n";

} // namespace

#define REQUIRE_NODE(gh)                                                                           \
    if (!(gh).available()) {                                                                       \
        WARN("node is not installed: skipping the fake GitHub API tests");                         \
        return;                                                                                    \
    }

TEST_CASE("sticky issue: opened once, updated on the next regression nights", "[github][issue]") {
    FakeGitHub gh;
    REQUIRE_NODE(gh);
    Host h(gh, "ghs_actions_token"); // an Actions GITHUB_TOKEN: the author is the bot
    auto r = app::update_sticky_issue(h.client, request(), app::NightState::regression, k_report1,
                                      "recovered");
    CHECK(r.action == "issue-created");
    CHECK(r.number == 1);
    CHECK(r.url == "https://github.example/acme/lbm/issues/1");
    auto all = issues(gh);
    REQUIRE(all.size() == 1);
    CHECK(all[0].title == "perfsweep: MLUPS regression");
    CHECK(all[0].labels == std::vector<std::string>{"perfsweep"});
    CHECK(all[0].body.find("<!-- perfsweep:nightly -->") != std::string::npos);
    CHECK(all[0].body.find("<!-- perfsweep-regression: MLUPS 2023-08-25..2023-08-26 -->") !=
          std::string::npos);
    CHECK(all[0].login == "github-actions[bot]");

    r = app::update_sticky_issue(h.client, request(), app::NightState::regression, k_report2,
                                 "recovered");
    CHECK(r.action == "issue-updated");
    CHECK(r.number == 1);
    r = app::update_sticky_issue(h.client, request(), app::NightState::regression, k_report2,
                                 "recovered");
    CHECK(r.action == "unchanged");
    all = issues(gh);
    REQUIRE(all.size() == 1);
    CHECK(all[0].body.find("night 2") != std::string::npos);
    CHECK(all[0].edits == 1);
    CHECK(all[0].comments.empty());
    CHECK(count(gh, "POST") == 1);
    check_all_valid(gh);
}

TEST_CASE("sticky issue: a healthy night says so once, closes on request, then stays quiet",
          "[github][issue]") {
    FakeGitHub gh;
    REQUIRE_NODE(gh);
    Host h(gh, "tok-user");
    // A quiet night with no issue: only lookups, nothing written.
    auto r = app::update_sticky_issue(h.client, request(), app::NightState::healthy, "", "ok");
    CHECK(r.action == "none");
    CHECK(count(gh, "POST") + count(gh, "PATCH") == 0);
    // Undecided nights touch nothing at all.
    r = app::update_sticky_issue(h.client, request(), app::NightState::undecided, k_report1, "x");
    CHECK(r.action == "none");
    const int requests_before = count(gh, "GET");

    app::update_sticky_issue(h.client, request(), app::NightState::regression, k_report1, "x");
    r = app::update_sticky_issue(h.client, request(), app::NightState::healthy, "",
                                 "**Recovered** night 3");
    CHECK(r.action == "recovery-noted");
    r = app::update_sticky_issue(h.client, request(), app::NightState::healthy, "",
                                 "**Recovered** night 4");
    CHECK(r.action == "recovery-noted");
    auto all = issues(gh);
    REQUIRE(all.size() == 1);
    CHECK(all[0].state == "open");
    REQUIRE(all[0].comments.size() == 1); // updated in place
    CHECK(all[0].comments[0].second.find("night 4") != std::string::npos);
    CHECK(all[0].comments[0].second.find("<!-- perfsweep:nightly:status -->") != std::string::npos);

    // The regression is back: the report is updated and the stale recovery note says so.
    r = app::update_sticky_issue(h.client, request(), app::NightState::regression, k_report2, "x");
    CHECK(r.action == "issue-updated");
    all = issues(gh);
    REQUIRE(all[0].comments.size() == 1);
    CHECK(all[0].comments[0].second.find("regression is back") != std::string::npos);

    auto closing = request();
    closing.close_on_recovery = true;
    r = app::update_sticky_issue(h.client, closing, app::NightState::healthy, "", "recovered");
    CHECK(r.action == "issue-closed");
    all = issues(gh);
    CHECK(all[0].state == "closed");
    CHECK(all[0].state_reason == "completed");
    // Closed: the next healthy night is quiet again.
    const int writes = count(gh, "POST") + count(gh, "PATCH");
    r = app::update_sticky_issue(h.client, closing, app::NightState::healthy, "", "recovered");
    CHECK(r.action == "none");
    CHECK(count(gh, "POST") + count(gh, "PATCH") == writes);
    CHECK(count(gh, "GET") > requests_before);
    check_all_valid(gh);
}

TEST_CASE("sticky issue: a closed issue about the same regression is not opened again",
          "[github][issue]") {
    FakeGitHub gh;
    REQUIRE_NODE(gh);
    Host h(gh, "tok-user");
    app::update_sticky_issue(h.client, request(), app::NightState::regression, k_report1, "x");
    // Someone closes it ("won't fix") while the level stays low.
    ports::IssueUpdate close;
    close.state = "closed";
    close.state_reason = "not_planned";
    h.client.update_issue("acme/lbm", 1, close);
    auto r =
        app::update_sticky_issue(h.client, request(), app::NightState::regression, k_report2, "x");
    CHECK(r.action == "closed-earlier");
    CHECK(r.number == 1);
    CHECK(issues(gh).size() == 1);
    // A different regression (a new window) opens a new issue.
    r = app::update_sticky_issue(h.client, request("MLUPS 2023-09-10..2023-09-11"),
                                 app::NightState::regression, k_report2, "x");
    CHECK(r.action == "issue-created");
    CHECK(r.number == 2);
    CHECK(issues(gh).size() == 2);
    check_all_valid(gh);
}

TEST_CASE("sticky issue: someone else's copy of the marker is ignored, unknown outcomes are "
          "re-checked",
          "[github][issue][faults]") {
    FakeGitHub gh;
    REQUIRE_NODE(gh);
    gh.control("seed", R"({"repo":"acme/lbm","number":1,"issue":{"title":"copied",)"
                       R"("body":"<!-- perfsweep:nightly -->\nnot ours","login":"mallory",)"
                       R"("labels":["perfsweep"]}})");
    // The creation happens, its reply is lost: the issue is found by its marker, not duplicated.
    gh.control("faults", R"([{"method":"POST","path":"/repos/acme/lbm/issues$","drop":"after"}])");
    Host h(gh, "tok-user");
    auto r =
        app::update_sticky_issue(h.client, request(), app::NightState::regression, k_report1, "x");
    CHECK(r.action == "issue-created");
    CHECK(r.number == 2);
    const auto all = issues(gh);
    REQUIRE(all.size() == 2);
    CHECK(all[0].body == "<!-- perfsweep:nightly -->\nnot ours"); // mallory's, untouched
    CHECK(count(gh, "POST", "/issues") == 1);
    check_all_valid(gh);
}

TEST_CASE("sticky issue: labels dropped by GitHub still find the issue", "[github][issue]") {
    FakeGitHub gh;
    REQUIRE_NODE(gh);
    // An earlier night's issue without its label (a token that may not set labels).
    gh.control("seed",
               R"({"repo":"acme/lbm","number":4,"issue":{"title":"perfsweep: MLUPS regression",)"
               R"("body":"<!-- perfsweep:nightly -->\nold","login":"perf-bot-user"}})");
    Host h(gh, "tok-user");
    auto r =
        app::update_sticky_issue(h.client, request(), app::NightState::regression, k_report1, "x");
    CHECK(r.action == "issue-updated");
    CHECK(r.number == 4);
    CHECK(issues(gh).size() == 1);
}

// ---- investigate --comment on a `schedule` event, in-process with the real GitHub client

namespace {

/// The real GitHub client against the loopback server, whatever the token variable.
class LoopbackHosts final : public ports::CodeHosts {
public:
    explicit LoopbackHosts(const FakeGitHub& gh) : m_gh(gh) {}
    std::unique_ptr<ports::CodeHost> open(const std::string&) override {
        adapters::GitHubOptions o;
        o.api_url = m_gh.url();
        o.token = "ghs_actions_token";
        o.backoff_s = 0.05;
        o.timeout_s = 1;
        return std::make_unique<adapters::GitHubClient>(o, m_clock);
    }

private:
    const FakeGitHub& m_gh;
    adapters::SystemClock m_clock;
};

/// A history of `n` flat MLUPS points (no regression), one per nightly from 2023-08-01.
std::string flat_history(int n) {
    std::string out;
    for (int i = 0; i < n; ++i) {
        const std::string date =
            "2023-08-" + std::string(i + 1 < 10 ? "0" : "") + std::to_string(i + 1);
        out += R"({"benchmark":"bench","metric":"MLUPS","unit":"MLUPS","direction":"higher",)"
               R"("label":")" +
               date + R"(","status":"ok","values":[)" + std::to_string(577 + (i % 3)) + "]}\n";
    }
    return out;
}

} // namespace

TEST_CASE("investigate on a schedule event: a healthy night with nothing open posts nothing",
          "[github][issue][investigate]") {
    FakeGitHub gh;
    REQUIRE_NODE(gh);
    // An Actions step on a `schedule` event (no issue or PR), the rest of the world in memory.
    fakes::World w;
    w.actions.active = true;
    w.actions.target.event_name = "schedule";
    w.actions.target.why_none = "a schedule event has no issue or PR";
    fakes::import_file(w, "h.jsonl", flat_history(12), "history.jsonl");
    LoopbackHosts hosts(gh);
    ports::Adapters adapters{w.files,   w.progress, w.clock, w.actions, w.histories,
                             w.runners, w.repos,    hosts,   w.secrets, w.demo_world};
    app::OptionValues v(*app::find_command_spec("investigate"));
    v.set("history", "history.jsonl");
    v.set("test", "true");
    v.set("benchmark", "bench");
    v.set("metric", "MLUPS");
    v.set_flag("comment");
    v.set("output-dir", "out");
    v.check();
    const auto r = app::run_investigate(
        app::resolve_investigate(v, {"acme/lbm", &w.actions}).options, adapters);
    CHECK(r.exit_code == 0);
    CHECK(count(gh, "POST") + count(gh, "PATCH") == 0);
    CHECK(w.actions.outputs.at("verdict") == "no_regression");
    CHECK(w.actions.outputs.at("issue-action") == "none");
    check_all_valid(gh);
}
