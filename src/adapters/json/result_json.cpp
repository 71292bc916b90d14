#include "adapters/json/result_json.hpp"

#include "adapters/json/json_parse.hpp"
#include "core/commit_text.hpp"
#include "core/exit_code.hpp"
#include "util/enum_names.hpp"
#include "util/error.hpp"
#include "util/time.hpp"

#include <rapidjson/document.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <set>

namespace perfsweep::adapters {
namespace {

using Value = rapidjson::Value;

/// Parses with the shared nesting limit (adapters/json/json_parse); numbers are read with
/// std::from_chars (correctly rounded: what the writer's shortest form names reads back bit for
/// bit).
void parse_exact(rapidjson::Document& doc, std::string_view text, const std::string& source) {
    if (const auto err = parse_json(doc, text, JsonUtf8::validate, JsonNumbers::exact))
        throw_usage(source + ": not valid JSON at offset " + std::to_string(err->offset) + ": " +
                    err->message);
}

/// Reads fields with type checks; every error names the source and the JSON path. `legacy`
/// accepts what versions before format 2 wrote (and hand-written files in their shape).
constexpr std::string_view k_series_kind = "detect-series"; // report/result_json's

class Reader {
public:
    Reader(std::string source, bool legacy) : m_source(std::move(source)), m_legacy(legacy) {}

    [[noreturn]] void fail(const std::string& path, const std::string& expected) const {
        throw_usage(m_source + ": at " + path + ": expected " + expected);
    }
    const Value* member(const Value& obj, const char* name) const {
        auto it = obj.FindMember(name);
        if (it == obj.MemberEnd() || it->value.IsNull())
            return nullptr;
        return &it->value;
    }
    bool has(const Value& obj, const char* name) const { return member(obj, name) != nullptr; }
    static std::string at(const std::string& path, const char* name) { return path + "." + name; }
    static std::string at(const std::string& path, std::size_t i) {
        return path + "[" + std::to_string(i) + "]";
    }

