#pragma once
// Small string helpers with no project knowledge.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfsweep::util {

/// Return `s` without leading and trailing ASCII white space.
std::string_view trim(std::string_view s);
/// Split `s` at every `sep`; keeps empty fields.
std::vector<std::string> split(std::string_view s, char sep);
/// Join `parts` with `sep` between them.
std::string join(const std::vector<std::string>& parts, std::string_view sep);
/// Lower-case ASCII copy of `s`.
std::string to_lower(std::string_view s);
/// Replace every occurrence of `from` (non-empty) in `s` by `to`.
std::string replace_all(std::string s, std::string_view from, std::string_view to);
/// Parse a whole string as a finite double; nullopt for anything else (also "nan", "inf").
std::optional<double> parse_double(std::string_view s);
/// Parse a whole string as a base-10 integer; nullopt on anything else or overflow.
std::optional<long long> parse_int(std::string_view s);
/// Format `v` with `decimals` digits after the point.
std::string format_fixed(double v, int decimals);
/// Byte offset of the first byte of `s` that is not part of valid UTF-8 (overlong forms,
/// surrogates and code points above U+10FFFF are invalid); nullopt when all of `s` is valid.
std::optional<std::size_t> first_invalid_utf8(std::string_view s);
/// `s` with every invalid UTF-8 byte replaced by U+FFFD (valid text is returned unchanged).
std::string sanitize_utf8(std::string_view s);

/// What an escaper writes for each byte (an empty entry keeps the byte): one table per target
/// language (HTML, markdown), read by escape_bytes.
using EscapeTable = std::array<std::string_view, 256>;

/// One byte an escaper replaces and what it writes instead.
struct EscapeRow {
    char byte;             ///< the byte
    std::string_view with; ///< its replacement (not empty)
};

/// The table that writes `rows`' text for their bytes and `control` for every other byte below
/// 0x20 except those in `keep` (e.g. "\n\t"); every other byte is kept.
template <std::size_t N>
constexpr EscapeTable escape_table(const EscapeRow (&rows)[N], std::string_view control = {},
                                   std::string_view keep = {}) {
    EscapeTable t{};
    for (std::size_t c = 0; c < 0x20; ++c)
        if (keep.find(static_cast<char>(c)) == std::string_view::npos)
            t[c] = control;
    for (const auto& r : rows)
        t[static_cast<unsigned char>(r.byte)] = r.with;
    return t;
}

/// `text` with each byte replaced by its entry in `table` (kept where the entry is empty).
std::string escape_bytes(std::string_view text, const EscapeTable& table);

/// Remove ANSI terminal escape sequences (colours, cursor moves) from `s`.
std::string strip_ansi(std::string_view s);

/// FNV-1a's 64-bit offset basis.
inline constexpr std::uint64_t k_fnv1a64_basis = 14695981039346656037ull;
/// The 64-bit FNV-1a hash of `data`, started from `basis` (not a security measure).
std::uint64_t fnv1a64(std::string_view data, std::uint64_t basis = k_fnv1a64_basis);

/// A short, stable digest of `text`: 12 lowercase hex digits of its 64-bit FNV-1a hash (names a
/// directory after what it holds; not a security measure).
std::string short_hash(std::string_view text);

} // namespace perfsweep::util
