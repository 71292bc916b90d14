#include "util/strings.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>

namespace perfsweep::util {

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
    return s;
}

std::vector<std::string> split(std::string_view s, char sep) {
    std::vector<std::string> out;
    size_t start = 0;
    for (;;) {
        size_t pos = s.find(sep, start);
        if (pos == std::string_view::npos) {
            out.emplace_back(s.substr(start));
            return out;
        }
        out.emplace_back(s.substr(start, pos - start));
        start = pos + 1;
    }
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
    std::string out;
    for (size_t i = 0; i < parts.size(); ++i) {
        if (i)
            out += sep;
        out += parts[i];
    }
    return out;
}

std::string to_lower(std::string_view s) {
    std::string out(s);
    for (auto& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::string replace_all(std::string s, std::string_view from, std::string_view to) {
    if (from.empty())
        return s;
    // Built into a new string in one pass: replacing in place moves the tail once per match,
    // quadratic on server text that echoes a secret 100,000 times (3 MB: 8 s, 65 s under ASan).
    size_t pos = s.find(from);
    if (pos == std::string::npos)
        return s;
    std::string out;
    out.reserve(s.size());
    size_t done = 0;
    for (; pos != std::string::npos; pos = s.find(from, done)) {
        out.append(s, done, pos - done);
        out.append(to);
        done = pos + from.size();
    }
    out.append(s, done, std::string::npos);
    return out;
}

std::optional<double> parse_double(std::string_view s) {
    s = trim(s);
    if (s.empty())
        return std::nullopt;
    if (s.front() == '+')
        s.remove_prefix(1);
    double v = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(v))
        return std::nullopt;
    return v;
}

std::optional<long long> parse_int(std::string_view s) {
    s = trim(s);
    long long v = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || ptr != s.data() + s.size())
        return std::nullopt;
    return v;
}

std::string format_fixed(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

std::string escape_bytes(std::string_view text, const EscapeTable& table) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        const std::string_view with = table[static_cast<unsigned char>(c)];
        if (with.empty())
            out += c;
        else
            out += with;
    }
    return out;
}

std::string strip_ansi(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\x1b' && i + 1 < s.size() && s[i + 1] == '[') {
            i += 2;
            while (i < s.size() && !(s[i] >= '@' && s[i] <= '~'))
                ++i;
            continue;
        }
        if (s[i] == '\x1b' && i + 1 < s.size() && s[i + 1] == ']') { // OSC ... BEL
            i += 2;
            while (i < s.size() && s[i] != '\a')
                ++i;
            continue;
        }
        out += s[i];
    }
    return out;
}

namespace {

/// Length of the valid UTF-8 sequence starting at `s[i]`, or 0 when it is invalid.
std::size_t utf8_sequence_length(std::string_view s, std::size_t i) {
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = b(i);
    if (c < 0x80)
        return 1;
    std::size_t n = 0;
    unsigned char lo = 0x80, hi = 0xBF; // allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0)
            lo = 0xA0; // no overlong forms
        if (c == 0xED)
            hi = 0x9F; // no surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0)
            lo = 0x90;
        if (c == 0xF4)
            hi = 0x8F; // nothing above U+10FFFF
    } else {
        return 0;
    }
    if (i + n > s.size() || b(i + 1) < lo || b(i + 1) > hi)
        return 0;
    for (std::size_t k = 2; k < n; ++k)
        if ((b(i + k) & 0xC0) != 0x80)
            return 0;
    return n;
}

} // namespace

std::optional<std::size_t> first_invalid_utf8(std::string_view s) {
    for (std::size_t i = 0; i < s.size();) {
        const std::size_t n = utf8_sequence_length(s, i);
        if (n == 0)
            return i;
        i += n;
    }
    return std::nullopt;
}

std::string sanitize_utf8(std::string_view s) {
    if (!first_invalid_utf8(s))
        return std::string(s);
    std::string out;
    out.reserve(s.size() + 8);
    for (std::size_t i = 0; i < s.size();) {
        const std::size_t n = utf8_sequence_length(s, i);
        if (n == 0) {
            out += "\xEF\xBF\xBD";
            ++i;
        } else {
            out.append(s.substr(i, n));
            i += n;
        }
    }
    return out;
}

std::uint64_t fnv1a64(std::string_view data, std::uint64_t basis) {
    std::uint64_t h = basis;
    for (unsigned char c : data) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

std::string short_hash(std::string_view text) {
    const std::uint64_t h = fnv1a64(text);
    static const char* const k_hex = "0123456789abcdef";
    std::string out(12, '0');
    for (std::size_t i = 0; i < out.size(); ++i)
        out[i] = k_hex[(h >> (60 - 4 * i)) & 0xf];
    return out;
}

} // namespace perfsweep::util