    std::string text(const Value& v, const std::string& path) const {
        if (!v.IsString())
            fail(path, "a string");
        return std::string(v.GetString(), v.GetStringLength());
    }
    void str(const Value& obj, const std::string& path, const char* name, std::string& out) const {
        if (const Value* v = member(obj, name))
            out = text(*v, at(path, name));
    }
    std::string str(const Value& obj, const std::string& path, const char* name) const {
        std::string s;
        str(obj, path, name, s);
        return s;
    }
    double number(const Value& v, const std::string& path) const {
        if (!v.IsNumber())
            fail(path, "a number");
        return v.GetDouble();
    }
    bool num(const Value& obj, const std::string& path, const char* name, double& out) const {
        if (const Value* v = member(obj, name)) {
            out = number(*v, at(path, name));
            return true;
        }
        return false;
    }
    template <class I>
    bool integer(const Value& obj, const std::string& path, const char* name, I& out,
                 long long min = 0) const {
        const Value* v = member(obj, name);
        if (!v)
            return false;
        const std::string p = at(path, name);
        if (!v->IsInt64() || v->GetInt64() < min ||
            (v->GetInt64() > 0 &&
             static_cast<unsigned long long>(v->GetInt64()) >
                 static_cast<unsigned long long>(std::numeric_limits<I>::max())))
            fail(p, "an integer of at least " + std::to_string(min));
        out = static_cast<I>(v->GetInt64());
        return true;
    }
    void boolean(const Value& obj, const std::string& path, const char* name, bool& out) const {
        if (const Value* v = member(obj, name)) {
            if (!v->IsBool())
                fail(at(path, name), "true or false");
            out = v->GetBool();
        }
    }
    const Value* array(const Value& obj, const std::string& path, const char* name) const {
        const Value* v = member(obj, name);
        if (v && !v->IsArray())
            fail(at(path, name), "an array");
        return v;
    }
    const Value* object(const Value& obj, const std::string& path, const char* name) const {
        const Value* v = member(obj, name);
        if (v && !v->IsObject())
            fail(at(path, name), "an object");
        return v;
    }
    const Value& element_object(const Value& a, rapidjson::SizeType i,
                                const std::string& path) const {
        if (!a[i].IsObject())
            fail(at(path, i), "an object");
        return a[i];
    }
    template <class F>
    void each_object(const Value& obj, const std::string& path, const char* name, F&& f) const {
        if (const Value* a = array(obj, path, name))
            for (rapidjson::SizeType i = 0; i < a->Size(); ++i)
                f(element_object(*a, i, at(path, name)), at(at(path, name), i));
    }
    std::vector<double> doubles(const Value& obj, const std::string& path, const char* name) const {
        std::vector<double> out;
        if (const Value* a = array(obj, path, name))
            for (rapidjson::SizeType i = 0; i < a->Size(); ++i)
                out.push_back(number((*a)[i], at(at(path, name), i)));
        return out;
    }
    std::vector<std::string> strings(const Value& obj, const std::string& path,
                                     const char* name) const {
        std::vector<std::string> out;
        if (const Value* a = array(obj, path, name))
            for (rapidjson::SizeType i = 0; i < a->Size(); ++i)
                out.push_back(text((*a)[i], at(at(path, name), i)));
        return out;
    }
    std::map<std::string, std::string> string_map(const Value& obj, const std::string& path,
                                                  const char* name) const {
        std::map<std::string, std::string> out;
        if (const Value* o = object(obj, path, name))
            for (auto it = o->MemberBegin(); it != o->MemberEnd(); ++it) {
                std::string key(it->name.GetString(), it->name.GetStringLength());
                if (!it->value.IsNull())
                    out[key] = text(it->value, at(path, name) + "." + key);
            }
        return out;
    }
    util::UnixSeconds time(const Value& obj, const std::string& path, const char* name) const {
        const std::string s = str(obj, path, name);
        std::string why;
        const auto t = util::parse_iso8601(s, &why);
        if (!t)
            fail(at(path, name), "an ISO 8601 time such as 2023-08-24T13:00:00Z");
        return *t;
    }
    core::Direction direction(const Value& obj, const std::string& path) const {
        const std::string s = str(obj, path, "direction");
        if (s.empty())
            return core::Direction::higher_is_better;
        const auto d = core::parse_direction(s);
        if (!d)
            fail(at(path, "direction"), "\"higher\" or \"lower\"");
        return *d;
    }
    bool exit_code_mode(const Value& obj, const std::string& path) const {
        const std::string m = str(obj, path, "mode");
        if (m.empty() || m == core::to_string(core::RunMode::metric))
            return false;
        if (m != core::to_string(core::RunMode::exit_code))
            fail(at(path, "mode"), util::enum_choices(core::k_run_mode_names, "\""));
        return true;
    }
    core::PassFail runs(const Value& v, const std::string& path) const {
        core::PassFail p;
        integer(v, path, "passed", p.passed);
        integer(v, path, "failed", p.failed);
        return p;
    }
    /// "failures": {"before": runs, "after": runs}; false when absent.
    bool failures(const Value& v, const std::string& path, core::PassFail& before,
                  core::PassFail& after) const {
        const Value* f = object(v, path, "failures");
        if (!f)
            return false;
        const std::string fp = at(path, "failures");
        if (const Value* b = object(*f, fp, "before"))
            before = runs(*b, at(fp, "before"));
        if (const Value* a = object(*f, fp, "after"))
            after = runs(*a, at(fp, "after"));
        return true;
    }
    std::optional<core::FailureLog> failure_log(const Value& v, const std::string& path) const {
        const Value* f = object(v, path, "first_bad_log");
        if (!f)
            return std::nullopt;
        const std::string fp = at(path, "first_bad_log");
        core::FailureLog l;
        str(*f, fp, "point", l.point);
        str(*f, fp, "log", l.log);
        integer(*f, fp, "exit_code", l.exit_code, std::numeric_limits<int>::min());
        str(*f, fp, "excerpt", l.excerpt);
        return l;
    }

