#include "adapters/json/json_parse.hpp"

#include <rapidjson/encodedstream.h>
#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>

namespace perfsweep::adapters {
namespace {

using rapidjson::SizeType;

/// Forwards SAX events to a Document and refuses to open a level beyond `max`: the reader then
/// stops with kParseErrorTermination before it recurses any deeper.
class DepthLimited {
public:
    DepthLimited(rapidjson::Document& doc, unsigned max) : m_doc(doc), m_max(max) {}
    bool Null() { return m_doc.Null(); }
    bool Bool(bool b) { return m_doc.Bool(b); }
    bool Int(int i) { return m_doc.Int(i); }
    bool Uint(unsigned u) { return m_doc.Uint(u); }
    bool Int64(std::int64_t i) { return m_doc.Int64(i); }
    bool Uint64(std::uint64_t u) { return m_doc.Uint64(u); }
    bool Double(double d) { return m_doc.Double(d); }
    // Only with kParseNumbersAsStringsFlag (JsonNumbers::exact).
    bool RawNumber(const char* s, SizeType n, bool) {
        const std::string_view t(s, n);
        if (t.find_first_of(".eE") == std::string_view::npos) {
            long long i = 0;
            const auto r = std::from_chars(t.data(), t.data() + t.size(), i);
            if (r.ec == std::errc() && r.ptr == t.data() + t.size())
                return m_doc.Int64(i);
        }
        double d = 0;
        const auto r = std::from_chars(t.data(), t.data() + t.size(), d);
        if (r.ptr != t.data() + t.size() ||
            (r.ec != std::errc() && r.ec != std::errc::result_out_of_range)) {
            m_bad_number = true;
            return false;
        }
        if (r.ec == std::errc::result_out_of_range) // strtod: +-HUGE_VAL (infinity) or 0
            d = std::strtod(std::string(t).c_str(), nullptr);
        return m_doc.Double(d);
    }
    bool String(const char* s, SizeType n, bool copy) { return m_doc.String(s, n, copy); }
    bool Key(const char* s, SizeType n, bool copy) { return m_doc.Key(s, n, copy); }
    bool StartObject() { return open() && m_doc.StartObject(); }
    bool EndObject(SizeType members) {
        --m_depth;
        return m_doc.EndObject(members);
    }
    bool StartArray() { return open() && m_doc.StartArray(); }
    bool EndArray(SizeType elements) {
        --m_depth;
        return m_doc.EndArray(elements);
    }
    bool too_deep() const { return m_too_deep; }
    bool bad_number() const { return m_bad_number; }

private:
    bool open() {
        if (m_depth >= m_max) {
            m_too_deep = true;
            return false;
        }
        ++m_depth;
        return true;
    }
    rapidjson::Document& m_doc;
    unsigned m_max;
    unsigned m_depth = 0;
    bool m_too_deep = false;
    bool m_bad_number = false;
};

template <unsigned Flags>
std::optional<JsonParseError> parse_with(rapidjson::Document& doc, std::string_view text) {
    rapidjson::MemoryStream ms(text.data(), text.size());
    rapidjson::EncodedInputStream<rapidjson::UTF8<>, rapidjson::MemoryStream> in(ms);
    rapidjson::ParseResult result;
    bool too_deep = false, bad_number = false;
    auto generate = [&](rapidjson::Document& handler) {
        DepthLimited limited(handler, k_max_json_depth);
        rapidjson::Reader reader;
        result = reader.Parse<Flags>(in, limited);
        too_deep = limited.too_deep();
        bad_number = limited.bad_number();
        return !result.IsError();
    };
    doc.SetNull();
    doc.Populate(generate);
    if (!result.IsError())
        return std::nullopt;
    JsonParseError e;
    e.offset = std::min(result.Offset(), text.size());
    // When too deep, the reader stops right after the bracket that opens the level too many.
    if (too_deep && e.offset > 0)
        --e.offset;
    const auto before = text.substr(0, e.offset);
    e.line = 1 + static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n'));
    if (too_deep) {
        const auto nl = before.rfind('\n');
        const std::size_t column = nl == std::string_view::npos ? e.offset + 1 : e.offset - nl;
        e.too_deep = true;
        e.message = "arrays and objects nested deeper than " + std::to_string(k_max_json_depth) +
                    " levels (line " + std::to_string(e.line) + ", column " +
                    std::to_string(column) + ")";
    } else if (bad_number) {
        e.message = "a number that cannot be read";
    } else {
        e.message = rapidjson::GetParseError_En(result.Code());
    }
    return e;
}

} // namespace

std::optional<JsonParseError> parse_json(rapidjson::Document& doc, std::string_view text,
                                         JsonUtf8 utf8, JsonNumbers numbers) {
    using namespace rapidjson;
    const bool validate = utf8 == JsonUtf8::validate, exact = numbers == JsonNumbers::exact;
    if (validate && exact)
        return parse_with<kParseValidateEncodingFlag | kParseNumbersAsStringsFlag>(doc, text);
    if (validate)
        return parse_with<kParseValidateEncodingFlag>(doc, text);
    if (exact)
        return parse_with<kParseNumbersAsStringsFlag>(doc, text);
    return parse_with<kParseDefaultFlags>(doc, text);
}

namespace {

/// The SAX handler of read_string_fields: records the named strings, fails on anything that
/// makes the quick look unsure.
class FieldReader {
public:
    explicit FieldReader(const std::vector<std::string_view>& fields)
        : m_fields(fields), m_out(fields.size()) {}
    bool Null() { return scalar(true); }
    bool Bool(bool) { return scalar(false); }
    bool Int(int) { return scalar(false); }
    bool Uint(unsigned) { return scalar(false); }
    bool Int64(std::int64_t) { return scalar(false); }
    bool Uint64(std::uint64_t) { return scalar(false); }
    bool Double(double) { return scalar(false); }
    bool RawNumber(const char*, SizeType, bool) { return scalar(false); }
    bool String(const char* s, SizeType n, bool) {
        if (m_depth == 0)
            return false; // not an object
        const int i = named();
        if (i < 0)
            return scalar(false);
        auto& slot = m_out[static_cast<std::size_t>(i)];
        if (slot)
            return false; // twice: which one counts is the full parse's business
        slot.emplace(s, n);
        return true;
    }
    bool Key(const char* s, SizeType n, bool) {
        m_key.assign(s, n);
        return true;
    }
    bool StartObject() {
        if (m_depth == 0) {
            ++m_depth;
            return true;
        }
        if (m_depth == 1 && is_outer(m_key)) {
            m_outer = m_key;
            if (!m_seen_outer.insert(m_outer).second)
                return false;
        } else if (named() >= 0) {
            return false;
        }
        return open(false);
    }
    bool EndObject(SizeType) { return close(); }
    bool StartArray() {
        if (m_depth == 0 || named() >= 0 || (m_depth == 1 && is_outer(m_key)))
            return false;
        return open(true);
    }
    bool EndArray(SizeType) { return close(); }
    std::vector<std::optional<std::string>> take() { return std::move(m_out); }

private:
    /// Index of the field the current value is, or -1.
    int named() const {
        if (m_depth == 1 && !m_in_array)
            return index(m_key);
        if (m_depth == 2 && !m_outer.empty() && !m_in_array)
            return index(m_outer + "." + m_key);
        return -1;
    }
    int index(const std::string& path) const {
        for (std::size_t i = 0; i < m_fields.size(); ++i)
            if (m_fields[i] == path)
                return static_cast<int>(i);
        return -1;
    }
    bool is_outer(const std::string& name) const {
        for (auto f : m_fields)
            if (f.size() > name.size() && f[name.size()] == '.' && f.starts_with(name))
                return true;
        return false;
    }
    bool scalar(bool null) {
        if (m_depth == 0)
            return false; // not an object
        if (named() >= 0)
            return false;
        return !(m_depth == 1 && !m_in_array && is_outer(m_key) && !null);
    }
    bool open(bool array) {
        if (m_depth >= k_max_json_depth)
            return false;
        m_kinds.push_back(m_in_array);
        ++m_depth;
        m_in_array = array;
        return true;
    }
    bool close() {
        if (--m_depth == 1)
            m_outer.clear();
        if (!m_kinds.empty()) {
            m_in_array = m_kinds.back();
            m_kinds.pop_back();
        }
        return true;
    }

    const std::vector<std::string_view>& m_fields;
    std::vector<std::optional<std::string>> m_out;
    std::string m_key;
    std::string m_outer; ///< the top-level object member being read, when one holds fields
    std::set<std::string> m_seen_outer;
    std::vector<bool> m_kinds; ///< per open level below the top: whether the one above is an array
    unsigned m_depth = 0;
    bool m_in_array = false;
};

} // namespace

std::optional<std::vector<std::optional<std::string>>>
read_string_fields(std::string_view text, const std::vector<std::string_view>& fields) {
    rapidjson::MemoryStream ms(text.data(), text.size());
    rapidjson::EncodedInputStream<rapidjson::UTF8<>, rapidjson::MemoryStream> in(ms);
    FieldReader handler(fields);
    rapidjson::Reader reader;
    if (reader.Parse<rapidjson::kParseValidateEncodingFlag>(in, handler).IsError())
        return std::nullopt;
    return handler.take();
}

} // namespace perfsweep::adapters
