#include "adapters/json/hourly_json.hpp"

#include "adapters/json/failure_json.hpp"
#include "util/error.hpp"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

namespace perfsweep::adapters {

namespace {

using Writer = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

void str(Writer& w, const std::string& s) {
    w.String(s.c_str(), static_cast<unsigned>(s.size()));
}

void key(Writer& w, const char* k) {
    w.Key(k);
}

void commits(Writer& w, const std::map<std::string, std::string>& c) {
    w.StartObject();
    for (const auto& [name, sha] : c) {
        str(w, name);
        str(w, sha);
    }
    w.EndObject();
}

void strings(Writer& w, const std::vector<std::string>& v) {
    w.StartArray();
    for (const auto& s : v)
        str(w, s);
    w.EndArray();
}

void state(Writer& w, const core::StateOutcome& s) {
    w.StartObject();
    key(w, "time");
    str(w, util::format_iso8601(s.time));
    key(w, "commits");
    commits(w, s.commits);
    key(w, "changed");
    strings(w, s.changed);
    key(w, "duplicate");
    w.Bool(s.duplicate);
    key(w, "status");
    str(w, s.status);
    key(w, "values");
    w.StartArray();
    for (double v : s.values)
        w.Double(v);
    w.EndArray();
    if (!s.reason.empty()) {
        key(w, "reason");
        str(w, s.reason);
    }
    w.EndObject();
}

void end(Writer& w, const std::optional<core::WindowEnd>& e) {
    if (!e) {
        w.Null();
        return;
    }
    w.StartObject();
    key(w, "time");
    str(w, util::format_iso8601(e->time));
    key(w, "commits");
    commits(w, e->commits);
    w.EndObject();
}

void commit(Writer& w, const core::CommitInfo& c) {
    key(w, "sha");
    str(w, c.sha);
    key(w, "time");
    str(w, util::format_iso8601(c.time));
    key(w, "author");
    str(w, c.author);
    key(w, "subject");
    str(w, c.subject);
}

} // namespace

std::string hourly_to_json(const core::HourlyResult& r) {
    rapidjson::StringBuffer buf;
    Writer w(buf);
    w.SetIndent(' ', 2);
    w.StartObject();
    key(w, "conclusion");
    str(w, r.conclusion);
    key(w, "message");
    str(w, r.message);
    key(w, "metric");
    str(w, r.metric);
    key(w, "mode");
    str(w, r.failure_rates ? "exit-code" : "metric");
    key(w, "states");
    w.StartArray();
    for (const auto& s : r.states)
        state(w, s);
    w.EndArray();
    key(w, "window");
    w.StartObject();
    key(w, "last_good");
    end(w, r.last_good);
    key(w, "first_bad");
    end(w, r.first_bad);
    if (r.failure_rates && r.last_good && r.first_bad) {
        json_failure::put_failure_change(w, r.good_runs, r.bad_runs);
        if (r.first_bad_log)
            json_failure::put_failure_log(w, "first_bad_log", *r.first_bad_log);
    }
    w.EndObject();
    key(w, "changed");
    strings(w, r.changed_repos);
    key(w, "candidates");
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
    key(w, "compare_urls");
    commits(w, r.compare_urls);
    key(w, "commit_steps");
    w.StartArray();
    for (const auto& s : r.commit_steps)
        state(w, s);
    w.EndArray();
    if (r.culprit) {
        key(w, "culprit");
        w.StartObject();
        key(w, "repo");
        str(w, r.culprit->repo);
        commit(w, r.culprit->commit);
        key(w, "note");
        str(w, r.culprit->note);
        w.EndObject();
    }
    key(w, "builds");
    w.Int(r.builds);
    key(w, "runs");
    w.Int(r.runs);
    key(w, "budget_exhausted");
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