    // ------------------------------------------------------------------ detect
    core::DetectResult detect(const Value& v, const std::string& path) const {
        core::DetectResult r;
        str(v, path, "benchmark", r.benchmark);
        str(v, path, "metric", r.metric);
        str(v, path, "testbed", r.testbed);
        str(v, path, "unit", r.unit);
        r.direction = direction(v, path);
        r.failure_rates = exit_code_mode(v, path);
        if (const std::string s = str(v, path, "verdict"); !s.empty()) {
            auto verdict = core::parse_verdict(s);
            if (!verdict && m_legacy && s == "none")
                verdict = core::Verdict::no_regression;
            if (!verdict)
                fail(at(path, "verdict"), util::enum_choices(core::k_verdict_names, "\""));
            r.verdict = *verdict;
        }
        str(v, path, "reason", r.reason);
        num(v, path, "threshold", r.threshold);
        integer(v, path, "points", r.points);
        num(v, path, "noise", r.noise);
        num(v, path, "relative_noise", r.relative_noise);
        if (const std::string o = str(v, path, "order"); !o.empty()) {
            const auto order = core::parse_point_order(o);
            if (!order)
                fail(at(path, "order"), util::enum_choices(core::k_point_order_names, "\""));
            r.order = *order;
        }
        boolean(v, path, "recovered", r.recovered);
        each_object(v, path, "change_points", [&](const Value& c, const std::string& p) {
            core::ChangePoint cp;
            str(c, p, "last_before", cp.last_before);
            str(c, p, "first_after", cp.first_after);
            num(c, p, "old", cp.old_level);
            num(c, p, "new", cp.new_level);
            num(c, p, "relative_change", cp.relative_change);
            num(c, p, "p_value", cp.p_value);
            cp.kind = change_kind(c, p);
            r.change_points.push_back(std::move(cp));
        });
        auto segment = [&](const Value& s, const std::string& p) {
            core::Segment seg;
            str(s, p, "first", seg.first_label);
            str(s, p, "last", seg.last_label);
            integer(s, p, "points", seg.points);
            num(s, p, "level", seg.level);
            return seg;
        };
        each_object(v, path, "segments", [&](const Value& s, const std::string& p) {
            r.segments.push_back(segment(s, p));
        });
        if (const Value* ref = object(v, path, "reference"))
            r.reference = segment(*ref, at(path, "reference"));
        if (const Value* now = object(v, path, "present"))
            r.present = segment(*now, at(path, "present"));
        num(v, path, "present_change", r.present_change);
        r.outliers = strings(v, path, "outliers");
        each_object(v, path, "failed", [&](const Value& f, const std::string& p) {
            core::FailedPoint fp;
            str(f, p, "label", fp.label);
            str(f, p, "reason", fp.reason);
            r.failed.push_back(std::move(fp));
        });
        return r;
    }
    core::ChangeKind change_kind(const Value& v, const std::string& path) const {
        const std::string s = str(v, path, "kind");
        if (s.empty())
            return core::ChangeKind::unknown;
        const auto k = core::parse_change_kind(s);
        if (!k)
            fail(at(path, "kind"), util::enum_choices(core::k_change_kind_names, "\""));
        return *k;
    }

