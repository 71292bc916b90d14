// Regressions found by the fuzzers (tests/fuzz): metric extraction on huge tokens and progress
// bars, and durations far out of range.

#include "core/metric_extract.hpp"
#include "util/time.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

using namespace perfsweep;

TEST_CASE("a huge token after the metric name is a reason, not a stack overflow",
          "[metric][fuzz]") {
    const std::string re = core::default_metric_regex("MLUPS");
    const std::string out = "step 1\nMLUPS: " + std::string(200000, 'x') + "\n";
    const auto ex = core::extract_metric(out, re);
    CHECK(ex.values.empty());
    CHECK(ex.reason.find("line 2") != std::string::npos);
    const auto digits = core::extract_metric("MLUPS: " + std::string(200000, '9') + "\n", re);
    CHECK(digits.values.empty()); // 10^1024 is not finite
}

TEST_CASE("a carriage return starts the line over (progress bars)", "[metric][fuzz]") {
    const std::string re = core::default_metric_regex("MLUPS");
    const std::string bar = std::string(5000, '#');
    const auto ex = core::extract_metric("10%|" + bar + "\r100%|" + bar + "\rMLUPS: 101.5\r\n", re);
    REQUIRE(ex.values.size() == 1);
    CHECK(ex.values[0] == 101.5);
}

TEST_CASE("format_duration of absurd values does not overflow", "[time][fuzz]") {
    CHECK(util::format_duration(7200) == "2h00m");
    CHECK(!util::format_duration(1e300).empty());
    CHECK(!util::format_duration(std::numeric_limits<double>::infinity()).empty());
    CHECK(!util::format_duration(std::nan("")).empty());
}
