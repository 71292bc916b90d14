#include "adapters/json/report_input_json.hpp"

#include "adapters/json/failure_json.hpp"
#include "adapters/json/json_parse.hpp"
#include "adapters/json/json_write.hpp"
#include "util/error.hpp"

#include <rapidjson/document.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <string>

namespace perfsweep::adapters {
namespace {

using Value = rapidjson::Value;

/// Reads fields with type checks; every error names the file and the JSON path.
class Reader {
public:
    explicit Reader(std::string source) : m_source(std::move(source)) {}

    [[noreturn]] void fail(const std::string& path, const std::string& expected) const {
        throw_usage(m_source + ": at " + path + ": expected " + expected);
    }
    const Value* member(const Value& obj, const char* name) const {
        auto it = obj.FindMember(name);
        if (it == obj.MemberEnd() || it->value.IsNull())
            return nullptr;
        return &it->value;
    }
    void str(const Value& obj, const std::string& path, const char* name, std::string& out) const {
        if (const Value* v = member(obj, name)) {
            if (!v->IsString())
                fail(path + "." + name, "a string");
            out.assign(v->GetString(), v->GetStringLength());
        }
    }
    bool num(const Value& obj, const std::string& path, const char* name, double& out) const {
        if (const Value* v = member(obj, name)) {
            if (!v->IsNumber())
                fail(path + "." + name, "a number");
            out = v->GetDouble();
            return true;
        }
        return false;
    }
    void boolean(const Value& obj, const std::string& path, const char* name, bool& out) const {
        if (const Value* v = member(obj, name)) {
            if (!v->IsBool())
                fail(path + "." + name, "true or false");
            out = v->GetBool();
        }
    }
    const Value* array(const Value& obj, const std::string& path, const char* name) const {
        const Value* v = member(obj, name);
        if (v && !v->IsArray())
            fail(path + "." + name, "an array");
        return v;
    }
    const Value* object(const Value& obj, const std::string& path, const char* name) const {
        const Value* v = member(obj, name);
        if (v && !v->IsObject())
            fail(path + "." + name, "an object");
        return v;
    }
    void values(const Value& obj, const std::string& path, std::vector<double>& out) const {
        if (const Value* a = array(obj, path, "values")) {
            for (rapidjson::SizeType i = 0; i < a->Size(); ++i) {
                if (!(*a)[i].IsNumber())
                    fail(path + ".values[" + std::to_string(i) + "]", "a number");
                out.push_back((*a)[i].GetDouble());
            }
        }
    }
    void string_map(const Value& obj, const std::string& path, const char* name,
                    std::map<std::string, std::string>& out) const {
        if (const Value* o = object(obj, path, name)) {
            for (auto it = o->MemberBegin(); it != o->MemberEnd(); ++it) {
                std::string key(it->name.GetString(), it->name.GetStringLength());
                if (it->value.IsString())
                    out[key].assign(it->value.GetString(), it->value.GetStringLength());
                else if (it->value.IsNumber() || it->value.IsBool())
                    out[key] = it->value.IsBool()    ? (it->value.GetBool() ? "true" : "false")
                               : it->value.IsInt64() ? std::to_string(it->value.GetInt64())
                                                     : std::to_string(it->value.GetDouble());
                else if (!it->value.IsNull())
                    fail(path + "." + name + "." + key, "a string");
            }
        }
    }
    const Value& element_object(const Value& a, rapidjson::SizeType i,
                                const std::string& path) const {
        if (!a[i].IsObject())
            fail(path + "[" + std::to_string(i) + "]", "an object");
        return a[i];
    }

