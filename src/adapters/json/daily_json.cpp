#include "adapters/json/daily_json.hpp"

#include "adapters/json/failure_json.hpp"
#include "adapters/json/json_write.hpp"
#include "core/environment.hpp"
#include "core/stats.hpp"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

namespace perfsweep::adapters {

namespace {

using Writer = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

using json_write::put;
using json_write::put_doubles;
using json_write::put_int;
using json_write::put_map;
using json_write::put_strings;

// The last record of point i (its commits, image, digest, log), if any.
const core::Measurement* last_record(const core::DailyResult& r, std::size_t i) {
    if (i >= r.measurements.size() || r.measurements[i].empty())
        return nullptr;
    return &r.measurements[i].back();
}

// What explains the boundary: sources, environment, both (core/environment).
void put_attribution(Writer& w, const core::Attribution& a) {
    w.Key("attribution");
    w.StartObject();
    put(w, "cause", std::string(core::to_string(a.cause)));
    w.Key("commits_known");
    w.Bool(a.commits_known);
    w.Key("environment_known");
    w.Bool(a.environment_known);
    put_strings(w, "components", a.components);
    put_strings(w, "changed_repos", a.changed_repos);
    json_write::put_array(w, "environment_diff", a.diff, [&](const auto& c) {
        w.StartObject();
        put(w, "component", c.component);
        put(w, "name", core::environment_component_name(c.component));
        put(w, "before", c.before);
        put(w, "after", c.after);
        w.EndObject();
    });
    put(w, "summary", core::describe_attribution(a));
    w.EndObject();
}

} // namespace

std::string daily_to_json(const core::DailyResult& r) {
    const auto& s = r.sweep;
    rapidjson::StringBuffer buf;
    Writer w(buf);
    w.SetIndent(' ', 2);
    w.StartObject();
    put(w, "stage", std::string("daily"));
    put(w, "from", r.from);
    put(w, "to", r.to);
    put(w, "image", r.image);
    put(w, "benchmark", r.benchmark);
    put(w, "metric", r.metric);
    put(w, "unit", r.unit);
    put(w, "direction", std::string(core::to_string(r.direction)));
    put(w, "strategy", std::string(core::to_string(s.options.strategy)));
    put_int(w, "repeats", s.options.repeats);
    put_int(w, "max_repeats", s.options.max_repeats);
    put_int(w, "min_span", s.options.min_span);
    put(w, "min_change", s.options.min_change);
    const bool pass_fail = s.options.comparison == core::ComparisonKind::pass_fail;
    put(w, "mode", std::string(pass_fail ? "exit-code" : "metric"));
    w.Key("points");
    w.StartArray();
    for (std::size_t i = 0; i < s.points.size(); ++i) {
        const auto& p = s.points[i];
        const auto* m = last_record(r, i);
        w.StartObject();
        put(w, "label", p.label);
        const std::string status = p.state == core::PointState::untested
                                       ? "untested"
                                       : std::string(core::to_string(p.status));
        put(w, "status", status);
        put_doubles(w, "values", p.values);
        if (i < r.measurements.size()) { // exit-code mode: every run's status, in run order
            std::vector<int> codes;
            for (const auto& rec : r.measurements[i])
                codes.insert(codes.end(), rec.exit_codes.begin(), rec.exit_codes.end());
            if (!codes.empty()) {
                w.Key("exit_codes");
                w.StartArray();
                for (int c : codes)
                    w.Int(c);
                w.EndArray();
            }
        }
        if (!p.values.empty()) {
            const auto sum = core::summarize(p.values);
            put(w, "median", sum.median);
            put(w, "stddev", sum.stddev);
        }
        put_int(w, "repeats", static_cast<long>(p.values.size()));
        put(w, "log", p.log);
        if (!p.reason.empty())
            put(w, "reason", p.reason);
        w.Key("reused");
        w.Bool(p.reused);
        if (m) {
            put(w, "image", m->image);
            if (!m->digest.empty())
                put(w, "digest", m->digest);
            put_map(w, "commits", m->commits);
            put_map(w, "commit_times", m->commit_times);
            if (const auto fp = core::build_fingerprint(r.measurements[i]); !fp.environment.empty())
                put_map(w, "environment", fp.environment);
        }
        w.EndObject();
    }
    w.EndArray();
    json_write::put_array(w, "boundaries", s.boundaries, [&](const auto& b) {
        w.StartObject();
        put(w, "last_before", s.points[b.last_before].label);
        put(w, "first_after", s.points[b.first_after].label);
        put(w, "old", b.old_level);
        put(w, "new", b.new_level);
        put(w, "relative_change", b.relative_change);
        put(w, "p_value", b.p_value);
        put(w, "kind", std::string(core::to_string(b.kind)));
        w.Key("narrowed");
        w.Bool(b.untested_between == 0);
        put_int(w, "untested_between", static_cast<long>(b.untested_between));
        w.Key("broken_between");
        w.StartArray();
        for (auto i : b.broken_between)
            w.String(s.points[i].label.c_str());
        w.EndArray();
        if (const auto* m = last_record(r, b.last_before)) {
            put_map(w, "last_before_commits", m->commits);
            put_map(w, "last_before_commit_times", m->commit_times);
        }
        if (const auto* m = last_record(r, b.first_after)) {
            put_map(w, "first_after_commits", m->commits);
            put_map(w, "first_after_commit_times", m->commit_times);
        }
        put_attribution(w, core::attribute_boundary(r, b));
        if (pass_fail && b.kind != core::BoundaryKind::unknown)
            json_failure::put_failure_change(w, b.runs_before, b.runs_after);
        for (const auto& f : r.failure_logs)
            if (f.point == s.points[b.first_after].label)
                json_failure::put_failure_log(w, "first_bad_log", f);
        w.EndObject();
    });
    w.Key("skipped");
    w.StartArray();
    for (auto i : s.skipped) {
        const auto& p = s.points[i];
        w.StartObject();
        put(w, "label", p.label);
        put(w, "status", std::string(core::to_string(p.status)));
        put(w, "reason", p.reason);
        put(w, "log", p.log);
        w.EndObject();
    }
    w.EndArray();
    put_int(w, "runs", s.runs);
    put_int(w, "exhaustive_runs", s.exhaustive_runs);
    put_int(w, "resumed_runs", r.resumed_runs);
    put_int(w, "reused_values", s.reused_values);
    w.Key("complete");
    w.Bool(s.complete);
    put(w, "stop_reason", s.stop_reason);
    w.Key("warnings");
    w.StartArray();
    for (const auto& x : r.warnings)
        w.String(x.c_str());
    w.EndArray();
    w.EndObject();
    return std::string(buf.GetString(), buf.GetSize()) + "\n";
}

} // namespace perfsweep::adapters
