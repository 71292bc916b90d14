#pragma once
// Calendar and UTC time helpers (pure; no clock access).

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace perfsweep::util {

/// Seconds since 1970-01-01T00:00:00Z.
using UnixSeconds = std::int64_t;

/// A calendar date (proleptic Gregorian).
struct CivilDate {
    int year = 1970;
    int month = 1;
    int day = 1;
    /// Dates compare chronologically.
    auto operator<=>(const CivilDate&) const = default;
};

/// Days since 1970-01-01 for `d`.
std::int64_t days_from_civil(CivilDate d);
/// The date `days` after 1970-01-01.
CivilDate civil_from_days(std::int64_t days);
/// Parse "YYYY-MM-DD"; nullopt unless it is a real calendar date.
std::optional<CivilDate> parse_date(std::string_view s);
/// Format as "YYYY-MM-DD".
std::string format_date(CivilDate d);
/// `d` moved by `n` days (negative moves back).
CivilDate add_days(CivilDate d, std::int64_t n);

/// A calendar day (UTC) as std::chrono counts it.
using Day = std::chrono::sys_days;
/// A UTC time to the second as std::chrono counts it.
using Time = std::chrono::sys_seconds;
/// Parse "YYYY-MM-DD" into a day; nullopt unless it is a real calendar date.
std::optional<Day> parse_day(std::string_view s);
/// Format `d` as "YYYY-MM-DD".
std::string format_day(Day d);
/// `t` in seconds since 1970-01-01T00:00:00Z.
constexpr UnixSeconds unix_seconds(Time t) {
    return t.time_since_epoch().count();
}
/// The time `t` seconds after 1970-01-01T00:00:00Z.
constexpr Time time_at(UnixSeconds t) {
    return Time{std::chrono::seconds{t}};
}

/// Parse ISO 8601 "YYYY-MM-DDTHH:MM[:SS[.fff]](Z|±HH:MM|±HHMM)" into UTC seconds. A time without a
/// zone is refused (nullopt, with `why` set) because it would be ambiguous.
std::optional<UnixSeconds> parse_iso8601(std::string_view s, std::string* why = nullptr);
/// Format `t` as "YYYY-MM-DDTHH:MM:SSZ".
std::string format_iso8601(UnixSeconds t);
/// UTC seconds of `s` when it is a date (its midnight) or an ISO 8601 time with a zone; else
/// nullopt (how labels that are dates or times are put on a time axis).
std::optional<UnixSeconds> parse_date_or_time(std::string_view s);
/// Parse a duration such as "90s", "30m", "1h", "2h30m", "1d" into seconds; nullopt if malformed or
/// <= 0.
std::optional<std::int64_t> parse_duration(std::string_view s);
/// Format seconds compactly: "45s", "3m20s", "1h05m".
std::string format_duration(double seconds);

} // namespace perfsweep::util
