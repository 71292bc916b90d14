#include "report/result_json.hpp"

#include "core/environment.hpp"
#include "core/exit_code.hpp"
#include "core/stats.hpp"
#include "util/json_writer.hpp"
#include "util/time.hpp"

namespace perfsweep::report {
namespace {

using util::JsonWriter;

void strings(JsonWriter& w, std::string_view key, const std::vector<std::string>& v) {
    w.key(key).begin_array();
    for (const auto& s : v)
        w.value(s);
    w.end_array();
}

void string_map(JsonWriter& w, std::string_view key, const std::map<std::string, std::string>& m) {
    w.key(key).begin_object();
    for (const auto& [k, v] : m)
        w.member(k, v);
    w.end_object();
}

/// "key": [{...}, ...], each element's fields written by `fields(w, item)`.
template <class Items, class Fields>
void objects(JsonWriter& w, std::string_view key, const Items& items, Fields fields) {
    w.key(key).begin_array();
    for (const auto& item : items) {
        w.begin_object();
        fields(w, item);
        w.end_object();
    }
    w.end_array();
}

void doubles(JsonWriter& w, std::string_view key, const std::vector<double>& v) {
    w.key(key).begin_array();
    for (double x : v)
        w.value(x);
    w.end_array();
}

void runs(JsonWriter& w, std::string_view key, const core::PassFail& p) {
    w.key(key).begin_object().member("passed", p.passed).member("failed", p.failed).end_object();
}

/// "failures": {"before": runs, "after": runs, "change": "started failing (...)"}
void failure_change(JsonWriter& w, const core::PassFail& before, const core::PassFail& after) {
    w.key("failures").begin_object();
    runs(w, "before", before);
    runs(w, "after", after);
    w.member("change", core::describe_failure_change(before, after));
    w.end_object();
}

/// "first_bad_log": {"point", "log", "exit_code", "status", "excerpt"}
void failure_log(JsonWriter& w, const core::FailureLog& f) {
    w.key("first_bad_log")
        .begin_object()
        .member("point", f.point)
        .member("log", f.log)
        .member("exit_code", f.exit_code)
        .member("status", core::describe_exit_status(f.exit_code))
        .member("excerpt", f.excerpt)
        .end_object();
}

std::string_view mode_name(bool exit_code) {
    return core::to_string(exit_code ? core::RunMode::exit_code : core::RunMode::metric);
}

void detect_fields(JsonWriter& w, const core::DetectResult& r) {
    w.member("benchmark", r.benchmark).member("metric", r.metric);
    if (!r.testbed.empty())
        w.member("testbed", r.testbed);
    w.member("unit", r.unit)
        .member("direction", core::to_string(r.direction))
        .member("mode", mode_name(r.failure_rates))
        .member("verdict", core::to_string(r.verdict))
        .member("reason", r.reason)
        .member("threshold", r.threshold)
        .member("points", r.points)
        .member("noise", r.noise)
        .member("relative_noise", r.relative_noise)
        .member("order", core::to_string(r.order))
        .member("recovered", r.recovered);
    objects(w, "change_points", r.change_points, [](JsonWriter& o, const core::ChangePoint& c) {
        o.member("last_before", c.last_before)
            .member("first_after", c.first_after)
            .member("old", c.old_level)
            .member("new", c.new_level)
            .member("relative_change", c.relative_change)
            .member("p_value", c.p_value)
            .member("kind", core::to_string(c.kind));
    });
    auto segment = [](JsonWriter& o, const core::Segment& s) {
        o.member("first", s.first_label)
            .member("last", s.last_label)
            .member("points", s.points)
            .member("level", s.level);
    };
    objects(w, "segments", r.segments, segment);
    if (r.reference.points > 0) { // what the verdict judged: the present against the reference
        w.key("reference").begin_object();
        segment(w, r.reference);
        w.end_object().key("present").begin_object();
        segment(w, r.present);
        w.end_object().member("present_change", r.present_change);
    }
    strings(w, "outliers", r.outliers);
    objects(w, "failed", r.failed, [](JsonWriter& o, const core::FailedPoint& f) {
        o.member("label", f.label).member("reason", f.reason);
    });
}

void attribution(JsonWriter& w, const core::Attribution& a) {
    w.key("attribution")
        .begin_object()
        .member("cause", core::to_string(a.cause))
        .member("commits_known", a.commits_known)
        .member("environment_known", a.environment_known);
    strings(w, "components", a.components);
    strings(w, "changed_repos", a.changed_repos);
    objects(w, "environment_diff", a.diff, [](JsonWriter& o, const auto& c) {
        o.member("component", c.component)
            .member("name", core::environment_component_name(c.component))
            .member("before", c.before)
            .member("after", c.after);
    });
    w.member("summary", core::describe_attribution(a)).end_object();
}

void daily_fields(JsonWriter& w, const core::DailyResult& r) {
    const auto& s = r.sweep;
    const bool pass_fail = core::is_exit_code(r);
    w.member("from", r.from)
        .member("to", r.to)
        .member("image", r.image)
        .member("benchmark", r.benchmark)
        .member("metric", r.metric)
        .member("unit", r.unit)
        .member("direction", core::to_string(r.direction))
        .member("mode", mode_name(pass_fail))
        .member("strategy", core::to_string(s.options.strategy))
        .member("repeats", s.options.repeats)
        .member("max_repeats", s.options.max_repeats)
        .member("min_span", s.options.min_span)
        .member("min_change", s.options.min_change);
    auto has_records = [&](std::size_t i) {
        return i < r.measurements.size() && !r.measurements[i].empty();
    };
    w.key("points").begin_array();
    for (std::size_t i = 0; i < s.points.size(); ++i) {
        const auto& p = s.points[i];
        w.begin_object().member("label", p.label);
        w.member("status", p.state == core::StateStatus::untested ? std::string_view("untested")
                                                                  : core::to_string(p.status));
        doubles(w, "values", p.values);
        if (has_records(i)) { // exit-code mode: every run's status, in run order
            std::vector<int> codes;
            for (const auto& rec : r.measurements[i])
                codes.insert(codes.end(), rec.exit_codes.begin(), rec.exit_codes.end());
            if (!codes.empty()) {
                w.key("exit_codes").begin_array();
                for (int c : codes)
                    w.value(c);
                w.end_array();
            }
        }
        if (!p.values.empty()) {
            const auto sum = core::summarize(p.values);
            w.member("median", sum.median).member("stddev", sum.stddev);
        }
        w.member("repeats", p.values.size()).member("log", p.log);
        if (!p.reason.empty())
            w.member("reason", p.reason);
        w.member("reused", p.reused);
        if (has_records(i)) {
            const auto b = core::point_build(r, i);
            w.member("image", b.image);
            if (!b.digest.empty())
                w.member("digest", b.digest);
            string_map(w, "commits", b.commits);
            string_map(w, "commit_times", b.commit_times);
            if (!b.environment.empty())
                string_map(w, "environment", b.environment);
        }
        w.end_object();
    }
    w.end_array();
    w.key("boundaries").begin_array();
    for (const auto& b : s.boundaries) {
        const auto& before = s.points.at(b.last_before);
        const auto& after = s.points.at(b.first_after);
        w.begin_object()
            .member("last_before", before.label)
            .member("first_after", after.label)
            .member("old", b.old_level)
            .member("new", b.new_level)
            .member("relative_change", b.relative_change)
            .member("p_value", b.p_value)
            .member("kind", core::to_string(b.kind))
            .member("narrowed", b.untested_between == 0)
            .member("untested_between", b.untested_between);
        w.key("broken_between").begin_array();
        for (auto i : b.broken_between)
            w.value(s.points.at(i).label);
        w.end_array();
        if (has_records(b.last_before)) {
            const auto pb = core::point_build(r, b.last_before);
            string_map(w, "last_before_commits", pb.commits);
            string_map(w, "last_before_commit_times", pb.commit_times);
        }
        if (has_records(b.first_after)) {
            const auto pb = core::point_build(r, b.first_after);
            string_map(w, "first_after_commits", pb.commits);
            string_map(w, "first_after_commit_times", pb.commit_times);
        }
        attribution(w, core::attribute_boundary(r, b));
        if (pass_fail && b.kind != core::ChangeKind::unknown)
            failure_change(w, b.runs_before, b.runs_after);
        for (const auto& f : r.failure_logs)
            if (f.point == after.label) {
                failure_log(w, f);
                break;
            }
        w.end_object();
    }
    w.end_array();
    objects(w, "skipped", s.skipped, [&](JsonWriter& o, std::size_t i) {
        const auto& p = s.points.at(i);
        o.member("label", p.label)
            .member("status", core::to_string(p.status))
            .member("reason", p.reason)
            .member("log", p.log);
    });
    w.member("runs", s.runs)
        .member("exhaustive_runs", s.exhaustive_runs)
        .member("resumed_runs", r.resumed_runs)
        .member("reused_values", s.reused_values)
        .member("complete", s.complete)
        .member("stop_reason", s.stop_reason);
    strings(w, "warnings", r.warnings);
}

void state_fields(JsonWriter& w, const core::StateOutcome& s) {
    w.member("time", util::format_iso8601(s.time));
    string_map(w, "commits", s.commits);
    strings(w, "changed", s.changed);
    w.member("duplicate", s.duplicate).member("status", core::to_string(s.status));
    doubles(w, "values", s.values);
    if (!s.reason.empty())
        w.member("reason", s.reason);
    if (!s.log.empty())
        w.member("log", s.log);
}

void window_end(JsonWriter& w, std::string_view key, const std::optional<core::WindowEnd>& e) {
    w.key(key);
    if (!e) {
        w.null();
        return;
    }
    w.begin_object().member("time", util::format_iso8601(e->time));
    string_map(w, "commits", e->commits);
    w.end_object();
}

void commit_fields(JsonWriter& w, const core::CommitInfo& c) {
    w.member("sha", c.sha)
        .member("time", util::format_iso8601(c.time))
        .member("author", c.author)
        .member("subject", c.subject);
}

void hourly_fields(JsonWriter& w, const core::HourlyResult& r) {
    w.member("conclusion", core::to_string(r.conclusion))
        .member("message", r.message)
        .member("metric", r.metric)
        .member("unit", r.unit)
        .member("mode", mode_name(r.failure_rates));
    objects(w, "states", r.states, state_fields);
    w.key("window").begin_object();
    window_end(w, "last_good", r.last_good);
    window_end(w, "first_bad", r.first_bad);
    if (r.failure_rates && r.last_good && r.first_bad) {
        failure_change(w, r.good_runs, r.bad_runs);
        if (r.first_bad_log)
            failure_log(w, *r.first_bad_log);
    }
    w.end_object();
    strings(w, "changed", r.changed_repos);
    w.key("candidates").begin_object();
    for (const auto& [name, list] : r.candidates)
        objects(w, name, list, commit_fields);
    w.end_object();
    string_map(w, "compare_urls", r.compare_urls);
    objects(w, "commit_steps", r.commit_steps, state_fields);
    if (r.culprit) {
        w.key("culprit").begin_object().member("repo", r.culprit->repo);
        commit_fields(w, r.culprit->commit);
        w.member("note", r.culprit->note).end_object();
    }
    w.member("builds", r.spend.builds)
        .member("runs", r.spend.runs)
        .member("resumed_builds", r.spend.resumed_builds)
        .member("resumed_runs", r.spend.resumed_runs)
        .member("reused_values", r.spend.reused_values)
        .member("avoided_runs", r.spend.avoided_runs)
        .member("avoided_builds", r.spend.avoided_builds)
        .member("restored_builds", r.spend.restored_builds)
        .member("budget_exhausted", r.budget_exhausted);
}

// One series of many: its name, notes and detect result (with the key's benchmark and testbed).
void series_fields(JsonWriter& o, const core::SeriesDetect& s) {
    o.member("name", core::to_string(s.key));
    strings(o, "notes", s.notes);
    core::DetectResult r = s.result;
    r.benchmark = s.key.benchmark;
    r.metric = s.key.metric;
    r.testbed = s.key.testbed;
    detect_fields(o, r);
}

void investigation_fields(JsonWriter& w, const core::Investigation& inv) {
    w.member("verdict", core::to_string(inv.verdict)).member("reason", inv.reason);
    w.key("detect").begin_object();
    detect_fields(w, inv.detect);
    w.end_object();
    objects(w, "daily", inv.daily, daily_fields);
    objects(w, "hourly", inv.hourly, hourly_fields);
    if (!inv.series.empty())
        objects(w, "series", inv.series, series_fields);
    objects(w, "regressions", inv.regressions, [](JsonWriter& o, const auto& r) {
        if (!r.series.empty())
            o.member("series", r.series);
        o.member("daily", r.daily)
            .member("last_good", r.last_good)
            .member("first_bad", r.first_bad)
            .key("hourly");
        if (r.hourly)
            o.value(*r.hourly);
        else
            o.null();
    });
    w.member("runs", inv.spend.runs)
        .member("builds", inv.spend.builds)
        .member("reused_values", inv.spend.reused_values)
        .member("avoided_runs", inv.spend.avoided_runs)
        .member("avoided_builds", inv.spend.avoided_builds)
        .member("restored_builds", inv.spend.restored_builds)
        .member("elapsed_s", inv.spend.seconds);
    strings(w, "reproduce", inv.reproduce);
    string_map(w, "repos", inv.repo_urls);
    string_map(w, "runner", inv.runner);
}

} // namespace

std::string render_json(const core::ResultDocument& doc) {
    JsonWriter w;
    w.begin_object()
        .member("kind", core::to_string(core::kind_of(doc)))
        .member("format_version", core::k_result_format_version);
    std::visit(
        [&](const auto& r) {
            using T = std::decay_t<decltype(r)>;
            if constexpr (std::is_same_v<T, core::DetectResult>)
                detect_fields(w, r);
            else if constexpr (std::is_same_v<T, core::DailyResult>)
                daily_fields(w, r);
            else if constexpr (std::is_same_v<T, core::HourlyResult>)
                hourly_fields(w, r);
            else
                investigation_fields(w, r);
        },
        doc);
    w.end_object();
    return w.text() + "\n";
}

std::string render_series_json(const std::vector<core::SeriesDetect>& series) {
    JsonWriter w;
    w.begin_object()
        .member("kind", "detect-series")
        .member("format_version", core::k_result_format_version)
        .member("verdict", core::to_string(core::worst_verdict(series)))
        .member("series_count", series.size());
    w.key("verdicts").begin_object();
    for (auto v : {core::Verdict::regression, core::Verdict::improvement,
                   core::Verdict::no_regression, core::Verdict::inconclusive}) {
        std::size_t n = 0;
        for (const auto& s : series)
            n += s.result.verdict == v ? 1 : 0;
        w.member(core::to_string(v), n);
    }
    w.end_object();
    objects(w, "series", series, series_fields);
    w.end_object();
    return w.text() + "\n";
}

} // namespace perfsweep::report
