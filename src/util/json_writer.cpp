#include "util/json_writer.hpp"

#include "util/strings.hpp"

#include <charconv>
#include <cmath>
#include <stdexcept>

namespace perfsweep::util {

std::string json_quote(std::string_view raw) {
    const std::string s = sanitize_utf8(raw);
    std::string out;
    out.reserve(s.size() + 2);
    out += '"';
    for (char c : s) {
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        case '\b':
            out += "\\b";
            break;
        case '\f':
            out += "\\f";
            break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                static const char* hex = "0123456789abcdef";
                out += "\\u00";
                out += hex[(static_cast<unsigned char>(c) >> 4) & 15];
                out += hex[static_cast<unsigned char>(c) & 15];
            } else {
                out += c;
            }
        }
    }
    out += '"';
    return out;
}

std::string json_number(double v) {
    if (!std::isfinite(v))
        return "null";
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

void JsonWriter::newline(std::size_t depth) {
    if (!m_pretty)
        return;
    m_out += '\n';
    m_out.append(2 * depth, ' ');
}

void JsonWriter::before_value() {
    if (m_stack.empty()) {
        if (!m_out.empty())
            throw std::logic_error("JsonWriter: a second top-level value");
        return;
    }
    auto& top = m_stack.back();
    if (top.object) {
        if (!top.key_pending)
            throw std::logic_error("JsonWriter: a value inside an object without a key");
        top.key_pending = false;
        return;
    }
    if (top.count++ > 0)
        m_out += ',';
    newline(m_stack.size());
}

JsonWriter& JsonWriter::key(std::string_view k) {
    if (m_stack.empty() || !m_stack.back().object || m_stack.back().key_pending)
        throw std::logic_error("JsonWriter: a key outside an object or after another key");
    auto& top = m_stack.back();
    if (top.count++ > 0)
        m_out += ',';
    newline(m_stack.size());
    m_out += json_quote(k);
    m_out += m_pretty ? ": " : ":";
    top.key_pending = true;
    return *this;
}

JsonWriter& JsonWriter::begin_object() {
    before_value();
    m_out += '{';
    m_stack.push_back({true, 0, false});
    return *this;
}

JsonWriter& JsonWriter::begin_array() {
    before_value();
    m_out += '[';
    m_stack.push_back({false, 0, false});
    return *this;
}

void JsonWriter::close(bool object) {
    if (m_stack.empty() || m_stack.back().object != object || m_stack.back().key_pending)
        throw std::logic_error("JsonWriter: unbalanced end of a container");
    const bool any = m_stack.back().count > 0;
    m_stack.pop_back();
    if (any)
        newline(m_stack.size());
    m_out += object ? '}' : ']';
}

JsonWriter& JsonWriter::end_object() {
    close(true);
    return *this;
}

JsonWriter& JsonWriter::end_array() {
    close(false);
    return *this;
}

JsonWriter& JsonWriter::value(std::string_view s) {
    before_value();
    m_out += json_quote(s);
    return *this;
}

JsonWriter& JsonWriter::value(double v) {
    before_value();
    m_out += json_number(v);
    return *this;
}

JsonWriter& JsonWriter::value(long long v) {
    before_value();
    m_out += std::to_string(v);
    return *this;
}

JsonWriter& JsonWriter::value(bool b) {
    before_value();
    m_out += b ? "true" : "false";
    return *this;
}

JsonWriter& JsonWriter::null() {
    before_value();
    m_out += "null";
    return *this;
}

} // namespace perfsweep::util
