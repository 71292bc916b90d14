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
    put(w, "order", std::string(core::to_string(r.order)));
    w.Key("recovered");
    w.Bool(r.recovered);
    if (r.failure_rates) // levels are failure rates, relative_change their difference
        put(w, "mode", std::string("exit-code"));
    json_write::put_array(w, "change_points", r.change_points, [&](const auto& c) {
        w.StartObject();
        put(w, "last_before", c.last_before);
        put(w, "first_after", c.first_after);
        put(w, "old", c.old_level);
        put(w, "new", c.new_level);
        put(w, "relative_change", c.relative_change);
        put(w, "p_value", c.p_value);
        put(w, "kind", std::string(core::to_string(c.kind)));
        w.EndObject();
    });
    json_write::put_array(w, "segments", r.segments, [&](const auto& s) {
        w.StartObject();
        put(w, "first", s.first_label);
        put(w, "last", s.last_label);
        w.Key("points");
        w.Uint64(s.points);
        put(w, "level", s.level);
        w.EndObject();
    });
    json_write::put_strings(w, "outliers", r.outliers);
    json_write::put_array(w, "failed", r.failed, [&](const auto& f) {
        w.StartObject();
        put(w, "label", f.label);
        put(w, "reason", f.reason);
        w.EndObject();
    });
    w.EndObject();
    return std::string(buf.GetString(), buf.GetSize()) + "\n";
}

} // namespace perfsweep::adapters
