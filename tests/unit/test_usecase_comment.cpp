// The sticky comment use case on the in-memory code host (tests/support/fakes/code_host).

#include "app/comment.hpp"
#include "report/markdown.hpp"
#include "support/fakes/code_host.hpp"

#include <catch2/catch.hpp>

using namespace perfsweep;

TEST_CASE("comment --new-issue never reuses an outsider's issue that carries the marker",
          "[usecase][comment]") {
    fakes::FakeCodeHosts hosts;
    hosts.tokens["GITHUB_TOKEN"] = "t";
    auto& outsider = hosts.data.repos["acme/lbm"][1];
    outsider.issue.number = 1;
    outsider.issue.title = "please look";
    outsider.issue.state = "open";
    outsider.issue.author = "outsider";
    outsider.issue.body = "copied: " + report::marker_for_key("default");
    auto host = hosts.open("GITHUB_TOKEN");
    app::CommentRequest req;
    req.repo = "acme/lbm";
    req.new_issue_title = "perfsweep: MLUPS regression";
    req.body = "the report";
    const auto r = app::post_sticky_comment(*host, req);
    CHECK(r.action == "issue-created");
    CHECK(r.number == 2);
    CHECK(hosts.data.repos["acme/lbm"][1].comments.empty());
    // Our own issue (opened by the token's user) is reused the next time.
    hosts.data.repos["acme/lbm"][2].issue.state = "open";
    req.body = "the report, updated";
    const auto again = app::post_sticky_comment(*host, req);
    CHECK(again.number == 2);
    CHECK(again.action == "created");
    CHECK(hosts.data.repos["acme/lbm"][1].comments.empty());
}
