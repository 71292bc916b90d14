#pragma once
// Small RapidJSON writer helpers shared by the JSON writers of this directory (internal). W is a
// rapidjson Writer or PrettyWriter. Strings are written with their full length.

#include <rapidjson/rapidjson.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

namespace perfsweep::adapters::json_write {

/// Writes the string value `s`.
template <class W> void str(W& w, const std::string& s) {
    w.String(s.c_str(), static_cast<rapidjson::SizeType>(s.size()));
}

/// Writes `"KEY": "value"`.
template <class W> void put(W& w, const char* key, const std::string& v) {
    w.Key(key);
    str(w, v);
}

/// Writes `"KEY": number`, null when the number is not finite.
template <class W> void put(W& w, const char* key, double v) {
    w.Key(key);
    if (std::isfinite(v))
        w.Double(v);
    else
        w.Null();
}

/// Writes `"KEY": integer`.
template <class W> void put_int(W& w, const char* key, long v) {
    w.Key(key);
    w.Int64(v);
}

/// Writes the object `{"NAME": "value", ...}`.
template <class W> void string_map(W& w, const std::map<std::string, std::string>& m) {
    w.StartObject();
    for (const auto& [k, v] : m) {
        w.Key(k.c_str(), static_cast<rapidjson::SizeType>(k.size()));
        str(w, v);
    }
    w.EndObject();
}

/// Writes `"KEY": {"NAME": "value", ...}`.
template <class W>
void put_map(W& w, const char* key, const std::map<std::string, std::string>& m) {
    w.Key(key);
    string_map(w, m);
}

/// Writes the array `["s", ...]`.
template <class W> void strings(W& w, const std::vector<std::string>& v) {
    w.StartArray();
    for (const auto& s : v)
        str(w, s);
    w.EndArray();
}

/// Writes `"KEY": ["s", ...]`.
template <class W> void put_strings(W& w, const char* key, const std::vector<std::string>& v) {
    w.Key(key);
    strings(w, v);
}

/// Writes `"KEY": [number, ...]` (numbers as they are).
template <class W> void put_doubles(W& w, const char* key, const std::vector<double>& v) {
    w.Key(key);
    w.StartArray();
    for (double x : v)
        w.Double(x);
    w.EndArray();
}

/// Writes `"KEY": [...]`, `each(item)` writing each item of `items`.
template <class W, class Items, class Each>
void put_array(W& w, const char* key, const Items& items, Each&& each) {
    w.Key(key);
    w.StartArray();
    for (const auto& x : items)
        each(x);
    w.EndArray();
}

} // namespace perfsweep::adapters::json_write