    // ------------------------------------------------------------------ daily
    core::DailyResult daily(const Value& v, const std::string& path) const {
        core::DailyResult r;
        auto& s = r.sweep;
        str(v, path, "from", r.from);
        str(v, path, "to", r.to);
        str(v, path, "image", r.image);
        str(v, path, "benchmark", r.benchmark);
        str(v, path, "metric", r.metric);
        str(v, path, "unit", r.unit);
        r.direction = direction(v, path);
        s.options.direction = r.direction;
        if (exit_code_mode(v, path))
            s.options.comparison = core::ComparisonKind::pass_fail;
        if (const std::string st = str(v, path, "strategy"); !st.empty()) {
            const auto parsed = core::parse_strategy(st);
            if (!parsed)
                fail(at(path, "strategy"), util::enum_choices(core::k_strategy_names, "\""));
            s.options.strategy = *parsed;
        }
        integer(v, path, "repeats", s.options.repeats);
        integer(v, path, "max_repeats", s.options.max_repeats);
        integer(v, path, "min_span", s.options.min_span);
        num(v, path, "min_change", s.options.min_change);
        each_object(v, path, "points",
                    [&](const Value& p, const std::string& pp) { point(r, p, pp); });
        std::set<std::string> seen;
        for (const auto& p : s.points)
            if (!seen.insert(p.label).second)
                fail(at(path, "points"), "one point per label ('" + p.label + "' repeats)");
        each_object(v, path, "boundaries",
                    [&](const Value& b, const std::string& bp) { boundary(r, b, bp); });
        for (std::size_t i = 0; i < s.points.size(); ++i)
            if (s.points[i].state == core::StateStatus::test_failed)
                s.skipped.push_back(i);
        integer(v, path, "runs", s.runs);
        integer(v, path, "exhaustive_runs", s.exhaustive_runs);
        integer(v, path, "resumed_runs", r.resumed_runs);
        integer(v, path, "reused_values", s.reused_values);
        s.complete = m_legacy && !has(v, "complete"); // hand-written results finished
        boolean(v, path, "complete", s.complete);
        str(v, path, "stop_reason", s.stop_reason);
        r.warnings = strings(v, path, "warnings");
        if (m_legacy && r.from.empty() && !s.points.empty()) {
            r.from = s.points.front().label;
            r.to = s.points.back().label;
        }
        return r;
    }
    void point(core::DailyResult& r, const Value& v, const std::string& path) const {
        core::SweepPoint p;
        str(v, path, "label", p.label);
        if (m_legacy && p.label.empty())
            str(v, path, "date", p.label);
        if (p.label.empty())
            fail(at(path, "label"), "the point's label (e.g. its date)");
        const std::string status = str(v, path, "status");
        p.values = doubles(v, path, "values");
        if (status == "untested") {
            p.state = core::StateStatus::untested;
        } else if (status.empty() || status == "ok") {
            p.state = core::StateStatus::unknown;
        } else {
            const auto st = core::parse_status(status);
            if (!st)
                fail(at(path, "status"), "\"ok\", \"failed\", \"timeout\", \"missing\" or "
                                         "\"untested\"");
            p.state = core::StateStatus::test_failed;
            p.status = *st;
        }
        str(v, path, "log", p.log);
        str(v, path, "reason", p.reason);
        boolean(v, path, "reused", p.reused);
        std::vector<core::Measurement> records;
        if (has(v, "image") || has(v, "digest") || has(v, "commits") || has(v, "commit_times") ||
            has(v, "environment") || has(v, "exit_codes")) {
            core::Measurement m;
            m.benchmark = r.benchmark;
            m.metric = r.metric;
            m.unit = r.unit;
            m.direction = r.direction;
            m.label = p.label;
            m.stage = core::Stage::daily;
            m.status = p.status;
            m.values = p.values;
            m.reason = p.reason;
            m.log = p.log;
            str(v, path, "image", m.image);
            str(v, path, "digest", m.digest);
            m.commits = string_map(v, path, "commits");
            m.commit_times = string_map(v, path, "commit_times");
            m.environment = string_map(v, path, "environment");
            if (const Value* a = array(v, path, "exit_codes"))
                for (rapidjson::SizeType i = 0; i < a->Size(); ++i) {
                    if (!(*a)[i].IsInt())
                        fail(at(at(path, "exit_codes"), i), "an exit status (an integer)");
                    m.exit_codes.push_back((*a)[i].GetInt());
                }
            records.push_back(std::move(m));
        }
        r.sweep.points.push_back(std::move(p));
        r.measurements.push_back(std::move(records));
    }
    /// The index of the point labelled `label`; older results may name a point they do not
    /// list (it is added, untested, and the indices of `r`'s boundaries and of `pending`, the
    /// boundary being read, move past it).
    std::size_t point_index(core::DailyResult& r, const std::string& label, const std::string& path,
                            core::Boundary* pending = nullptr) const {
        auto& pts = r.sweep.points;
        for (std::size_t i = 0; i < pts.size(); ++i)
            if (pts[i].label == label)
                return i;
        if (!m_legacy || label.empty())
            fail(path, "the label of a listed point");
        core::SweepPoint p;
        p.label = label;
        std::size_t at_pos = 0;
        while (at_pos < pts.size() && pts[at_pos].label < label)
            ++at_pos;
        pts.insert(pts.begin() + static_cast<std::ptrdiff_t>(at_pos), p);
        r.measurements.insert(r.measurements.begin() + static_cast<std::ptrdiff_t>(at_pos),
                              std::vector<core::Measurement>{});
        std::vector<core::Boundary*> shift;
        for (auto& b : r.sweep.boundaries)
            shift.push_back(&b);
        if (pending)
            shift.push_back(pending);
        for (auto* bp : shift) {
            auto& b = *bp;
            if (b.last_before >= at_pos)
                ++b.last_before;
            if (b.first_after >= at_pos)
                ++b.first_after;
            for (auto& i : b.broken_between)
                if (i >= at_pos)
                    ++i;
        }
        return at_pos;
    }
    void boundary(core::DailyResult& r, const Value& v, const std::string& path) const {
        core::Boundary b;
        b.last_before = point_index(r, str(v, path, "last_before"), at(path, "last_before"));
        b.first_after = point_index(r, str(v, path, "first_after"), at(path, "first_after"), &b);
        num(v, path, "old", b.old_level);
        num(v, path, "new", b.new_level);
        num(v, path, "relative_change", b.relative_change);
        num(v, path, "p_value", b.p_value);
        b.kind = change_kind(v, path);
        integer(v, path, "untested_between", b.untested_between);
        const auto broken = strings(v, path, "broken_between");
        for (std::size_t i = 0; i < broken.size(); ++i)
            b.broken_between.push_back(
                point_index(r, broken[i], at(at(path, "broken_between"), i), &b));
        failures(v, path, b.runs_before, b.runs_after);
        // The boundary's own copy of its builds' commits serves results that list no records.
        for (const auto& [side, index] :
             {std::pair<std::string, std::size_t>{"last_before", b.last_before},
              {"first_after", b.first_after}}) {
            const auto commits = string_map(v, path, (side + "_commits").c_str());
            const auto times = string_map(v, path, (side + "_commit_times").c_str());
            auto& records = r.measurements[index];
            if (records.empty() && (!commits.empty() || !times.empty())) {
                core::Measurement m;
                m.label = r.sweep.points[index].label;
                m.commits = commits;
                m.commit_times = times;
                records.push_back(std::move(m));
            }
        }
        if (auto log = failure_log(v, path))
            r.failure_logs.push_back(std::move(*log));
        r.sweep.boundaries.push_back(std::move(b));
    }

