#include "adapters/github/github_client.hpp"
#include "adapters/system/local_files.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

using namespace perfsweep;

TEST_CASE("Link headers yield the rel=next URL", "[github][client]") {
    CHECK(
        adapters::next_link(
            R"(<https://api.github.com/repositories/1/issues/2/comments?page=2&per_page=100>; rel="next", <https://api.github.com/repositories/1/issues/2/comments?page=3&per_page=100>; rel="last")") ==
        "https://api.github.com/repositories/1/issues/2/comments?page=2&per_page=100");
    CHECK(adapters::next_link(
              R"(<https://x/a?page=1>; rel="first", <https://x/a?page=2>; rel="prev")")
              .empty());
    CHECK(adapters::next_link("").empty());
}

TEST_CASE("the client refuses bad settings and bad repository names", "[github][client]") {
    adapters::SystemClock clock;
    adapters::GitHubOptions opt;
    opt.token = "";
    CHECK_THROWS_AS(adapters::GitHubClient(opt, clock), Error);
    opt.token = "t";
    opt.api_url = "ftp://example";
    CHECK_THROWS_WITH(adapters::GitHubClient(opt, clock), Catch::Contains("GITHUB_API_URL"));
    CHECK_NOTHROW(adapters::check_repo_name("acme/lbm.js", "--repo"));
    for (const std::string bad :
         {"acme", "acme/lbm/x", "acme/..", "ac me/lbm", "acme/lbm?x=1", "/lbm"})
        CHECK_THROWS_WITH(adapters::check_repo_name(bad, "--repo"),
                          Catch::Contains("expected OWNER/NAME"));
}

TEST_CASE("a dropped connection to a closed port is reported without the token",
          "[github][client]") {
    adapters::SystemClock clock;
    adapters::GitHubOptions opt;
    opt.token = "super-secret-token";
    opt.api_url = "http://127.0.0.1:1"; // nothing listens on port 1
    opt.max_attempts = 2;
    opt.backoff_s = 0.01;
    adapters::GitHubClient client(opt, clock);
    try {
        client.list_comments("acme/lbm", 1);
        FAIL("expected an error");
    } catch (const Error& e) {
        const std::string msg = e.what();
        CHECK(msg.find("GET /repos/acme/lbm/issues/1/comments") != std::string::npos);
        CHECK(msg.find("after 2 attempts") != std::string::npos);
        CHECK(msg.find("super-secret-token") == std::string::npos);
    }
}
