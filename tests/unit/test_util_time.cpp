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
