#include "adapters/json/detect_json.hpp"

#include "adapters/json/json_write.hpp"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

namespace perfsweep::adapters {

namespace {

using Writer = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

using json_write::put;

} // namespace

std::string detect_to_json(const core::DetectResult& r) {
    rapidjson::StringBuffer buf;
    Writer w(buf);
    w.SetIndent(' ', 2);
    w.StartObject();
    put(w, "benchmark", r.benchmark);
    put(w, "metric", r.metric);
    put(w, "unit", r.unit);
    put(w, "direction", std::string(core::to_string(r.direction)));
    put(w, "verdict", std::string(core::to_string(r.verdict)));
    put(w, "reason", r.reason);
    put(w, "threshold", r.threshold);
    w.Key("points");
    w.Uint64(r.points);
    put(w, "noise", r.noise);
    put(w, "relative_noise", r.relative_noise);
    if (r.failure_rates) // levels are failure rates, relative_change their difference
        put(w, "mode", std::string("exit-code"));
    w.Key("change_points");
    w.StartArray();
    for (const auto& c : r.change_points) {
        w.StartObject();
        put(w, "last_before", c.last_before);
        put(w, "first_after", c.first_after);
        put(w, "old", c.old_level);
        put(w, "new", c.new_level);
        put(w, "relative_change", c.relative_change);
        put(w, "p_value", c.p_value);
        put(w, "kind", std::string(core::to_string(c.kind)));
        w.EndObject();
    }
    w.EndArray();
    w.Key("segments");
    w.StartArray();
    for (const auto& s : r.segments) {
        w.StartObject();
        put(w, "first", s.first_label);
        put(w, "last", s.last_label);
        w.Key("points");
        w.Uint64(s.points);
        put(w, "level", s.level);
        w.EndObject();
    }
    w.EndArray();
    json_write::put_strings(w, "outliers", r.outliers);
    w.Key("failed");
    w.StartArray();
    for (const auto& f : r.failed) {
        w.StartObject();
        put(w, "label", f.label);
        put(w, "reason", f.reason);
        w.EndObject();
    }
    w.EndArray();
    w.EndObject();
    return std::string(buf.GetString(), buf.GetSize()) + "\n";
}

} // namespace perfsweep::adapters
