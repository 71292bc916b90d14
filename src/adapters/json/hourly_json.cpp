#include "adapters/json/hourly_json.hpp"

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

} // namespace perfsweep::adapters