    core::ReportPoint point(const Value& v, const std::string& path) const {
        core::ReportPoint p;
        str(v, path, "label", p.label);
        if (p.label.empty())
            str(v, path, "date", p.label);
        if (p.label.empty())
            str(v, path, "time", p.label);
        str(v, path, "status", p.status);
        values(v, path, p.values);
        double single = 0;
        if (p.values.empty() && num(v, path, "value", single))
            p.values.push_back(single);
        str(v, path, "log", p.log);
        str(v, path, "reason", p.reason);
        return p;
    }
    /// {"passed": N, "failed": N}
    core::PassFail runs(const Value& v, const std::string& path) const {
        core::PassFail p;
        double n = 0;
        if (num(v, path, "passed", n))
            p.passed = static_cast<long>(n);
        if (num(v, path, "failed", n))
            p.failed = static_cast<long>(n);
        if (p.passed < 0 || p.failed < 0)
            fail(path, "counts of at least 0");
        return p;
    }
    /// "failures": {"before": runs, "after": runs} (exit-code mode)
    void failures(const Value& v, const std::string& path, std::optional<core::PassFail>& before,
                  std::optional<core::PassFail>& after) const {
        const Value* f = object(v, path, "failures");
        if (!f)
            return;
        const std::string fp = path + ".failures";
        if (const Value* b = object(*f, fp, "before"))
            before = runs(*b, fp + ".before");
        if (const Value* a = object(*f, fp, "after"))
            after = runs(*a, fp + ".after");
    }
    /// "first_bad_log": {"point", "log", "status", "excerpt"} (exit-code mode)
    void failure_log(const Value& v, const std::string& path, const std::string& stage,
                     core::ReportInput& in) const {
        const Value* f = object(v, path, "first_bad_log");
        if (!f)
            return;
        const std::string fp = path + ".first_bad_log";
        core::ReportFailureLog l;
        l.stage = stage;
        str(*f, fp, "point", l.point);
        str(*f, fp, "log", l.log);
        str(*f, fp, "status", l.status);
        str(*f, fp, "excerpt", l.excerpt);
        in.failure_logs.push_back(std::move(l));
    }
    void mode(const Value& v, const std::string& path, core::ReportInput& in) const {
        std::string m;
        str(v, path, "mode", m);
        if (m.empty())
            return;
        if (m != "metric" && m != "exit-code")
            fail(path + ".mode", "\"metric\" or \"exit-code\"");
        if (m == "exit-code")
            in.failure_rates = true;
    }
    core::ReportShift shift(const Value& v, const std::string& path) const {
        core::ReportShift s;
        failures(v, path, s.runs_before, s.runs_after);
        str(v, path, "last_before", s.last_before);
        str(v, path, "first_after", s.first_after);
        num(v, path, "old", s.old_value);
        num(v, path, "new", s.new_value);
        num(v, path, "relative_change", s.relative_change);
        str(v, path, "kind", s.kind);
        return s;
    }
    core::ReportState state(const Value& v, const std::string& path) const {
        core::ReportState s;
        str(v, path, "time", s.time);
        string_map(v, path, "commits", s.commits);
        // `hourly --json` lists the repos that changed (and marks duplicates); older inputs give a
        // boolean.
        if (auto it = v.FindMember("changed"); it != v.MemberEnd() && it->value.IsArray())
            s.changed = !it->value.Empty();
        else
            boolean(v, path, "changed", s.changed);
        if (auto it = v.FindMember("duplicate"); it != v.MemberEnd() && it->value.IsTrue())
            s.changed = false;
        str(v, path, "status", s.status);
        values(v, path, s.values);
        str(v, path, "log", s.log);
        str(v, path, "reason", s.reason);
        return s;
    }
    template <class T, class F>
    void list(const Value& obj, const std::string& path, const char* name, std::vector<T>& out,
              F&& each) const {
        if (const Value* a = array(obj, path, name)) {
            const std::string p = path + "." + name;
            for (rapidjson::SizeType i = 0; i < a->Size(); ++i)
                out.push_back(each(element_object(*a, i, p), p + "[" + std::to_string(i) + "]"));
        }
    }

