#include "util/time.hpp"

#include <cctype>
#include <cstdio>

namespace perfsweep::util {

// Howard Hinnant's days_from_civil / civil_from_days algorithms.
std::int64_t days_from_civil(CivilDate d) {
    std::int64_t y = d.year - (d.month <= 2 ? 1 : 0);
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const std::int64_t yoe = y - era * 400;
    const std::int64_t mp = (d.month + 9) % 12;
    const std::int64_t doy = (153 * mp + 2) / 5 + d.day - 1;
    const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

CivilDate civil_from_days(std::int64_t z) {
    z += 719468;
    const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    const std::int64_t doe = z - era * 146097;
    const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const std::int64_t y = yoe + era * 400;
    const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const std::int64_t mp = (5 * doy + 2) / 153;
    const int d = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
    const int m = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
    return CivilDate{static_cast<int>(y + (m <= 2 ? 1 : 0)), m, d};
}

namespace {

bool digits(std::string_view s, size_t pos, size_t n, int& out) {
    if (pos + n > s.size())
        return false;
    int v = 0;
    for (size_t i = pos; i < pos + n; ++i) {
        if (!std::isdigit(static_cast<unsigned char>(s[i])))
            return false;
        v = v * 10 + (s[i] - '0');
    }
    out = v;
    return true;
}

int days_in_month(int y, int m) {
    static const int k_days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return m == 2 && leap ? 29 : k_days[m - 1];
}

} // namespace

std::optional<CivilDate> parse_date(std::string_view s) {
    CivilDate d;
    if (s.size() != 10 || s[4] != '-' || s[7] != '-' || !digits(s, 0, 4, d.year) ||
        !digits(s, 5, 2, d.month) || !digits(s, 8, 2, d.day))
        return std::nullopt;
    if (d.month < 1 || d.month > 12 || d.day < 1 || d.day > days_in_month(d.year, d.month))
        return std::nullopt;
    return d;
}

std::string format_date(CivilDate d) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02d", d.year, d.month, d.day);
    return buf;
}

CivilDate add_days(CivilDate d, std::int64_t n) {
    return civil_from_days(days_from_civil(d) + n);
}

std::optional<Day> parse_day(std::string_view s) {
    const auto d = parse_date(s);
    if (!d)
        return std::nullopt;
    return Day{std::chrono::days{days_from_civil(*d)}};
}

std::string format_day(Day d) {
    return format_date(civil_from_days(d.time_since_epoch().count()));
}

std::optional<UnixSeconds> parse_iso8601(std::string_view s, std::string* why) {
    auto fail = [&](const char* reason) -> std::optional<UnixSeconds> {
        if (why)
            *why = reason;
        return std::nullopt;
    };
    if (s.size() < 16)
        return fail("expected YYYY-MM-DDTHH:MM[:SS] followed by Z or an offset such as +02:00");
    auto date = parse_date(s.substr(0, 10));
    if (!date)
        return fail("the date part is not a valid YYYY-MM-DD date");
    if (s[10] != 'T' && s[10] != 't' && s[10] != ' ')
        return fail("expected 'T' between date and time");
    int hh = 0, mm = 0, ss = 0;
    if (!digits(s, 11, 2, hh) || s[13] != ':' || !digits(s, 14, 2, mm) || hh > 23 || mm > 59)
        return fail("the time part is not a valid HH:MM");
    size_t pos = 16;
    if (pos < s.size() && s[pos] == ':') {
        if (!digits(s, pos + 1, 2, ss) || ss > 60)
            return fail("the seconds are not valid");
        pos += 3;
        if (pos < s.size() && (s[pos] == '.' || s[pos] == ',')) {
            ++pos;
            while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos])))
                ++pos;
        }
    }
    if (pos == s.size())
        return fail("the time has no zone: add Z for UTC or an offset such as +02:00");
    std::int64_t offset = 0;
    if (s[pos] == 'Z' || s[pos] == 'z') {
        ++pos;
    } else if (s[pos] == '+' || s[pos] == '-') {
        int sign = s[pos] == '-' ? -1 : 1;
        int oh = 0, om = 0;
        if (!digits(s, pos + 1, 2, oh))
            return fail("the zone offset is not ±HH:MM");
        pos += 3;
        if (pos < s.size() && s[pos] == ':')
            ++pos;
        if (pos < s.size() && !digits(s, pos, 2, om))
            return fail("the zone offset is not ±HH:MM");
        if (pos < s.size())
            pos += 2;
        if (oh > 23 || om > 59)
            return fail("the zone offset is out of range");
        offset = sign * (oh * 3600 + om * 60);
    } else {
        return fail("unexpected text after the time; expected Z or an offset");
    }
    if (pos != s.size())
        return fail("unexpected text after the zone");
    return days_from_civil(*date) * 86400 + hh * 3600 + mm * 60 + ss - offset;
}

std::optional<UnixSeconds> parse_date_or_time(std::string_view s) {
    if (auto d = parse_date(s))
        return days_from_civil(*d) * 86400;
    return parse_iso8601(s);
}

std::string format_iso8601(UnixSeconds t) {
    std::int64_t days = t >= 0 ? t / 86400 : -((-t + 86399) / 86400);
    std::int64_t rem = t - days * 86400;
    CivilDate d = civil_from_days(days);
    char buf[48];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02dZ", d.year, d.month, d.day,
                  static_cast<int>(rem / 3600), static_cast<int>(rem % 3600 / 60),
                  static_cast<int>(rem % 60));
    return buf;
}

std::optional<std::int64_t> parse_duration(std::string_view s) {
    if (s.empty())
        return std::nullopt;
    std::int64_t total = 0;
    size_t i = 0;
    while (i < s.size()) {
        std::int64_t n = 0;
        size_t start = i;
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
            n = n * 10 + (s[i] - '0');
            if (n > 1'000'000'000)
                return std::nullopt;
            ++i;
        }
        if (i == start || i == s.size())
            return std::nullopt;
        switch (s[i]) {
        case 's':
            total += n;
            break;
        case 'm':
            total += n * 60;
            break;
        case 'h':
            total += n * 3600;
            break;
        case 'd':
            total += n * 86400;
            break;
        default:
            return std::nullopt;
        }
        ++i;
    }
    if (total <= 0)
        return std::nullopt;
    return total;
}

std::string format_duration(double seconds) {
    char buf[48];
    if (seconds < 60) {
        std::snprintf(buf, sizeof buf, "%.1fs", seconds);
    } else if (seconds < 3600) {
        int s = static_cast<int>(seconds);
        std::snprintf(buf, sizeof buf, "%dm%02ds", s / 60, s % 60);
    } else {
        // Clamped: a duration read from a result file may be absurd (1e300, inf); converting it
        // unclamped would overflow.
        const long long s =
            seconds < 1e15 ? static_cast<long long>(seconds) : 1'000'000'000'000'000;
        std::snprintf(buf, sizeof buf, "%lldh%02lldm", s / 3600, s % 3600 / 60);
    }
    return buf;
}

} // namespace perfsweep::util
