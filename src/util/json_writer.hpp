#pragma once
// A small JSON text writer (no parsing, no project knowledge): pretty-printed with two spaces like
// the documents perfsweep writes, or compact. Strings become valid UTF-8 (invalid bytes U+FFFD);
// numbers are written with the fewest digits that read back to the same double.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace perfsweep::util {

/// Builds one JSON value. Calls must nest correctly (a key before each value inside an object);
/// a misuse throws std::logic_error.
class JsonWriter {
public:
    /// `pretty`: one member or element per line, indented by two spaces; else no white space.
    explicit JsonWriter(bool pretty = true) : m_pretty(pretty) {}

    /// Opens an object.
    JsonWriter& begin_object();
    /// Closes the innermost object.
    JsonWriter& end_object();
    /// Opens an array.
    JsonWriter& begin_array();
    /// Closes the innermost array.
    JsonWriter& end_array();
    /// The key of the next member (inside an object).
    JsonWriter& key(std::string_view k);
    /// A string value.
    JsonWriter& value(std::string_view s);
    /// A string value (so that string literals do not convert to bool).
    JsonWriter& value(const char* s) { return value(std::string_view(s)); }
    /// A number; null when it is not finite.
    JsonWriter& value(double v);
    /// An integer.
    JsonWriter& value(long long v);
    /// An integer.
    JsonWriter& value(long v) { return value(static_cast<long long>(v)); }
    /// An integer.
    JsonWriter& value(int v) { return value(static_cast<long long>(v)); }
    /// An integer.
    JsonWriter& value(std::size_t v) { return value(static_cast<long long>(v)); }
    /// true or false.
    JsonWriter& value(bool b);
    /// null.
    JsonWriter& null();

    /// `"k": value` for any value type above.
    template <class T> JsonWriter& member(std::string_view k, const T& v) {
        key(k);
        return value(v);
    }

    /// The text written so far (complete once every container is closed).
    const std::string& text() const { return m_out; }

private:
    void before_value();
    void newline(std::size_t depth);
    void close(bool object);

    struct Level {
        bool object = false;
        std::size_t count = 0;
        bool key_pending = false;
    };
    bool m_pretty;
    std::string m_out;
    std::vector<Level> m_stack;
};

/// `s` as a JSON string literal, quotes included.
std::string json_quote(std::string_view s);

/// `v` as a JSON number: the shortest text that reads back to `v`; "null" when not finite.
std::string json_number(double v);

} // namespace perfsweep::util
