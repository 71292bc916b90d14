#include "app/compare.hpp"

#include "app/detect.hpp"
#include "core/stats.hpp"
#include "util/error.hpp"
#include "util/exit_codes.hpp"

#include <algorithm>
#include <map>

namespace perfsweep::app {

namespace {

struct Side {
    std::unique_ptr<ports::BuildingRunner> runner;
    std::string name; ///< "base" or "head"
};

// The base levels of every head series from the history (history base).
void base_levels(const CompareRequest& request, ports::Adapters& adapters, CompareResult& out) {
    DetectRequest dr;
    dr.history = request.base_history;
    dr.direction = request.head.direction;
    const auto all = run_detect_all(dr, adapters);
    for (auto& s : out.series) {
        const core::SeriesDetect* found = nullptr;
        for (const auto& d : all.series)
            if (d.key.benchmark == s.key.benchmark && d.key.metric == s.key.metric &&
                (s.key.testbed.empty() || d.key.testbed == s.key.testbed))
                found = &d;
        if (!found || found->result.segments.empty())
            throw_usage("compare: --base-history " + request.base_history + " holds no level of " +
                        core::to_string(s.key) +
                        " (its series there: " + std::to_string(all.series.size()) +
                        "); record the base branch's points first, or compare with a base "
                        "checkout (--base-workdir)");
        s.base_level = found->result.segments.back().level;
        s.base_points = found->result.segments.back().points;
        s.estimate.noise = found->result.noise; // replaced by the head's at the first look
    }
}

CompareSeries& series_of(CompareResult& out, const core::Measurement& m) {
    const core::SeriesKey key = core::series_key(m);
    for (auto& s : out.series)
        if (s.key.metric == key.metric)
            return s;
    CompareSeries s;
    s.key = key;
    s.unit = m.unit;
    s.direction = m.direction;
    out.series.push_back(std::move(s));
    return out.series.back();
}

// One run of `side`; false when a series has no value (the comparison stops).
bool run_side(Side& side, std::size_t pair, CompareResult& out) {
    ports::PointRequest req;
    req.label = side.name + "-" + std::to_string(pair + 1);
    req.repeats = 1;
    const auto ms = side.runner->run_points({req});
    ++out.runs;
    bool ok = true;
    for (const auto& m : ms) {
        auto& s = series_of(out, m);
        if (m.status != core::Status::ok || m.values.empty()) {
            s.failed = true;
            s.verdict = core::CompareVerdict::inconclusive;
            s.reason = side.name + " run " + std::to_string(pair + 1) + " has no value of " +
                       m.metric + " (" + std::string(core::to_string(m.status)) + ": " + m.reason +
                       ")";
            ok = false;
            continue;
        }
        // A run that prints several values of a metric counts as their median (one per run).
        std::vector<double> v = m.values;
        std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
        (side.name == "base" ? s.base : s.head).push_back(v[v.size() / 2]);
    }
    return ok;
}

// Decide every series at a look; true when all are decided.
bool look_at_series(const CompareRequest& request, CompareResult& out, bool last) {
    const double a = core::look_alpha(request.options);
    bool all = true;
    for (auto& s : out.series) {
        if (s.failed)
            continue;
        core::CompareOptions o = request.options;
        o.direction = s.direction;
        s.estimate =
            request.base_history.empty()
                ? core::paired_estimate(s.base, s.head, a)
                : core::level_estimate(s.base_level, s.estimate.noise, s.base_points, s.head, a);
        s.verdict = core::decide(s.estimate, o, last);
        s.reason = core::describe(s.verdict, s.estimate, o);
        all = all && s.verdict != core::CompareVerdict::undecided;
    }
    return all;
}

} // namespace

CompareResult run_compare(const CompareRequest& request, ports::Adapters& adapters) {
    CompareResult out;
    out.options = request.options;
    if (!request.base && request.base_history.empty())
        throw_usage("compare: give the base: --base-workdir DIR (a checkout of the base) or "
                    "--base-test COMMAND, or --base-history H (its recorded level)");
    Side head{adapters.runners.make(request.head), "head"};
    std::optional<Side> base;
    if (request.base_history.empty()) {
        base = Side{adapters.runners.make(*request.base), "base"};
        out.base_source = "interleaved runs";
    } else {
        out.base_source = "history " + request.base_history;
    }
    const auto looks = core::look_schedule(request.options);
    for (std::size_t i = 0; i < static_cast<std::size_t>(looks.back()); ++i) {
        bool ok = true;
        if (!base) {
            ok = run_side(head, i, out);
            if (i == 0 && ok) // the series are known once the head ran
                base_levels(request, adapters, out);
        } else if (core::head_first(i)) {
            ok = run_side(head, i, out) && run_side(*base, i, out);
        } else {
            ok = run_side(*base, i, out) && run_side(head, i, out);
        }
        out.pairs = i + 1;
        if (!ok)
            break;
        const int n = static_cast<int>(i + 1);
        if (std::find(looks.begin(), looks.end(), n) != looks.end() &&
            look_at_series(request, out, n == looks.back()))
            break;
    }
    return out;
}

core::CompareVerdict worst_verdict(const CompareResult& r) {
    auto rank = [](const CompareSeries& s) {
        if (s.verdict == core::CompareVerdict::regression)
            return 4;
        if (s.failed || s.verdict == core::CompareVerdict::inconclusive ||
            s.verdict == core::CompareVerdict::undecided)
            return 3;
        return s.verdict == core::CompareVerdict::improvement ? 2 : 1;
    };
    const CompareSeries* worst = nullptr;
    for (const auto& s : r.series)
        if (!worst || rank(s) > rank(*worst))
            worst = &s;
    if (!worst)
        return core::CompareVerdict::inconclusive;
    return worst->failed ? core::CompareVerdict::inconclusive : worst->verdict;
}

int compare_exit_code(const CompareResult& r, bool report_only) {
    for (const auto& s : r.series)
        if (s.failed)
            return exit_inconclusive;
    if (r.series.empty())
        return exit_inconclusive;
    if (worst_verdict(r) == core::CompareVerdict::regression && !report_only)
        return exit_regression;
    return exit_ok;
}

report::CompareReport compare_report(const CompareResult& r) {
    report::CompareReport out;
    out.options = r.options;
    out.base_source = r.base_source;
    out.pairs = r.pairs;
    out.runs = r.runs;
    out.verdict = std::string(core::to_string(worst_verdict(r)));
    for (const auto& s : r.series) {
        report::CompareRow row;
        row.key = s.key;
        row.unit = s.unit;
        row.base = s.base.empty() ? s.base_level : core::median(s.base);
        row.head = core::median(s.head);
        row.base_runs = s.base.size();
        row.head_runs = s.head.size();
        row.estimate = s.estimate;
        row.verdict = s.verdict;
        row.reason = s.reason;
        row.failed = s.failed;
        out.rows.push_back(std::move(row));
    }
    return out;
}

std::map<std::string, std::string> compare_outputs(const CompareResult& r) {
    std::size_t regressions = 0;
    for (const auto& s : r.series)
        regressions += s.verdict == core::CompareVerdict::regression ? 1 : 0;
    return {{"verdict", std::string(core::to_string(worst_verdict(r)))},
            {"regressions", std::to_string(regressions)},
            {"series", std::to_string(r.series.size())},
            {"pairs", std::to_string(r.pairs)},
            {"runs", std::to_string(r.runs)}};
}

} // namespace perfsweep::app
