#include "adapters/json/hourly_json.hpp"

#include "adapters/json/failure_json.hpp"
#include "adapters/json/json_write.hpp"
#include "util/error.hpp"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

namespace perfsweep::adapters {

namespace {

using Writer = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

using json_write::put;
using json_write::put_map;
using json_write::put_strings;
using json_write::str;

void state(Writer& w, const core::StateOutcome& s) {
    w.StartObject();
    put(w, "time", util::format_iso8601(s.time));
    put_map(w, "commits", s.commits);
    put_strings(w, "changed", s.changed);
    w.Key("duplicate");
    w.Bool(s.duplicate);
    put(w, "status", s.status);
    json_write::put_doubles(w, "values", s.values);
    if (!s.reason.empty())
        put(w, "reason", s.reason);
    w.EndObject();
}

void end(Writer& w, const std::optional<core::WindowEnd>& e) {
    if (!e) {
        w.Null();
        return;
    }
    w.StartObject();
    put(w, "time", util::format_iso8601(e->time));
    put_map(w, "commits", e->commits);
    w.EndObject();
}

void commit(Writer& w, const core::CommitInfo& c) {
    put(w, "sha", c.sha);
    put(w, "time", util::format_iso8601(c.time));
    put(w, "author", c.author);
    put(w, "subject", c.subject);
}

} // namespace

std::string hourly_to_json(const core::HourlyResult& r) {
    rapidjson::StringBuffer buf;
    Writer w(buf);
    w.SetIndent(' ', 2);
    w.StartObject();
    put(w, "conclusion", r.conclusion);
    put(w, "message", r.message);
    put(w, "metric", r.metric);
    put(w, "mode", r.failure_rates ? "exit-code" : "metric");
    json_write::put_array(w, "states", r.states, [&](const auto& s) { state(w, s); });
    w.Key("window");
    w.StartObject();
    w.Key("last_good");
    end(w, r.last_good);
    w.Key("first_bad");
    end(w, r.first_bad);
    if (r.failure_rates && r.last_good && r.first_bad) {
        json_failure::put_failure_change(w, r.good_runs, r.bad_runs);
        if (r.first_bad_log)
            json_failure::put_failure_log(w, "first_bad_log", *r.first_bad_log);
    }
    w.EndObject();
    put_strings(w, "changed", r.changed_repos);
    w.Key("candidates");
    w.StartObject();
    for (const auto& [name, list] : r.candidates) {
        str(w, name);
        w.StartArray();
        for (const auto& c : list) {
            w.StartObject();
            commit(w, c);
            w.EndObject();
        }
        w.EndArray();
    }
    w.EndObject();
    put_map(w, "compare_urls", r.compare_urls);
    json_write::put_array(w, "commit_steps", r.commit_steps, [&](const auto& s) { state(w, s); });
    if (r.culprit) {
        w.Key("culprit");
        w.StartObject();
        put(w, "repo", r.culprit->repo);
        commit(w, r.culprit->commit);
        put(w, "note", r.culprit->note);
        w.EndObject();
    }
    w.Key("builds");
    w.Int64(r.spend.builds);
    w.Key("runs");
    w.Int64(r.spend.runs);
    w.Key("resumed_builds");
    w.Int64(r.spend.resumed_builds);
    w.Key("resumed_runs");
    w.Int64(r.spend.resumed_runs);
    w.Key("budget_exhausted");
    w.Bool(r.budget_exhausted);
    w.EndObject();
    return std::string(buf.GetString(), buf.GetSize()) + "\n";
}

namespace {

std::map<std::string, std::string> string_map(const rapidjson::Value& obj, const char* key,
                                              const std::string& where) {
    std::map<std::string, std::string> out;
    auto it = obj.FindMember(key);
    if (it == obj.MemberEnd())
        return out;
    if (!it->value.IsObject())
        throw_usage(where + ": '" + key + "' must be an object of strings");
    for (auto m = it->value.MemberBegin(); m != it->value.MemberEnd(); ++m) {
        if (!m->value.IsString())
            throw_usage(where + ": '" + key + "." + m->name.GetString() + "' must be a string");
        out[m->name.GetString()] = m->value.GetString();
    }
    return out;
}

} // namespace

core::DailyWindow daily_window_from_json(const std::string& text, const std::string& where) {
    rapidjson::Document d;
    d.Parse(text.c_str(), text.size());
    if (d.HasParseError())
        throw_usage(where + ": not JSON (" + rapidjson::GetParseError_En(d.GetParseError()) +
                    " at offset " + std::to_string(d.GetErrorOffset()) + ")");
    if (!d.IsObject() || !d.HasMember("boundaries") || !d["boundaries"].IsArray())
        throw_usage(where + ": expected a `perfsweep daily --json` result with 'boundaries'");
    const auto& bs = d["boundaries"];
    const rapidjson::Value* pick = nullptr;
    for (const auto& b : bs.GetArray())
        if (b.IsObject() && !pick && b.HasMember("kind") && b["kind"].IsString() &&
            std::string(b["kind"].GetString()) == "regression")
            pick = &b;
    if (!pick && !bs.Empty() && bs[0].IsObject())
        pick = &bs[0];
    if (!pick)
        throw_usage(where + ": the daily result has no boundary (no good→bad window)");
    core::DailyWindow w;
    if (pick->HasMember("last_before") && (*pick)["last_before"].IsString())
        w.last_good_label = (*pick)["last_before"].GetString();
    if (pick->HasMember("first_after") && (*pick)["first_after"].IsString())
        w.first_bad_label = (*pick)["first_after"].GetString();
    w.good_commits = string_map(*pick, "last_before_commits", where);
    w.bad_commits = string_map(*pick, "first_after_commits", where);
    w.good_times = string_map(*pick, "last_before_commit_times", where);
    w.bad_times = string_map(*pick, "first_after_commit_times", where);
    if (w.good_times.empty() || w.bad_times.empty())
        throw_usage(where + ": boundary " + w.last_good_label + " → " + w.first_bad_label +
                    " has no recorded commit times (run daily with a commits probe); expected "
                    "'last_before_commit_times' and 'first_after_commit_times'");
    return w;
}

} // namespace perfsweep::adapters
