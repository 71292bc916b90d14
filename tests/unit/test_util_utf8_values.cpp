#include "core/import_formats.hpp"
#include "core/metric_extract.hpp"
#include "core/model.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

using namespace perfsweep;

TEST_CASE("first_invalid_utf8 finds the first bad byte", "[util][utf8]") {
    CHECK_FALSE(util::first_invalid_utf8(""));
    CHECK_FALSE(util::first_invalid_utf8("plain ascii"));
    CHECK_FALSE(util::first_invalid_utf8("MLUPS \xc2\xb1 \xe2\x86\x92 \xf0\x9f\x9a\x80"));
    CHECK(util::first_invalid_utf8("ab\xff") == 2u);
    CHECK(util::first_invalid_utf8("\xc3\x28") == 0u);         // bad continuation
    CHECK(util::first_invalid_utf8("x\xc0\xaf") == 1u);        // overlong '/'
    CHECK(util::first_invalid_utf8("\xed\xa0\x80") == 0u);     // surrogate U+D800
    CHECK(util::first_invalid_utf8("\xf4\x90\x80\x80") == 0u); // above U+10FFFF
    CHECK(util::first_invalid_utf8("ok\xe2\x86") == 2u);       // cut short
}

TEST_CASE("sanitize_utf8 replaces only invalid bytes", "[util][utf8]") {
    CHECK(util::sanitize_utf8("caf\xc3\xa9") == "caf\xc3\xa9");
    CHECK(util::sanitize_utf8("a\xff"
                              "b") == "a\xef\xbf\xbd"
                                      "b");
    CHECK_FALSE(util::first_invalid_utf8(util::sanitize_utf8("\xfe\xff\xc3")));
}

TEST_CASE("metric values: finite and below 1e150 in magnitude, negatives allowed",
          "[core][values]") {
    CHECK(core::metric_value_problem(577.3).empty());
    CHECK(core::metric_value_problem(-5.5).empty());
    CHECK(core::metric_value_problem(0).empty());
    CHECK(core::metric_value_problem(1e150).empty());
    CHECK(core::metric_value_problem(1e151).find("absurd") != std::string::npos);
    CHECK(core::metric_value_problem(-1e308).find("absurd") != std::string::npos);
    CHECK(core::metric_value_problem(std::nan("")) == "not a finite number");
    CHECK(core::metric_value_problem(-std::numeric_limits<double>::infinity()) ==
          "not a finite number");
    const auto ex = core::extract_metric("MLUPS: 500\nMLUPS: 1e200\n", "MLUPS:\\s*(\\S+)");
    CHECK(ex.values.empty());
    CHECK(ex.reason.find("line 2") != std::string::npos);
}

TEST_CASE("CSV import: timestamps need a zone and are normalised, absurd values refused",
          "[core][import]") {
    core::ImportDefaults d;
    d.metric = "MLUPS";
    auto ms =
        core::parse_csv("label,value,timestamp\nn1,500,2023-08-24T05:00:00+02:00\n", "a.csv", d);
    REQUIRE(ms.size() == 1);
    CHECK(ms[0].timestamp == "2023-08-24T03:00:00Z");
    CHECK_THROWS_WITH(
        core::parse_csv("label,value,timestamp\nn1,500,2023-08-24T05:00\n", "a.csv", d),
        Catch::Contains("a.csv:2") && Catch::Contains("no zone"));
    CHECK_THROWS_WITH(core::parse_csv("label,value\nn1,-1e300\n", "a.csv", d),
                      Catch::Contains("a.csv:2") && Catch::Contains("absurd"));
    auto g = core::parse_grep("OUT-1:MLUPS: 1e300\n", "g.txt", d);
    REQUIRE(g.size() == 1);
    CHECK(g[0].status == core::Status::failed);
    CHECK(g[0].reason.find("absurd") != std::string::npos);
}