    void common(const Value& v, const std::string& path, core::ReportInput& in) const {
        std::string s;
        str(v, path, "benchmark", s);
        if (!s.empty())
            in.benchmark = s;
        s.clear();
        str(v, path, "metric", s);
        if (!s.empty())
            in.metric = s;
        s.clear();
        str(v, path, "unit", s);
        if (!s.empty())
            in.unit = s;
        s.clear();
        str(v, path, "direction", s);
        if (!s.empty()) {
            auto d = core::parse_direction(s);
            if (!d)
                fail(path + ".direction", "\"higher\" or \"lower\"");
            in.direction = *d;
        }
        s.clear();
        str(v, path, "verdict", s);
        if (!s.empty() && in.verdict.empty())
            in.verdict = s;
        string_map(v, path, "repos", in.repo_urls);
        string_map(v, path, "runner", in.runner);
        double d = 0;
        if (num(v, path, "runs", d))
            in.budget.runs = in.budget.runs.value_or(0) + (long long)d;
        if (num(v, path, "builds", d))
            in.budget.builds = in.budget.builds.value_or(0) + (long long)d;
        if (num(v, path, "elapsed_s", d))
            in.budget.seconds = in.budget.seconds.value_or(0) + d;
        if (const Value* a = array(v, path, "reproduce")) {
            for (rapidjson::SizeType i = 0; i < a->Size(); ++i) {
                if (!(*a)[i].IsString())
                    fail(path + ".reproduce[" + std::to_string(i) + "]", "a string");
                in.reproduce.emplace_back((*a)[i].GetString(), (*a)[i].GetStringLength());
            }
        }
    }

