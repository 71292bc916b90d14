#include "util/secret_text.hpp"

#include <catch2/catch.hpp>

#include <string>

using perfsweep::util::scrub_server_text;

TEST_CASE("server text: every secret is masked, the longest first", "[util][secrets]") {
    CHECK(scrub_server_text("Validation failed for Bearer s3cr3t-value", {"s3cr3t-value"}) ==
          "Validation failed for Bearer ***");
    CHECK(scrub_server_text("a abcdefgh b abcd", {"abcd", "abcdefgh"}) == "a *** b ***");
    CHECK(scrub_server_text("no secret here", {"", "ab"}) == "no secret here"); // < 4 bytes: kept
    CHECK(scrub_server_text("x=ZZZZ, again ZZZZ", {"ZZZZ"}) == "x=***, again ***");
}

TEST_CASE("server text: token-shaped words are masked without being listed", "[util][secrets]") {
    const std::string ghs = "ghs_" + std::string(36, 'a') + "9";
    CHECK(scrub_server_text("echo: " + ghs + ".", {}) == "echo: ***");
    CHECK(scrub_server_text("github_pat_11ABCDEFG0123456789_abcdefghijk end", {}) == "*** end");
    CHECK(scrub_server_text("Authorization: Bearer x9y8z7w6v5u4t3", {}) ==
          "Authorization: Bearer ***");
    CHECK(scrub_server_text("authorization: token 0123456789abcdef", {}) ==
          "authorization: token ***");
    CHECK(scrub_server_text("Basic eC1hY2Nlc3MtdG9rZW46c2VjcmV0", {}) == "Basic ***");
    CHECK(scrub_server_text("at https://x-access-token:hunter2@github.com/a/b.git", {}) ==
          "at https://x-access-token:***@github.com/a/b.git");
    // Ordinary words after the schemes and short prefixes stay.
    CHECK(scrub_server_text("Bad token format; Bearer realm expected; ghs_short", {}) ==
          "Bad token format; Bearer realm expected; ghs_short");
    CHECK(scrub_server_text("see https://github.com/a/b/issues/1", {}) ==
          "see https://github.com/a/b/issues/1");
}

TEST_CASE("server text: one line, valid UTF-8, bounded", "[util][secrets]") {
    CHECK(scrub_server_text("a\r\nb\tc\x1b[31m", {}) == "a  b c [31m");
    CHECK(scrub_server_text("bad \xff byte", {}) == "bad \xEF\xBF\xBD byte");
    const std::string big(5 << 20, 'x');
    const auto cut = scrub_server_text(big, {}, 100);
    CHECK(cut == std::string(100, 'x') + " ... (cut; 5242880 bytes in all)");
    // A cut never splits a UTF-8 sequence.
    const auto e = scrub_server_text("aa\xC3\xA9\xC3\xA9", {}, 3);
    CHECK(e.rfind("aa ...", 0) == 0);
    // Secrets are masked before the cut: no prefix of one survives at the end.
    const std::string secret = "SECRETVALUE123";
    const auto s =
        scrub_server_text(std::string(95, 'y') + secret + std::string(50, 'z'), {secret}, 100);
    CHECK(s.find("SECRET") == std::string::npos);
    CHECK(s.rfind(std::string(95, 'y') + "***", 0) == 0);
}
