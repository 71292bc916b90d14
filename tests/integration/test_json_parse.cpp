#include "adapters/json/json_parse.hpp"

#include <catch2/catch.hpp>

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>

using perfsweep::adapters::JsonNumbers;
using perfsweep::adapters::JsonUtf8;
using perfsweep::adapters::k_max_json_depth;
using perfsweep::adapters::parse_json;

namespace {

std::string nested(unsigned levels) {
    return std::string(levels, '[') + "1" + std::string(levels, ']');
}

} // namespace

TEST_CASE("parse_json accepts nesting up to the limit and stops one level beyond",
          "[json][parse]") {
    rapidjson::Document d;
    REQUIRE_FALSE(parse_json(d, nested(k_max_json_depth)));
    const rapidjson::Value* v = &d;
    for (unsigned i = 0; i < k_max_json_depth; ++i) {
        REQUIRE(v->IsArray());
        v = &(*v)[0];
    }
    CHECK(v->GetInt() == 1);

    const auto err = parse_json(d, nested(k_max_json_depth + 1));
    REQUIRE(err);
    CHECK(err->too_deep);
    CHECK(err->offset == k_max_json_depth); // the bracket that opens level 129
    CHECK(err->line == 1);
    CHECK(err->message == "arrays and objects nested deeper than 128 levels (line 1, column 129)");
}

TEST_CASE("parse_json refuses 200,000 levels without recursing into them", "[json][parse]") {
    rapidjson::Document d;
    const std::string deep = "{\n \"a\": " + std::string(200000, '[');
    const auto err = parse_json(d, deep);
    REQUIRE(err);
    CHECK(err->too_deep);
    CHECK(err->line == 2);
    CHECK(err->message.find("(line 2, column 134)") != std::string::npos);
    std::string objects;
    for (int i = 0; i < 200000; ++i)
        objects += "{\"k\":";
    const auto err2 = parse_json(d, objects);
    REQUIRE(err2);
    CHECK(err2->too_deep);
}

TEST_CASE("parse_json reports ordinary errors with offset and line", "[json][parse]") {
    rapidjson::Document d;
    auto err = parse_json(d, "{\"a\": 1,\n \"b\" 2}");
    REQUIRE(err);
    CHECK_FALSE(err->too_deep);
    CHECK(err->offset == 14);
    CHECK(err->line == 2);
    CHECK(err->message == "Missing a colon after a name of object member.");
    // A document cut short ends at the end of the input (how a torn history line is recognized).
    err = parse_json(d, "{\"a\": [1, 2");
    REQUIRE(err);
    CHECK(err->offset == 11);
    CHECK_FALSE(err->too_deep);
    // The document is reset: an earlier value never survives a failed parse.
    REQUIRE_FALSE(parse_json(d, "[1]"));
    REQUIRE(parse_json(d, "nope"));
    CHECK(d.IsNull());
    // UTF-8 validation only when asked.
    CHECK_FALSE(parse_json(d, "\"\xff\""));
    CHECK(parse_json(d, "\"\xff\"", JsonUtf8::validate));
}

TEST_CASE("parse_json with exact numbers reads every shortest-form double back bit for bit",
          "[json][parse]") {
    std::mt19937_64 rng(42);
    rapidjson::Document d;
    int exact = 0;
    for (int i = 0; i < 20000; ++i) {
        std::uint64_t bits = rng();
        double x = 0;
        std::memcpy(&x, &bits, sizeof x);
        if (!std::isfinite(x))
            continue;
        char buf[64];
        const auto end = std::to_chars(buf, buf + sizeof buf, x).ptr;
        const std::string text = "[" + std::string(buf, end) + "]";
        REQUIRE_FALSE(parse_json(d, text, JsonUtf8::trust, JsonNumbers::exact));
        const double y = d[0].GetDouble();
        std::uint64_t back = 0;
        std::memcpy(&back, &y, sizeof back);
        CHECK(back == bits);
        exact += back == bits ? 1 : 0;
    }
    CHECK(exact > 19000);
    // Integers that fit are Int64; below a double's smallest is zero; RapidJSON itself refuses an
    // exponent beyond a double's range.
    REQUIRE_FALSE(
        parse_json(d, "[9007199254740993, -2, 1e-999]", JsonUtf8::validate, JsonNumbers::exact));
    CHECK(d[0].IsInt64());
    CHECK(d[0].GetInt64() == 9007199254740993);
    CHECK(d[1].GetInt64() == -2);
    CHECK(d[2].GetDouble() == 0.0);
    const auto big = parse_json(d, "[1e999]", JsonUtf8::trust, JsonNumbers::exact);
    REQUIRE(big);
    CHECK(big->message == "Number too big to be stored in double.");
    // The nesting limit holds in this mode too.
    const auto err =
        parse_json(d, nested(k_max_json_depth + 1), JsonUtf8::trust, JsonNumbers::exact);
    REQUIRE(err);
    CHECK(err->too_deep);
}
