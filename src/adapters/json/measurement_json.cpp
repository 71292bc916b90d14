#include "adapters/json/measurement_json.hpp"

#include "adapters/json/json_parse.hpp"
#include "util/error.hpp"
#include "util/json_writer.hpp"
#include "util/strings.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace perfsweep::adapters {

namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void put(Writer& w, const char* key, const std::string& value) {
    w.Key(key);
    // Invalid UTF-8 (e.g. a benchmark's garbled output cut into a reason) never reaches the JSON:
    // each bad byte becomes U+FFFD. Inputs with identity fields in bad UTF-8 are refused earlier.
    const std::string clean = util::sanitize_utf8(value);
    w.String(clean.c_str(), static_cast<rapidjson::SizeType>(clean.size()));
}

void put_map(Writer& w, const char* key, const std::map<std::string, std::string>& m) {
    w.Key(key);
    w.StartObject();
    for (const auto& [k, v] : m) {
        const std::string ck = util::sanitize_utf8(k), cv = util::sanitize_utf8(v);
        w.Key(ck.c_str(), static_cast<rapidjson::SizeType>(ck.size()));
        w.String(cv.c_str(), static_cast<rapidjson::SizeType>(cv.size()));
    }
    w.EndObject();
}

std::string get_string(const rapidjson::Value& o, const char* key, const std::string& where,
                       bool required) {
    auto it = o.FindMember(key);
    if (it == o.MemberEnd()) {
        if (required)
            throw_usage(where + ": missing field '" + key + "'");
        return {};
    }
    if (!it->value.IsString())
        throw_usage(where + ": field '" + key + "' must be a string");
    return {it->value.GetString(), it->value.GetStringLength()};
}

std::map<std::string, std::string> get_map(const rapidjson::Value& o, const char* key,
                                           const std::string& where) {
    std::map<std::string, std::string> out;
    auto it = o.FindMember(key);
    if (it == o.MemberEnd() || it->value.IsNull())
        return out;
    if (!it->value.IsObject())
        throw_usage(where + ": field '" + key + "' must be an object of strings");
    for (auto m = it->value.MemberBegin(); m != it->value.MemberEnd(); ++m) {
        if (!m->value.IsString())
            throw_usage(where + ": field '" + key + "." + m->name.GetString() +
                        "' must be a string");
        out[m->name.GetString()] = std::string(m->value.GetString(), m->value.GetStringLength());
    }
    return out;
}

} // namespace

std::string measurement_to_json(const core::Measurement& m) {
    rapidjson::StringBuffer buf;
    Writer w(buf);
    w.StartObject();
    put(w, "benchmark", m.benchmark);
    put(w, "metric", m.metric);
    put(w, "unit", m.unit);
    put(w, "direction", std::string(core::to_string(m.direction)));
    w.Key("values");
    w.StartArray();
    for (double v : m.values)
        w.Double(v);
    w.EndArray();
    if (!m.exit_codes.empty()) { // exit-code mode only; older records have none
        w.Key("exit_codes");
        w.StartArray();
        for (int c : m.exit_codes)
            w.Int(c);
        w.EndArray();
    }
    put(w, "label", m.label);
    put(w, "timestamp", m.timestamp);
    put(w, "stage", std::string(core::to_string(m.stage)));
    put(w, "image", m.image);
    put(w, "digest", m.digest);
    if (!m.recipe.empty()) // rebuilt sources only; the image's own build has none
        put(w, "recipe", m.recipe);
    put_map(w, "commits", m.commits);
    put_map(w, "commit_times", m.commit_times);
    put_map(w, "runner", m.runner);
    if (!m.environment.empty())
        put_map(w, "environment", m.environment);
    put(w, "status", std::string(core::to_string(m.status)));
    put(w, "reason", m.reason);
    put(w, "log", m.log);
    if (!m.failure_log.empty()) // exit-code mode only
        put(w, "failure_log", m.failure_log);
    w.EndObject();
    return {buf.GetString(), buf.GetSize()};
}