    // ------------------------------------------------------------------ hourly
    core::StateOutcome state(const Value& v, const std::string& path) const {
        core::StateOutcome s;
        s.time = time(v, path, "time");
        s.commits = string_map(v, path, "commits");
        if (const Value* c = member(v, "changed"); c && c->IsBool() && m_legacy)
            s.changed = c->GetBool() ? repo_names(s.commits) : std::vector<std::string>{};
        else
            s.changed = strings(v, path, "changed");
        boolean(v, path, "duplicate", s.duplicate);
        if (m_legacy && !has(v, "duplicate") && member(v, "changed") &&
            member(v, "changed")->IsFalse())
            s.duplicate = true;
        if (const std::string st = str(v, path, "status"); !st.empty()) {
            auto parsed = core::parse_state_status(st);
            if (!parsed && m_legacy) // hand-written results used the measurement statuses
                parsed = st == "ok"               ? core::StateStatus::unknown
                         : core::parse_status(st) ? core::StateStatus::test_failed
                                                  : parsed;
            if (!parsed)
                fail(at(path, "status"), "a state status (planned, untested, duplicate, good, "
                                         "bad, unknown, build_failed, test_failed)");
            s.status = *parsed;
        }
        s.values = doubles(v, path, "values");
        str(v, path, "reason", s.reason);
        str(v, path, "log", s.log);
        return s;
    }
    static std::vector<std::string> repo_names(const std::map<std::string, std::string>& m) {
        std::vector<std::string> out;
        for (const auto& [k, v] : m)
            out.push_back(k);
        return out;
    }
    std::optional<core::WindowEnd> window_end(const Value& w, const std::string& path,
                                              const char* name) const {
        const Value* e = object(w, path, name);
        if (!e)
            return std::nullopt;
        const std::string p = at(path, name);
        return core::WindowEnd{time(*e, p, "time"), string_map(*e, p, "commits")};
    }
    core::CommitInfo commit(const Value& v, const std::string& path) const {
        core::CommitInfo c;
        str(v, path, "sha", c.sha);
        if (has(v, "time"))
            c.time = time(v, path, "time");
        str(v, path, "author", c.author);
        str(v, path, "subject", c.subject);
        return c;
    }
    core::HourlyResult hourly(const Value& v, const std::string& path) const {
        core::HourlyResult r;
        str(v, path, "message", r.message);
        str(v, path, "metric", r.metric);
        str(v, path, "unit", r.unit);
        r.failure_rates = exit_code_mode(v, path);
        each_object(v, path, "states",
                    [&](const Value& s, const std::string& p) { r.states.push_back(state(s, p)); });
        each_object(v, path, "commit_steps", [&](const Value& s, const std::string& p) {
            r.commit_steps.push_back(state(s, p));
        });
        if (const Value* w = object(v, path, "window")) {
            const std::string wp = at(path, "window");
            r.last_good = window_end(*w, wp, "last_good");
            r.first_bad = window_end(*w, wp, "first_bad");
            failures(*w, wp, r.good_runs, r.bad_runs);
            r.first_bad_log = failure_log(*w, wp);
        }
        r.changed_repos = strings(v, path, "changed");
        if (const Value* c = object(v, path, "candidates")) {
            const std::string cp = at(path, "candidates");
            for (auto it = c->MemberBegin(); it != c->MemberEnd(); ++it) {
                const std::string repo(it->name.GetString(), it->name.GetStringLength());
                const std::string rp = cp + "." + repo;
                if (!it->value.IsArray())
                    fail(rp, "an array");
                auto& out = r.candidates[repo];
                for (rapidjson::SizeType i = 0; i < it->value.Size(); ++i)
                    out.push_back(commit(element_object(it->value, i, rp), at(rp, i)));
            }
        }
        r.compare_urls = string_map(v, path, "compare_urls");
        if (const Value* c = object(v, path, "culprit")) {
            const std::string cp = at(path, "culprit");
            core::Culprit cu;
            str(*c, cp, "repo", cu.repo);
            cu.commit = commit(*c, cp);
            str(*c, cp, "note", cu.note);
            if (m_legacy) // older hand-written results name the culprit by sha only
                if (auto it = r.candidates.find(cu.repo); it != r.candidates.end())
                    for (const auto& cand : it->second)
                        if (cu.commit.subject.empty() && !cu.commit.sha.empty() &&
                            cand.sha.rfind(cu.commit.sha, 0) == 0)
                            cu.commit = cand;
            if (cu.commit.sha.empty())
                fail(at(cp, "sha"), "the culprit's commit");
            r.culprit = std::move(cu);
        }
        integer(v, path, "builds", r.spend.builds);
        integer(v, path, "runs", r.spend.runs);
        integer(v, path, "resumed_builds", r.spend.resumed_builds);
        integer(v, path, "resumed_runs", r.spend.resumed_runs);
        integer(v, path, "reused_values", r.spend.reused_values);
        integer(v, path, "avoided_runs", r.spend.avoided_runs);
        integer(v, path, "avoided_builds", r.spend.avoided_builds);
        integer(v, path, "restored_builds", r.spend.restored_builds);
        boolean(v, path, "budget_exhausted", r.budget_exhausted);
        if (const std::string c = str(v, path, "conclusion"); !c.empty()) {
            const auto parsed = core::parse_hourly_conclusion(c);
            if (!parsed)
                fail(at(path, "conclusion"), util::enum_choices(core::k_conclusion_names, "\""));
            r.conclusion = *parsed;
        } else if (m_legacy) {
            r.conclusion = r.culprit                    ? core::HourlyConclusion::culprit
                           : r.last_good && r.first_bad ? core::HourlyConclusion::window
                                                        : core::HourlyConclusion::inconclusive;
        }
        return r;
    }

