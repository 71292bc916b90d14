#include "adapters/json/issue_event_json.hpp"

#include "adapters/json/json_parse.hpp"
#include "util/error.hpp"

#include <rapidjson/document.h>

namespace perfsweep::adapters {
namespace {

const rapidjson::Value& member(const rapidjson::Value& obj, const char* name,
                               const std::string& path, const std::string& source,
                               const char* expected) {
    auto it = obj.FindMember(name);
    if (it == obj.MemberEnd())
        throw_usage("event payload '" + source + "': " + path + "." + name +
                    " is missing; expected " + expected);
    return it->value;
}

std::string string_at(const rapidjson::Value& obj, const char* name, const std::string& path,
                      const std::string& source, bool null_is_empty = false) {
    const auto& v = member(obj, name, path, source, "a string");
    if (null_is_empty && v.IsNull())
        return "";
    if (!v.IsString())
        throw_usage("event payload '" + source + "': " + path + "." + name + " is not a string");
    return std::string(v.GetString(), v.GetStringLength());
}

const rapidjson::Value& object_at(const rapidjson::Value& obj, const char* name,
                                  const std::string& path, const std::string& source) {
    const auto& v = member(obj, name, path, source, "an object");
    if (!v.IsObject())
        throw_usage("event payload '" + source + "': " + path + "." + name + " is not an object");
    return v;
}

} // namespace

core::IssueEvent issue_event_from_json(const std::string& event_name, const std::string& json,
                                       const std::string& source) {
    rapidjson::Document d;
    if (const auto err = parse_json(d, json))
        throw_usage("event payload '" + source + "': not a JSON object (" + err->message +
                    " at offset " + std::to_string(err->offset) + ")");
    if (!d.IsObject())
        throw_usage("event payload '" + source + "': not a JSON object");
    core::IssueEvent ev;
    ev.event_name =
        event_name.empty() ? (d.HasMember("comment") ? "issue_comment" : "issues") : event_name;
    if (ev.event_name != "issues" && ev.event_name != "issue_comment")
        throw_usage("event '" + ev.event_name +
                    "': an issue request comes from an 'issues' or 'issue_comment' event");
    const auto& issue = object_at(d, "issue", "$", source);
    const auto& num = member(issue, "number", "$.issue", source, "a number");
    if (!num.IsInt64() || num.GetInt64() <= 0)
        throw_usage("event payload '" + source + "': $.issue.number is not a positive integer");
    ev.number = num.GetInt64();
    const auto& repo = object_at(d, "repository", "$", source);
    ev.repo = string_at(repo, "full_name", "$.repository", source);
    const bool comment = ev.event_name == "issue_comment";
    const auto& who = comment ? object_at(d, "comment", "$", source) : issue;
    const std::string path = comment ? "$.comment" : "$.issue";
    ev.body = string_at(who, "body", path, source, true); // an empty issue body is null
    ev.association = string_at(who, "author_association", path, source);
    ev.login = string_at(object_at(who, "user", path, source), "login", path + ".user", source);
    return ev;
}

} // namespace perfsweep::adapters