core::Measurement measurement_from_json(std::string_view json, const std::string& where) {
    rapidjson::Document d;
    if (const auto err = parse_json(d, json, JsonUtf8::validate))
        throw_usage(where + ": invalid JSON (" + err->message + " at offset " +
                    std::to_string(err->offset) + ")");
    if (!d.IsObject())
        throw_usage(where + ": expected a JSON object");
    core::Measurement m;
    m.benchmark = get_string(d, "benchmark", where, false);
    m.metric = get_string(d, "metric", where, true);
    m.unit = get_string(d, "unit", where, false);
    if (auto dir = get_string(d, "direction", where, false); !dir.empty()) {
        auto parsed = core::parse_direction(dir);
        if (!parsed)
            throw_usage(where + ": field 'direction' is '" + dir + "', expected higher or lower");
        m.direction = *parsed;
    }
    if (auto it = d.FindMember("values"); it != d.MemberEnd()) {
        if (!it->value.IsArray())
            throw_usage(where + ": field 'values' must be an array of numbers");
        for (const auto& v : it->value.GetArray()) {
            if (!v.IsNumber())
                throw_usage(where + ": field 'values' must contain only numbers");
            if (auto problem = core::metric_value_problem(v.GetDouble()); !problem.empty())
                throw_usage(where + ": field 'values' holds " + util::json_number(v.GetDouble()) +
                            ": " + problem + "; expected measured values");
            m.values.push_back(v.GetDouble());
        }
    }
    if (auto it = d.FindMember("exit_codes"); it != d.MemberEnd()) {
        if (!it->value.IsArray())
            throw_usage(where + ": field 'exit_codes' must be an array of integers");
        for (const auto& v : it->value.GetArray()) {
            if (!v.IsInt())
                throw_usage(where + ": field 'exit_codes' must contain only integers");
            m.exit_codes.push_back(v.GetInt());
        }
    }
    m.label = get_string(d, "label", where, true);
    m.timestamp = get_string(d, "timestamp", where, false);
    if (auto st = get_string(d, "stage", where, false); !st.empty()) {
        auto parsed = core::parse_stage(st);
        if (!parsed)
            throw_usage(where + ": field 'stage' is '" + st +
                        "', expected record, daily, hourly or commit");
        m.stage = *parsed;
    }
    m.image = get_string(d, "image", where, false);
    m.digest = get_string(d, "digest", where, false);
    m.recipe = get_string(d, "recipe", where, false);
    m.commits = get_map(d, "commits", where);
    m.commit_times = get_map(d, "commit_times", where);
    m.runner = get_map(d, "runner", where);
    m.environment = get_map(d, "environment", where);
    const auto status = get_string(d, "status", where, true);
    auto parsed = core::parse_status(status);
    if (!parsed)
        throw_usage(where + ": field 'status' is '" + status +
                    "', expected ok, failed, timeout or missing");
    m.status = *parsed;
    m.reason = get_string(d, "reason", where, false);
    m.log = get_string(d, "log", where, false);
    m.failure_log = get_string(d, "failure_log", where, false);
    if (m.status == core::Status::ok && m.values.empty())
        throw_usage(where + ": status is ok but 'values' is empty");
    return m;
}

std::optional<RecordKey> record_key_from_json(std::string_view json) {
    static const std::vector<std::string_view> fields = {"benchmark", "metric", "stage",
                                                         "runner.testbed", "runner.gpu"};
    auto got = read_string_fields(json, fields);
    if (!got || !(*got)[1])
        return std::nullopt;
    auto& f = *got;
    RecordKey out;
    if (f[2] && !f[2]->empty()) {
        const auto stage = core::parse_stage(*f[2]);
        if (!stage)
            return std::nullopt;
        out.stage = *stage;
    }
    out.key.benchmark = f[0].value_or("");
    out.key.metric = std::move(*f[1]);
    out.key.testbed = core::testbed_of(f[3] ? &*f[3] : nullptr, f[4] ? &*f[4] : nullptr);
    return out;
}

} // namespace perfsweep::adapters