    void detect(const Value& v, const std::string& path, core::ReportInput& in) const {
        common(v, path, in);
        mode(v, path, in);
        auto sh = [this](const Value& e, const std::string& p) { return shift(e, p); };
        auto pt = [this](const Value& e, const std::string& p) { return point(e, p); };
        list(v, path, "change_points", in.change_points, sh);
        // `detect --json` gives "points" as the count of points used; a series, when present, is
        // an array.
        if (auto it = v.FindMember("points"); it != v.MemberEnd() && it->value.IsArray())
            list(v, path, "points", in.series, pt);
        std::vector<core::ReportPoint> failed;
        list(v, path, "failed", failed, pt);
        for (auto& f : failed) {
            if (f.status == "ok")
                f.status = "failed";
            in.skipped.push_back(std::move(f));
        }
    }
    void daily(const Value& v, const std::string& path, core::ReportInput& in) const {
        common(v, path, in);
        auto sh = [this](const Value& e, const std::string& p) { return shift(e, p); };
        auto pt = [this](const Value& e, const std::string& p) { return point(e, p); };
        list(v, path, "points", in.daily_points, pt);
        list(v, path, "boundaries", in.boundaries, sh);
        mode(v, path, in);
        attributions(v, path, in);
        if (const Value* bs = array(v, path, "boundaries"))
            for (rapidjson::SizeType i = 0; i < bs->Size(); ++i)
                failure_log(element_object(*bs, i, path + ".boundaries"),
                            path + ".boundaries[" + std::to_string(i) + "]", "daily", in);
        for (const auto& p : in.daily_points)
            if (p.status != "ok")
                in.skipped.push_back(p);
    }
    void strings(const Value& obj, const std::string& path, const char* name,
                 std::vector<std::string>& out) const {
        if (const Value* a = array(obj, path, name))
            for (rapidjson::SizeType i = 0; i < a->Size(); ++i) {
                if (!(*a)[i].IsString())
                    fail(path + "." + name + "[" + std::to_string(i) + "]", "a string");
                out.emplace_back((*a)[i].GetString(), (*a)[i].GetStringLength());
            }
    }
    // Each daily boundary's "attribution" object (sources / environment / both).
    void attributions(const Value& v, const std::string& path, core::ReportInput& in) const {
        const Value* bs = array(v, path, "boundaries");
        if (!bs)
            return;
        for (rapidjson::SizeType i = 0; i < bs->Size(); ++i) {
            const std::string bp = path + ".boundaries[" + std::to_string(i) + "]";
            const Value& b = element_object(*bs, i, path + ".boundaries");
            const Value* a = object(b, bp, "attribution");
            if (!a)
                continue;
            const std::string ap = bp + ".attribution";
            core::ReportAttribution ra;
            str(b, bp, "last_before", ra.last_good);
            str(b, bp, "first_after", ra.first_bad);
            str(*a, ap, "cause", ra.cause);
            boolean(*a, ap, "commits_known", ra.commits_known);
            boolean(*a, ap, "environment_known", ra.environment_known);
            strings(*a, ap, "components", ra.components);
            strings(*a, ap, "changed_repos", ra.changed_repos);
            str(*a, ap, "summary", ra.summary);
            if (const Value* d = array(*a, ap, "environment_diff"))
                for (rapidjson::SizeType k = 0; k < d->Size(); ++k) {
                    const std::string ep = ap + ".environment_diff[" + std::to_string(k) + "]";
                    const Value& e = element_object(*d, k, ap + ".environment_diff");
                    core::ReportEnvChange c;
                    str(e, ep, "component", c.component);
                    str(e, ep, "name", c.name);
                    str(e, ep, "before", c.before);
                    str(e, ep, "after", c.after);
                    if (c.name.empty())
                        c.name = c.component;
                    ra.diff.push_back(std::move(c));
                }
            in.attributions.push_back(std::move(ra));
        }
    }
    void hourly(const Value& v, const std::string& path, core::ReportInput& in) const {
        common(v, path, in);
        mode(v, path, in);
        auto st = [this](const Value& e, const std::string& p) { return state(e, p); };
        list(v, path, "states", in.hourly_states, st);
        // Skipped = could not be measured; good/bad/duplicate/untested/planned states are not.
        for (const auto& s : in.hourly_states)
            if (s.status == "build_failed" || s.status == "test_failed" || s.status == "failed" ||
                s.status == "timeout" || s.status == "missing")
                in.skipped.push_back({s.time, s.status, s.values, s.log, s.reason});
        if (const Value* w = object(v, path, "window")) {
            const std::string wp = path + ".window";
            core::ReportWindow win;
            if (const Value* g = object(*w, wp, "last_good"))
                win.last_good = state(*g, wp + ".last_good");
            if (const Value* b = object(*w, wp, "first_bad"))
                win.first_bad = state(*b, wp + ".first_bad");
            failures(*w, wp, win.good_runs, win.bad_runs);
            failure_log(*w, wp, "hourly", in);
            in.window = win;
        }
        // `hourly --json` gives compare URLs (https://github.com/O/R/compare/A...B): their prefix
        // is the repo's web address, used to link commits when no "repos" map says otherwise.
        std::map<std::string, std::string> compare;
        string_map(v, path, "compare_urls", compare);
        for (const auto& [repo, url] : compare)
            if (const auto cut = url.find("/compare/"); cut != std::string::npos)
                in.repo_urls.emplace(repo, url.substr(0, cut));
        if (const Value* c = object(v, path, "candidates")) {
            for (auto it = c->MemberBegin(); it != c->MemberEnd(); ++it) {
                std::string repo(it->name.GetString(), it->name.GetStringLength());
                const std::string cp = path + ".candidates." + repo;
                if (!it->value.IsArray())
                    fail(cp, "an array");
                auto& out = in.candidates[repo];
                for (rapidjson::SizeType i = 0; i < it->value.Size(); ++i) {
                    const std::string ep = cp + "[" + std::to_string(i) + "]";
                    const Value& e = element_object(it->value, i, cp);
                    core::ReportCommit rc;
                    str(e, ep, "sha", rc.sha);
                    str(e, ep, "time", rc.time);
                    str(e, ep, "author", rc.author);
                    str(e, ep, "subject", rc.subject);
                    str(e, ep, "url", rc.url);
                    out.push_back(std::move(rc));
                }
            }
        }
        if (const Value* c = object(v, path, "culprit")) {
            core::ReportCulprit cu;
            str(*c, path + ".culprit", "repo", cu.repo);
            str(*c, path + ".culprit", "sha", cu.sha);
            str(*c, path + ".culprit", "subject", cu.subject);
            str(*c, path + ".culprit", "author", cu.author);
            str(*c, path + ".culprit", "url", cu.url);
            if (!cu.sha.empty())
                in.culprit = cu;
        }
    }

private:
    std::string m_source;
};

using json_write::put;
using json_write::put_map;

template <class W> void write_point(W& w, const core::ReportPoint& p) {
    w.StartObject();
    put(w, "label", p.label);
    put(w, "status", p.status);
    json_write::put_doubles(w, "values", p.values);
    put(w, "log", p.log);
    put(w, "reason", p.reason);
    w.EndObject();
}
template <class W>
void write_failures(W& w, const std::optional<core::PassFail>& before,
                    const std::optional<core::PassFail>& after) {
    if (!before || !after)
        return;
    w.Key("failures");
    w.StartObject();
    json_failure::put_runs(w, "before", *before);
    json_failure::put_runs(w, "after", *after);
    w.EndObject();
}
template <class W> void write_shift(W& w, const core::ReportShift& s) {
    w.StartObject();
    write_failures(w, s.runs_before, s.runs_after);
    put(w, "last_before", s.last_before);
    put(w, "first_after", s.first_after);
    w.Key("old");
    w.Double(s.old_value);
    w.Key("new");
    w.Double(s.new_value);
    w.Key("relative_change");
    w.Double(s.relative_change);
    put(w, "kind", s.kind);
    w.EndObject();
}
template <class W> void write_state(W& w, const core::ReportState& s) {
    w.StartObject();
    put(w, "time", s.time);
    put_map(w, "commits", s.commits);
    w.Key("changed");
    w.Bool(s.changed);
    put(w, "status", s.status);
    json_write::put_doubles(w, "values", s.values);
    put(w, "log", s.log);
    put(w, "reason", s.reason);
    w.EndObject();
}

} // namespace

core::ReportInput report_input_from_json(std::string_view json, const std::string& source) {
    rapidjson::Document doc;
    if (const auto err = parse_json(doc, json))
        throw_usage(source + ": not valid JSON at offset " + std::to_string(err->offset) + ": " +
                    err->message);
    if (!doc.IsObject())
        throw_usage(source + ": at $: expected a JSON object (a stage result)");
    Reader r(source);
    core::ReportInput in;
    const bool nested =
        doc.HasMember("detect") || doc.HasMember("daily") || doc.HasMember("hourly");
    if (nested) {
        in.kind = "investigate";
        r.common(doc, "$", in);
        if (const Value* d = r.object(doc, "$", "detect"))
            r.detect(*d, "$.detect", in);
        if (const Value* d = r.object(doc, "$", "daily"))
            r.daily(*d, "$.daily", in);
        if (const Value* h = r.object(doc, "$", "hourly"))
            r.hourly(*h, "$.hourly", in);
    } else if (doc.HasMember("states") || doc.HasMember("window") || doc.HasMember("candidates")) {
        in.kind = "hourly";
        r.hourly(doc, "$", in);
    } else if (doc.HasMember("boundaries") || doc.HasMember("points")) {
        if (doc.HasMember("change_points")) {
            in.kind = "detect";
            r.detect(doc, "$", in);
        } else {
            in.kind = "daily";
            r.daily(doc, "$", in);
        }
    } else if (doc.HasMember("change_points") || doc.HasMember("verdict")) {
        in.kind = "detect";
        r.detect(doc, "$", in);
    } else {
        throw_usage(source +
                    ": at $: expected a stage result with 'change_points' (detect), 'points' "
                    "(daily), 'states' (hourly) or 'detect'/'daily'/'hourly' (investigate)");
    }
    if (in.metric.empty())
        in.metric = "value";
    // Link candidates and the culprit to their repos when the URL is known.
    for (auto& [repo, list] : in.candidates) {
        auto url = in.repo_urls.find(repo);
        for (auto& c : list)
            if (c.url.empty() && url != in.repo_urls.end() && !c.sha.empty())
                c.url = url->second + "/commit/" + c.sha;
    }
    if (in.culprit) {
        auto& cu = *in.culprit;
        auto it = in.candidates.find(cu.repo);
        if (it != in.candidates.end())
            for (const auto& c : it->second)
                if (c.sha == cu.sha || (cu.sha.size() >= 7 && c.sha.rfind(cu.sha, 0) == 0)) {
                    if (cu.subject.empty())
                        cu.subject = c.subject;
                    if (cu.author.empty())
                        cu.author = c.author;
                    if (cu.url.empty())
                        cu.url = c.url;
                }
        auto url = in.repo_urls.find(cu.repo);
        if (cu.url.empty() && url != in.repo_urls.end())
            cu.url = url->second + "/commit/" + cu.sha;
    }
    return in;
}

std::string report_input_to_json(const core::ReportInput& in) {
    rapidjson::StringBuffer buf;
    rapidjson::PrettyWriter<rapidjson::StringBuffer> w(buf);
    w.SetIndent(' ', 2);
    w.StartObject();
    put(w, "kind", in.kind);
    put(w, "benchmark", in.benchmark);
    put(w, "metric", in.metric);
    put(w, "unit", in.unit);
    put(w, "direction", std::string(core::to_string(in.direction)));
    put(w, "verdict", in.verdict);
    put(w, "mode", in.failure_rates ? "exit-code" : "metric");
    json_write::put_array(w, "change_points", in.change_points,
                          [&](const auto& s) { write_shift(w, s); });
    json_write::put_array(w, "daily_points", in.daily_points,
                          [&](const auto& p) { write_point(w, p); });
    json_write::put_array(w, "boundaries", in.boundaries,
                          [&](const auto& s) { write_shift(w, s); });
    json_write::put_array(w, "hourly_states", in.hourly_states,
                          [&](const auto& s) { write_state(w, s); });
    if (in.window) {
        w.Key("window");
        w.StartObject();
        w.Key("last_good");
        write_state(w, in.window->last_good);
        w.Key("first_bad");
        write_state(w, in.window->first_bad);
        write_failures(w, in.window->good_runs, in.window->bad_runs);
        w.EndObject();
    }
    w.Key("candidates");
    w.StartObject();
    for (const auto& [repo, list] : in.candidates) {
        w.Key(repo.c_str());
        w.StartArray();
        for (const auto& c : list) {
            w.StartObject();
            put(w, "sha", c.sha);
            put(w, "time", c.time);
            put(w, "author", c.author);
            put(w, "subject", c.subject);
            put(w, "url", c.url);
            w.EndObject();
        }
        w.EndArray();
    }
    w.EndObject();
    if (in.culprit) {
        w.Key("culprit");
        w.StartObject();
        put(w, "repo", in.culprit->repo);
        put(w, "sha", in.culprit->sha);
        put(w, "subject", in.culprit->subject);
        put(w, "author", in.culprit->author);
        put(w, "url", in.culprit->url);
        w.EndObject();
    }
    json_write::put_array(w, "skipped", in.skipped, [&](const auto& p) { write_point(w, p); });
    if (!in.failure_logs.empty()) {
        json_write::put_array(w, "failure_logs", in.failure_logs, [&](const auto& l) {
            w.StartObject();
            put(w, "stage", l.stage);
            put(w, "point", l.point);
            put(w, "log", l.log);
            put(w, "status", l.status);
            put(w, "excerpt", l.excerpt);
            w.EndObject();
        });
    }
    if (!in.attributions.empty()) {
        json_write::put_array(w, "attributions", in.attributions, [&](const auto& a) {
            w.StartObject();
            put(w, "last_good", a.last_good);
            put(w, "first_bad", a.first_bad);
            put(w, "cause", a.cause);
            w.Key("commits_known");
            w.Bool(a.commits_known);
            w.Key("environment_known");
            w.Bool(a.environment_known);
            json_write::put_strings(w, "components", a.components);
            json_write::put_strings(w, "changed_repos", a.changed_repos);
            json_write::put_array(w, "environment_diff", a.diff, [&](const auto& c) {
                w.StartObject();
                put(w, "component", c.component);
                put(w, "name", c.name);
                put(w, "before", c.before);
                put(w, "after", c.after);
                w.EndObject();
            });
            put(w, "summary", a.summary);
            w.EndObject();
        });
    }
    put_map(w, "repos", in.repo_urls);
    put_map(w, "runner", in.runner);
    if (in.budget.runs) {
        w.Key("runs");
        w.Int64(*in.budget.runs);
    }
    if (in.budget.builds) {
        w.Key("builds");
        w.Int64(*in.budget.builds);
    }
    if (in.budget.seconds) {
        w.Key("elapsed_s");
        w.Double(*in.budget.seconds);
    }
    w.Key("reproduce");
    w.StartArray();
    for (const auto& c : in.reproduce)
        w.String(c.c_str());
    w.EndArray();
    w.EndObject();
    return std::string(buf.GetString(), buf.GetSize()) + "\n";
}

} // namespace perfsweep::adapters
