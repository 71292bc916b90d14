#pragma once
// JSON printed or written by perfsweep, parsed for assertions (integration tests and suites).

#include <catch2/catch.hpp>
#include <rapidjson/document.h>

#include <string>

namespace perfsweep::test {

/// `text` parsed; the test fails unless it is valid JSON holding one object.
inline rapidjson::Document parse_json_object(const std::string& text) {
    rapidjson::Document d;
    d.Parse(text.c_str());
    REQUIRE_FALSE(d.HasParseError());
    REQUIRE(d.IsObject());
    return d;
}

} // namespace perfsweep::test
