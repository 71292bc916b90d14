#include "adapters/json/scenario_json.hpp"

#include "adapters/json/json_parse.hpp"
#include "util/error.hpp"

#include <rapidjson/document.h>

namespace perfsweep::adapters {

namespace {

const rapidjson::Value& member(const rapidjson::Value& o, const char* key,
                               const std::string& where) {
    if (!o.IsObject() || !o.HasMember(key))
        throw_usage(where + ": missing field '" + key + "'");
    return o[key];
}

double number(const rapidjson::Value& o, const char* key, const std::string& where) {
    const auto& v = member(o, key, where);
    if (!v.IsNumber())
        throw_usage(where + ": field '" + key + "' must be a number");
    return v.GetDouble();
}

int integer(const rapidjson::Value& o, const char* key, const std::string& where) {
    const auto& v = member(o, key, where);
    if (!v.IsInt())
        throw_usage(where + ": field '" + key + "' must be an integer");
    return v.GetInt();
}

std::vector<int> days(const rapidjson::Value& o, const char* key, const std::string& where) {
    std::vector<int> out;
    if (!o.HasMember(key))
        return out;
    if (!o[key].IsArray())
        throw_usage(where + ": field '" + key + "' must be an array of day numbers");
    for (const auto& d : o[key].GetArray()) {
        if (!d.IsInt())
            throw_usage(where + ": field '" + key + "' must hold integers");
        out.push_back(d.GetInt());
    }
    return out;
}

} // namespace

core::SweepScenario scenario_from_json(const std::string& text, const std::string& where) {
    rapidjson::Document d;
    if (const auto err = parse_json(d, text))
        throw_usage(where + ": not a JSON object (" + err->message + " at offset " +
                    std::to_string(err->offset) + ")");
    if (!d.IsObject())
        throw_usage(where + ": not a JSON object");
    core::SweepScenario s;
    if (d.HasMember("name") && d["name"].IsString())
        s.name = d["name"].GetString();
    const auto& start = member(d, "start", where);
    if (!start.IsString())
        throw_usage(where + ": field 'start' must be a date string");
    s.start = start.GetString();
    s.days = integer(d, "days", where);
    if (s.days < 2)
        throw_usage(where + ": field 'days' must be >= 2");
    s.base = number(d, "base", where);
    s.noise = number(d, "noise", where);
    if (d.HasMember("direction") && d["direction"].IsString()) {
        const auto dir = core::parse_direction(d["direction"].GetString());
        if (!dir)
            throw_usage(where + ": field 'direction' must be higher or lower");
        s.direction = *dir;
    }
    if (d.HasMember("levels")) {
        if (!d["levels"].IsArray())
            throw_usage(where + ": field 'levels' must be an array");
        for (const auto& l : d["levels"].GetArray())
            s.levels.emplace_back(integer(l, "from", where + " levels[]"),
                                  number(l, "level", where + " levels[]"));
    }
    s.broken = days(d, "broken", where);
    for (int h : days(d, "hang", where)) // a hanging run ends as a timeout: broken as well
        s.broken.push_back(h);
    s.missing = days(d, "missing", where);
    if (d.HasMember("noisy")) {
        if (!d["noisy"].IsArray())
            throw_usage(where + ": field 'noisy' must be an array");
        for (const auto& n : d["noisy"].GetArray())
            s.noisy.emplace_back(integer(n, "day", where + " noisy[]"),
                                 number(n, "noise", where + " noisy[]"));
    }
    return s;
}

} // namespace perfsweep::adapters