    // ------------------------------------------------------------------ many series
    /// The "series" array of a many-series document (detect-series, investigate).
    std::vector<core::SeriesDetect> series(const Value& v, const std::string& path) const {
        std::vector<core::SeriesDetect> out;
        each_object(v, path, "series", [&](const Value& e, const std::string& p) {
            core::SeriesDetect s;
            s.result = detect(e, p);
            s.key = {s.result.benchmark, s.result.metric, s.result.testbed};
            s.notes = strings(e, p, "notes");
            out.push_back(std::move(s));
        });
        return out;
    }

    // ------------------------------------------------------------------ investigate
    core::Investigation investigation(const Value& v, const std::string& path) const {
        core::Investigation inv;
        if (const Value* d = object(v, path, "detect"))
            inv.detect = detect(*d, at(path, "detect"));
        if (has(v, "series"))
            inv.series = series(v, path);
        stage_list(v, path, "daily", inv.daily,
                   [&](const Value& e, const std::string& p) { return daily(e, p); });
        stage_list(v, path, "hourly", inv.hourly,
                   [&](const Value& e, const std::string& p) { return hourly(e, p); });
        if (const std::string s = str(v, path, "verdict"); !s.empty()) {
            const auto verdict = core::parse_verdict(s);
            if (!verdict)
                fail(at(path, "verdict"), util::enum_choices(core::k_verdict_names, "\""));
            inv.verdict = *verdict;
        } else {
            inv.verdict = inv.detect.verdict;
        }
        str(v, path, "reason", inv.reason);
        if (inv.reason.empty() && !has(v, "reason"))
            inv.reason = inv.detect.reason;
        if (has(v, "regressions") || !m_legacy)
            each_object(v, path, "regressions", [&](const Value& e, const std::string& p) {
                core::NarrowedRegression n;
                str(e, p, "series", n.series);
                integer(e, p, "daily", n.daily);
                if (n.daily >= inv.daily.size())
                    fail(at(p, "daily"), "the index of a daily result");
                str(e, p, "last_good", n.last_good);
                str(e, p, "first_bad", n.first_bad);
                if (!core::find_boundary(inv.daily[n.daily], n.last_good, n.first_bad))
                    fail(p, "the labels of a boundary of daily result " + std::to_string(n.daily));
                std::size_t h = 0;
                if (integer(e, p, "hourly", h)) {
                    if (h >= inv.hourly.size())
                        fail(at(p, "hourly"), "the index of an hourly result");
                    n.hourly = h;
                }
                inv.regressions.push_back(std::move(n));
            });
        else
            inv.regressions = core::default_regressions(inv);
        integer(v, path, "runs", inv.spend.runs);
        integer(v, path, "builds", inv.spend.builds);
        integer(v, path, "reused_values", inv.spend.reused_values);
        integer(v, path, "avoided_runs", inv.spend.avoided_runs);
        integer(v, path, "avoided_builds", inv.spend.avoided_builds);
        integer(v, path, "restored_builds", inv.spend.restored_builds);
        num(v, path, "elapsed_s", inv.spend.seconds);
        if (m_legacy) { // older results counted per stage only
            if (!has(v, "runs"))
                for (const auto& d : inv.daily)
                    inv.spend.runs += d.sweep.runs;
            for (const auto& h : inv.hourly) {
                if (!has(v, "runs"))
                    inv.spend.runs += h.spend.runs;
                if (!has(v, "builds"))
                    inv.spend.builds += h.spend.builds;
            }
            apply_top_level(v, path, inv);
        }
        inv.reproduce = strings(v, path, "reproduce");
        inv.repo_urls = string_map(v, path, "repos");
        inv.runner = string_map(v, path, "runner");
        return inv;
    }
    /// An older investigate result's top-level benchmark, metric, unit and direction apply to
    /// each stage that lacks them.
    void apply_top_level(const Value& v, const std::string& path, core::Investigation& inv) const {
        const std::string benchmark = str(v, path, "benchmark"), metric = str(v, path, "metric"),
                          unit = str(v, path, "unit");
        auto fill = [](std::string& field, const std::string& value) {
            if (field.empty())
                field = value;
        };
        fill(inv.detect.benchmark, benchmark);
        fill(inv.detect.metric, metric);
        fill(inv.detect.unit, unit);
        for (auto& d : inv.daily) {
            fill(d.benchmark, benchmark);
            fill(d.metric, metric);
            fill(d.unit, unit);
        }
        for (auto& h : inv.hourly) {
            fill(h.metric, metric);
            fill(h.unit, unit);
        }
    }
    template <class T, class F>
    void stage_list(const Value& v, const std::string& path, const char* name, std::vector<T>& out,
                    F&& read) const {
        const Value* x = member(v, name);
        if (!x)
            return;
        if (x->IsObject() && m_legacy) { // older results held the first one only
            out.push_back(read(*x, at(path, name)));
            return;
        }
        if (!x->IsArray())
            fail(at(path, name), m_legacy ? "an object or an array" : "an array");
        for (rapidjson::SizeType i = 0; i < x->Size(); ++i)
            out.push_back(read(element_object(*x, i, at(path, name)), at(at(path, name), i)));
    }

private:
    std::string m_source;
    bool m_legacy;
};

/// Which kind a document without "format_version" is, from its fields (as older versions read
/// them).
core::ResultKind legacy_kind(const Value& doc, const std::string& source) {
    auto has = [&](const char* k) { return doc.HasMember(k) && !doc[k].IsNull(); };
    if (has("daily_points") || has("hourly_states") || has("attributions"))
        throw_usage(source + ": this is the report model an older `perfsweep report --format json` "
                             "wrote, which cannot be read back; render the stage result it was "
                             "made from (detect, daily, hourly --json or result.json) instead");
    if (has("detect") || has("daily") || has("hourly"))
        return core::ResultKind::investigate;
    if (has("states") || has("window") || has("candidates") || has("conclusion"))
        return core::ResultKind::hourly;
    if (has("boundaries") || (has("points") && doc["points"].IsArray()) ||
        (has("stage") && doc["stage"].IsString() &&
         std::string(doc["stage"].GetString()) == "daily"))
        return has("change_points") ? core::ResultKind::detect : core::ResultKind::daily;
    if (has("change_points") || has("verdict"))
        return core::ResultKind::detect;
    throw_usage(source + ": at $: expected a result document with \"kind\" and "
                         "\"format_version\", or a stage result with 'change_points' (detect), "
                         "'points' (daily), 'states' (hourly) or 'detect'/'daily'/'hourly' "
                         "(investigate)");
}

} // namespace

std::optional<std::vector<core::SeriesDetect>> read_series_document(std::string_view text,
                                                                    const std::string& source) {
    rapidjson::Document doc;
    parse_exact(doc, text, source);
    if (!doc.IsObject() || !doc.HasMember("kind") || !doc["kind"].IsString() ||
        std::string_view(doc["kind"].GetString()) != k_series_kind)
        return std::nullopt;
    const auto& fv = doc.HasMember("format_version") ? doc["format_version"] : doc["kind"];
    if (!fv.IsInt64() || fv.GetInt64() < 2 || fv.GetInt64() > core::k_result_format_version)
        throw_usage(source + ": at $.format_version: expected an integer from 2 to " +
                    std::to_string(core::k_result_format_version));
    return Reader(source, false).series(doc, "$");
}

core::ResultDocument read_result_document(std::string_view text, const std::string& source) {
    rapidjson::Document doc;
    parse_exact(doc, text, source);
    if (!doc.IsObject())
        throw_usage(source + ": at $: expected a JSON object (a result document)");
    core::ResultKind kind;
    bool legacy = true;
    if (doc.HasMember("format_version")) {
        const auto& fv = doc["format_version"];
        if (!fv.IsInt64() || fv.GetInt64() < 2)
            throw_usage(source + ": at $.format_version: expected an integer of at least 2");
        if (fv.GetInt64() > core::k_result_format_version)
            throw_usage(source + ": at $.format_version: format " + std::to_string(fv.GetInt64()) +
                        " was written by a newer perfsweep; this "
                        "one reads up to format " +
                        std::to_string(core::k_result_format_version));
        legacy = false;
        const auto k = doc.HasMember("kind") && doc["kind"].IsString()
                           ? core::parse_result_kind(doc["kind"].GetString())
                           : std::nullopt;
        if (!k && doc.HasMember("kind") && doc["kind"].IsString() &&
            std::string_view(doc["kind"].GetString()) == k_series_kind)
            throw_usage(source + ": a many-series detect document (kind \"detect-series\", " +
                        "`detect --json` over several series) holds no single result; " +
                        "`perfsweep report --input` renders it, or run detect for one series");
        if (!k)
            throw_usage(source + ": at $.kind: expected " +
                        util::enum_choices(core::k_result_kind_names, "\""));
        kind = *k;
    } else {
        kind = legacy_kind(doc, source);
    }
    const Reader r(source, legacy);
    switch (kind) {
    case core::ResultKind::detect:
        return r.detect(doc, "$");
    case core::ResultKind::daily:
        return r.daily(doc, "$");
    case core::ResultKind::hourly:
        return r.hourly(doc, "$");
    case core::ResultKind::investigate:
        break;
    }
    return r.investigation(doc, "$");
}

} // namespace perfsweep::adapters
