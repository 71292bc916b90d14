// Dates, times and durations (util/time): accepted dates and times round-trip through their
// formatters, durations are positive, and day arithmetic is consistent.

#include "fuzz_support.hpp"
#include "util/time.hpp"

#include <cstring>

using namespace perfsweep;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string s = fuzz::text_of(data, size);
    if (auto d = util::parse_date(s)) {
        const std::string f = util::format_date(*d);
        fuzz::check(util::parse_date(f) == d, "date does not round-trip", s);
        fuzz::check(d->month >= 1 && d->month <= 12 && d->day >= 1 && d->day <= 31,
                    "an impossible date was accepted", s);
        const auto days = util::days_from_civil(*d);
        fuzz::check(util::civil_from_days(days) == *d, "days_from_civil/civil_from_days differ", s);
        fuzz::check(util::add_days(util::add_days(*d, 400), -400) == *d, "add_days not inverse", s);
    }
    std::string why;
    if (auto t = util::parse_iso8601(s, &why)) {
        const std::string f = util::format_iso8601(*t);
        fuzz::check(util::parse_iso8601(f) == t, "ISO 8601 time does not round-trip",
                    s + " → " + f);
        fuzz::check(f.size() >= 20 && f.back() == 'Z', "format_iso8601 is not UTC", f);
    }
    if (auto n = util::parse_duration(s))
        fuzz::check(*n > 0, "a duration <= 0 was accepted", s);
    if (size >= sizeof(double)) {
        double v;
        std::memcpy(&v, data, sizeof v);
        (void)util::format_duration(v);
    }
    return 0;
}
