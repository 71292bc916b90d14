#include "util/strings.hpp"
#include "util/time.hpp"

#include <catch2/catch.hpp>

using namespace perfsweep::util;

TEST_CASE("dates round-trip and reject impossible days", "[util][time]") {
    auto d = parse_date("2023-08-24");
    REQUIRE(d);
    CHECK(format_date(*d) == "2023-08-24");
    CHECK(format_date(add_days(*d, 8)) == "2023-09-01");
    CHECK_FALSE(parse_date("2023-02-29"));
    CHECK(parse_date("2024-02-29"));
    CHECK_FALSE(parse_date("2023-8-24"));
}

TEST_CASE("ISO 8601 times need a zone", "[util][time]") {
    std::string why;
    CHECK_FALSE(parse_iso8601("2023-08-24T13:00:00", &why));
    CHECK(why.find("zone") != std::string::npos);
    auto z = parse_iso8601("2023-08-24T13:00:00Z");
    auto off = parse_iso8601("2023-08-24T15:00:00+02:00");
    REQUIRE(z);
    REQUIRE(off);
    CHECK(*z == *off);
    CHECK(format_iso8601(*z) == "2023-08-24T13:00:00Z");
    CHECK(*z == 1692882000);
    // A date is its midnight; a time needs its zone, as above.
    CHECK(parse_date_or_time("2023-08-24") == 1692835200);
    CHECK(parse_date_or_time("2023-08-24T13:00:00Z") == 1692882000);
    CHECK_FALSE(parse_date_or_time("2023-08-24T13:00:00"));
    CHECK_FALSE(parse_date_or_time("nightly"));
}

TEST_CASE("durations", "[util][time]") {
    CHECK(parse_duration("1h") == 3600);
    CHECK(parse_duration("30m") == 1800);
    CHECK(parse_duration("2h30m") == 9000);
    CHECK_FALSE(parse_duration("h"));
    CHECK_FALSE(parse_duration("0m"));
    CHECK_FALSE(parse_duration("5"));
}

TEST_CASE("numbers and ANSI stripping", "[util][strings]") {
    CHECK(parse_double("5.77e2") == 577.0);
    CHECK_FALSE(parse_double("nan"));
    CHECK_FALSE(parse_double("inf"));
    CHECK_FALSE(parse_double("12abc"));
    CHECK(strip_ansi("\x1b[32mMLUPS:\x1b[0m 577.3") == "MLUPS: 577.3");
}

TEST_CASE("fnv1a64 is FNV-1a (the published test vectors); short_hash shows its top 48 bits",
          "[util][strings]") {
    CHECK(fnv1a64("") == 0xcbf29ce484222325ull);
    CHECK(fnv1a64("a") == 0xaf63dc4c8601ec8cull);
    CHECK(fnv1a64("foobar") == 0x85944171f73967e8ull);
    CHECK(fnv1a64("", 42) == 42);
    CHECK(short_hash("a") == "af63dc4c8601");
}

TEST_CASE("replace_all replaces every match left to right, never inside a replacement",
          "[util][strings]") {
    CHECK(replace_all("", "a", "b") == "");
    CHECK(replace_all("abc", "", "x") == "abc");
    CHECK(replace_all("abc", "z", "x") == "abc");
    CHECK(replace_all("aaa", "a", "aa") == "aaaaaa"); // the replacement is not searched again
    CHECK(replace_all("aaaa", "aa", "b") == "bb");    // matches do not overlap
    CHECK(replace_all("xSECRETySECRETSECRET", "SECRET", "***") == "x***y******");
    CHECK(replace_all("SECRET", "SECRET", "") == "");
    // Many matches (the shape of server text that echoes a token 100,000 times).
    std::string many;
    for (int i = 0; i < 100000; ++i)
        many += "Bearer tok ";
    const auto out = replace_all(many, "tok", "***");
    CHECK(out.size() == many.size());
    CHECK(out.find("tok") == std::string::npos);
    CHECK(out.substr(0, 22) == "Bearer *** Bearer *** ");
}
