// Pure parts of the fan-out use case: spreading a coarse round of matrix points.

#include "app/fanout.hpp"

#include <catch2/catch.hpp>

using perfsweep::app::spread_evenly;
using V = std::vector<std::size_t>;

TEST_CASE("spread_evenly keeps both ends and spaces the points evenly", "[fanout]") {
    CHECK(spread_evenly(31, 4) == V{0, 10, 20, 30});
    CHECK(spread_evenly(16, 6) == V{0, 3, 6, 9, 12, 15});
    CHECK(spread_evenly(10, 2) == V{0, 9});
    CHECK(spread_evenly(5, 5) == V{0, 1, 2, 3, 4});
    CHECK(spread_evenly(3, 10) == V{0, 1, 2});
    CHECK(spread_evenly(0, 3).empty());
    for (std::size_t n = 2; n < 60; ++n)
        for (std::size_t c = 2; c <= n; ++c) {
            const auto v = spread_evenly(n, c);
            REQUIRE(v.size() == c);
            CHECK(v.front() == 0);
            CHECK(v.back() == n - 1);
            for (std::size_t k = 1; k < v.size(); ++k) {
                CHECK(v[k] > v[k - 1]);
                const auto gap = v[k] - v[k - 1];
                CHECK(gap * (c - 1) <= (n - 1) + (c - 1)); // no gap above the even stride + 1
            }
        }
}

TEST_CASE("the matrix is one compact JSON line with every string escaped", "[fanout]") {
    using perfsweep::app::MatrixEntry;
    CHECK(perfsweep::app::matrix_json({}) == R"({"include":[]})");
    const std::vector<MatrixEntry> entries = {
        {{"label", "2023-08-24"}, {"date", "2023-08-24"}, {"image", "ghcr.io/nvidia/jax:x"}},
        {{"label", "a\"b\\c\nd\x01"}, {"date", "bad\xff"}}};
    CHECK(
        perfsweep::app::matrix_json(entries) ==
        R"({"include":[{"label":"2023-08-24","date":"2023-08-24","image":"ghcr.io/nvidia/jax:x"},)"
        R"({"label":"a\"b\\c\nd\u0001","date":"bad)"
        "\xef\xbf\xbd"
        R"("}]})");
}
