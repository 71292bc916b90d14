#pragma once
// The rule for a range of nightly dates, in one place: `daily` (and `plan --stage daily`) and the
// issue-request parser both apply it, each with its own wording (the issue parser never quotes a
// value). Pure: no I/O.

#include "util/time.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace perfsweep::core {

/// Most dates a daily range may cover (10 years).
inline constexpr std::int64_t k_max_daily_dates = 3660;

/// What is wrong with a daily range, if anything.
enum class DateRangeProblem {
    none,
    bad_from, ///< `from` is not a calendar date YYYY-MM-DD
    bad_to,   ///< `to` is not a calendar date YYYY-MM-DD
    reversed, ///< `to` is before `from`
    too_long, ///< more than k_max_daily_dates dates
};

/// The outcome of check_daily_range.
struct DateRangeCheck {
    DateRangeProblem problem = DateRangeProblem::none;
    std::int64_t dates = 0; ///< dates from `from` to `to`, both included (when the dates parse)
};

/// Check the daily range `from`..`to` (both YYYY-MM-DD calendar dates, `from` <= `to`, at most
/// k_max_daily_dates dates); the first problem found, in the order of DateRangeProblem.
DateRangeCheck check_daily_range(std::string_view from, std::string_view to);

/// A checked range of nightly dates, both ends included.
struct DateRange {
    util::Day from; ///< the first date
    util::Day to;   ///< the last date (not before `from`)
    /// Dates of the range, both ends included.
    std::int64_t days() const { return (to - from).count() + 1; }
    /// Every date of the range as "YYYY-MM-DD", in order (the daily stage's candidates).
    std::vector<std::string> labels() const;
    /// Ranges compare by their ends.
    bool operator==(const DateRange&) const = default;
};

} // namespace perfsweep::core
