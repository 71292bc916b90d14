#include "core/date_range.hpp"

#include <catch2/catch.hpp>

using namespace perfsweep::core;

TEST_CASE("daily range: calendar dates, in order, at most 3660 dates", "[core][date_range]") {
    auto c = check_daily_range("2023-08-01", "2023-08-03");
    CHECK(c.problem == DateRangeProblem::none);
    CHECK(c.dates == 3);
    CHECK(check_daily_range("2023-08-01", "2023-08-01").dates == 1);
    CHECK(check_daily_range("2023-02-30", "2023-08-01").problem == DateRangeProblem::bad_from);
    CHECK(check_daily_range("2023-08-01", "2023-13-01").problem == DateRangeProblem::bad_to);
    CHECK(check_daily_range("2023-8-01", "2023-08-02").problem == DateRangeProblem::bad_from);
    CHECK(check_daily_range("2023-08-02", "2023-08-01").problem == DateRangeProblem::reversed);
    CHECK(check_daily_range("2020-01-01", "2030-01-07").problem == DateRangeProblem::none);
    CHECK(check_daily_range("2020-01-01", "2030-01-07").dates == k_max_daily_dates);
    const auto big = check_daily_range("1900-01-01", "2099-12-31");
    CHECK(big.problem == DateRangeProblem::too_long);
    CHECK(big.dates == 73049);
}
