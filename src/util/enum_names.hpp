#pragma once
// One table of names per enum: its to_string and its parse read the same table, so a name cannot
// be printed one way and parsed another. The first entry of a value is its name; later entries of
// the same value are other spellings parse accepts (old names, aliases).

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace perfsweep::util {

/// One name of one enum value.
template <class E> struct EnumName {
    E value;               ///< the value
    std::string_view name; ///< its name (or another accepted spelling)
};

/// The name of `value`: its first entry in `table` (`fallback` when it has none).
template <class E, std::size_t N>
constexpr std::string_view enum_name(const EnumName<E> (&table)[N], E value,
                                     std::string_view fallback = {}) {
    for (const auto& e : table)
        if (e.value == value)
            return e.name;
    return fallback;
}

/// The value named `name` in `table`; nullopt when no entry has that name.
template <class E, std::size_t N>
constexpr std::optional<E> parse_enum(const EnumName<E> (&table)[N], std::string_view name) {
    for (const auto& e : table)
        if (e.name == name)
            return e.value;
    return std::nullopt;
}

/// "a, b or c": the names of `table` (each value's first name), for messages; each name between
/// two `quote`s when one is given ("\"a\", \"b\" or \"c\"").
template <class E, std::size_t N>
std::string enum_choices(const EnumName<E> (&table)[N], std::string_view quote = {}) {
    std::string out;
    std::size_t n = 0, shown = 0;
    for (std::size_t i = 0; i < N; ++i)
        if (enum_name(table, table[i].value) == table[i].name)
            ++n;
    for (std::size_t i = 0; i < N; ++i) {
        if (enum_name(table, table[i].value) != table[i].name)
            continue;
        out += (shown == 0 ? "" : shown + 1 == n ? " or " : ", ");
        out += quote;
        out += table[i].name;
        out += quote;
        ++shown;
    }
    return out;
}

} // namespace perfsweep::util
