#include "core/issue_request.hpp"

#include <catch2/catch.hpp>

using namespace perfsweep::core;

namespace {

std::string block(const std::string& lines) {
    return "Nightly MLUPS dropped.\r\n\r\n```perfsweep\r\n" + lines + "```\r\nthanks\n";
}

std::string all(const IssueRequestParse& p) {
    std::string s;
    for (const auto& x : p.problems)
        s += x + "\n";
    return s;
}

} // namespace

TEST_CASE("issue request: the five keys are read and normalized", "[core][issue_request]") {
    auto p = parse_issue_request(
        block("# a comment\nfrom: 2023-08-01\n  to:2023-09-30  \n\nmetric: MLUPS3d.v2\n"
              "threshold: 2.5%\n"));
    INFO(all(p));
    REQUIRE(p.problems.empty());
    CHECK(p.values.from == "2023-08-01");
    CHECK(p.values.to == "2023-09-30");
    CHECK(p.values.metric == "MLUPS3d.v2");
    CHECK(p.values.threshold == "0.025");
    auto q = parse_issue_request(block("from: 2023-08-01\nto: 2023-08-02\nthreshold: .05\n"));
    REQUIRE(q.problems.empty());
    CHECK(q.values.threshold == "0.05");
    CHECK(q.values.metric.empty());
    CHECK(q.values.mode.empty());
    auto m = parse_issue_request(block("from: 2023-08-01\nto: 2023-08-02\nmode: exit-code\n"));
    REQUIRE(m.problems.empty());
    CHECK(m.values.mode == "exit-code");
}

TEST_CASE("issue request: refusals never quote hostile text", "[core][issue_request]") {
    struct Case {
        std::string body, expect;
    };
    const std::vector<Case> cases = {
        {"no block here `from: 2023-08-01`", "no ```perfsweep"},
        {block("from: 2023-08-01\nto: 2023-08-09\n") + block("from: 2023-08-01\n"),
         "2 ```perfsweep"},
        {"```perfsweep\nfrom: 2023-08-01\n", "not closed"},
        {block("from: $(touch /tmp/CANARY)\nto: 2023-08-09\n"), "'from' is not a calendar date"},
        {block("from: 2023-02-30\nto: 2023-08-09\n"), "'from' is not a calendar date"},
        {block("from: 2023-08-01\nto: 2023-08-09\ntest: rm -rf /\n"), "unknown key 'test'"},
        {block("from: 2023-08-01\nto: 2023-08-09\n$(touch x): 1\n"), "not shown"},
        {block("from: 2023-08-01\nto: 2023-08-09\n`id`\n"), "expected 'key: value'"},
        {block("from: 2023-08-01\nfrom: 2023-08-02\nto: 2023-08-09\n"), "given twice"},
        {block("from: 2023-08-09\nto: 2023-08-01\n"), "'from' must be before 'to'"},
        {block("to: 2023-08-09\n"), "no 'from:"},
        {block("from: 2023-08-01\nto: 2023-08-09\nmetric: MLUPS; rm -rf /\n"), "'metric' is not"},
        {block("from: 2023-08-01\nto: 2023-08-09\nthreshold: 2%|id\n"), "'threshold' is not"},
        {block("from: 2023-08-01\nto: 2023-08-09\nthreshold: 150%\n"), "'threshold' is not"},
        {block("from: 2023-08-01\nto: 2023-08-09\nmode: exit-code; id\n"), "'mode' is not"},
        {block("from: 2023-08-01\nto: 2023-08-09\nmode: Exit-Code\n"), "'mode' is not"},
        {block("from: 2023-08-01\nto: 2023-08-09\nmetric: ::set-output name=x::y\n"),
         "'metric' is not"},
        {block("from: 2023-08-01\nto: 2023-08-09\nmetric: M\xe2\x80\xaeLUPS\n"), "'metric' is not"},
        {block("from: 2023-08-01\nto: 2023-08-09\n# " + std::string(5000, 'x') + "\n"),
         "expected at most 4096"},
    };
    for (const auto& c : cases) {
        const auto p = parse_issue_request(c.body);
        INFO(c.body.substr(0, 200) << "\n--\n" << all(p));
        CHECK_FALSE(p.problems.empty());
        CHECK(all(p).find(c.expect) != std::string::npos);
        CHECK(p.values.from.empty());
        for (const char* hostile : {"$(", "rm -rf", "`id`", "::set-output", "\xe2\x80\xae", "|id"})
            CHECK(all(p).find(hostile) == std::string::npos);
    }
}

TEST_CASE("issue request: who may ask", "[core][issue_request]") {
    for (const char* a : {"OWNER", "MEMBER", "COLLABORATOR"})
        CHECK(association_may_request(a));
    for (const char* a : {"CONTRIBUTOR", "FIRST_TIME_CONTRIBUTOR", "NONE", "owner", ""})
        CHECK_FALSE(association_may_request(a));
    for (const char* p : {"admin", "maintain", "write"})
        CHECK(permission_may_request(p));
    for (const char* p : {"triage", "read", "none", "Write", ""})
        CHECK_FALSE(permission_may_request(p));
    CHECK(plausible_login("octo-cat"));
    CHECK(plausible_login("dependabot[bot]"));
    CHECK_FALSE(plausible_login("-x"));
    CHECK_FALSE(plausible_login("a/../b"));
    CHECK_FALSE(plausible_login("x\n::set-output"));
    CHECK_FALSE(plausible_login(std::string(40, 'a')));
    CHECK(quote_safe_word("test") == "'test'");
    CHECK(quote_safe_word("$(id)").find("$(") == std::string::npos);
}

TEST_CASE("issue request: the daily range rule is applied before the run is accepted",
          "[core][issue_request]") {
    // More than 10 years of nightly dates: `daily` would refuse it after the GPU job started.
    auto p = parse_issue_request(block("from: 1900-01-01\nto: 2099-12-31\n"));
    CHECK(p.values.from.empty());
    REQUIRE(p.problems.size() == 1);
    CHECK(p.problems[0].find("more than 3660 nightly dates") != std::string::npos);
    CHECK(p.problems[0].find("1900") == std::string::npos); // values are never quoted
    // Exactly the limit is accepted, one more date is not.
    CHECK(parse_issue_request(block("from: 2020-01-01\nto: 2030-01-07\n")).problems.empty());
    CHECK(parse_issue_request(block("from: 2020-01-01\nto: 2030-01-08\n")).problems.size() == 1);
}

TEST_CASE("issue request: a block inside an HTML comment is refused", "[core][issue_request]") {
    const std::string hidden = "Looks fine.\n<!--\n```perfsweep\nfrom: 2023-08-01\nto: "
                               "2023-08-02\n```\n-->\n";
    auto p = parse_issue_request(hidden);
    REQUIRE(p.problems.size() == 1);
    CHECK(p.problems[0].find("inside an HTML comment") != std::string::npos);
    CHECK(p.values.from.empty());
    // Inline, unclosed, and a comment that opens inside the block's lines.
    CHECK(!parse_issue_request("x <!-- a\n```perfsweep\nfrom: 2023-08-01\nto: 2023-08-02\n```\n")
               .problems.empty());
    CHECK(!parse_issue_request("```perfsweep\nfrom: 2023-08-01 <!--\nto: 2023-08-02\n```\n-->\n")
               .problems.empty());
    // A closed comment before or after the block hides nothing.
    CHECK(parse_issue_request("<!-- template -->\n```perfsweep\nfrom: 2023-08-01\nto: "
                              "2023-08-02\n```\n<!-- end -->\n")
              .problems.empty());
}
