#include "core/metric_extract.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

using namespace perfsweep::core;

TEST_CASE("metric extraction: colour, repeats, scientific notation", "[core][metric]") {
    const auto re = default_metric_regex("MLUPS");
    auto ex = extract_metric("warmup\n\x1b[1;32mMLUPS:\x1b[0m 577.30\nMLUPS: 5.771e2\n", re);
    REQUIRE(ex.reason.empty());
    CHECK(ex.values == std::vector<double>{577.30, 577.1});
}

TEST_CASE("metric extraction failures are reasons, not values", "[core][metric]") {
    const auto re = default_metric_regex("MLUPS");
    CHECK(extract_metric("nothing here\n", re).values.empty());
    auto nan = extract_metric("MLUPS: nan\n", re);
    CHECK(nan.values.empty());
    CHECK(nan.reason.find("line 1") != std::string::npos);
    CHECK(extract_metric("MLUPS: inf\n", re).values.empty());
    CHECK(extract_metric("MLUPS: Traceback\n", re).values.empty());
    CHECK_THROWS_AS(extract_metric("x", "no group"), perfsweep::Error);
    CHECK_THROWS_AS(extract_metric("x", "(unclosed"), perfsweep::Error);
}

TEST_CASE("a custom regex with one group", "[core][metric]") {
    auto ex = extract_metric("throughput=12.5 it/s\n", R"(throughput=([0-9.]+))");
    CHECK(ex.values == std::vector<double>{12.5});
}
