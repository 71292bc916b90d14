#include "app/fanout.hpp"

#include "app/daily.hpp"
#include "core/command_template.hpp"
#include "util/error.hpp"
#include "util/json_writer.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace perfsweep::app {

namespace {

std::string record_key(const core::Measurement& m) {
    return m.label + '\x1f' + m.benchmark + '\x1f' + m.timestamp;
}

} // namespace

std::string matrix_json(const std::vector<MatrixEntry>& entries) {
    util::JsonWriter w(false);
    w.begin_object().key("include").begin_array();
    for (const auto& e : entries) {
        w.begin_object();
        for (const auto& [k, v] : e)
            w.member(k, v);
        w.end_object();
    }
    w.end_array().end_object();
    return w.text();
}

std::vector<std::size_t> spread_evenly(std::size_t n, std::size_t count) {
    std::vector<std::size_t> out;
    if (n == 0 || count == 0)
        return out;
    if (count >= n || n == 1) {
        for (std::size_t i = 0; i < n; ++i)
            out.push_back(i);
        return out;
    }
    if (count == 1)
        return {0};
    for (std::size_t k = 0; k < count; ++k) {
        // round(k * (n-1) / (count-1)) in integers; strictly increasing because count <= n.
        const std::size_t i = (2 * k * (n - 1) + (count - 1)) / (2 * (count - 1));
        if (out.empty() || out.back() != i)
            out.push_back(i);
    }
    return out;
}

MatrixPlan plan_daily_matrix(const PlanOptions& options, ports::HistoryStore* history) {
    const auto dates = options.dates.labels();
    if (options.max_points < 0 || options.max_points == 1)
        throw_usage("--max-points " + std::to_string(options.max_points) +
                    ": expected 0 (every date) or 2 or more (both ends are included)");
    if (options.exclude_measured && !history)
        throw_usage("--exclude-measured needs --history to know which dates are measured");
    MatrixPlan plan;
    plan.candidates = dates.size();

    std::vector<std::size_t> chosen;
    if (options.max_points > 0) {
        chosen = spread_evenly(dates.size(), static_cast<std::size_t>(options.max_points));
        if (chosen.size() < dates.size())
            plan.notes.push_back("coarse round: " + std::to_string(chosen.size()) + " of " +
                                 std::to_string(dates.size()) +
                                 " dates spread evenly (--max-points " +
                                 std::to_string(options.max_points) +
                                 "); run `perfsweep merge` to see which intervals to refine");
    } else {
        for (std::size_t i = 0; i < dates.size(); ++i)
            chosen.push_back(i);
    }

    std::set<std::string> measured;
    if (options.exclude_measured) {
        const auto load = history->load();
        for (const auto& w : load.warnings)
            plan.notes.push_back(w);
        for (const auto& m : load.records)
            if (m.status == core::Status::ok && !m.values.empty() &&
                (options.benchmark.empty() || m.benchmark == options.benchmark))
                measured.insert(m.label);
    }

    std::size_t excluded = 0;
    for (const auto i : chosen) {
        const auto& date = dates[i];
        if (measured.count(date)) {
            ++excluded;
            continue;
        }
        MatrixEntry e{{"label", date}, {"date", date}};
        if (!options.image.empty())
            e.emplace_back("image", core::expand_image(options.image, date));
        plan.entries.push_back(std::move(e));
    }
    if (options.exclude_measured)
        plan.notes.push_back(std::to_string(excluded) + " date(s) already measured ok in " +
                             history->describe() + " left out");
    if (plan.entries.size() > k_max_matrix_entries)
        throw_usage(
            "--from " + util::format_day(options.dates.from) + " --to " +
            util::format_day(options.dates.to) + ": " + std::to_string(plan.entries.size()) +
            " points exceed GitHub Actions' limit of " + std::to_string(k_max_matrix_entries) +
            " matrix entries; use --max-points N (N <= 256) or a shorter range");
    return plan;
}

namespace {

/// One record of a merge input, and where it came from.
struct Read {
    core::Measurement m;
    std::string where;
};

// 1. Read and check every record: dated labels, one benchmark and metric.
std::vector<Read> read_inputs(const std::vector<MergeInput>& inputs, const MergeOptions& options,
                              MergeResult& out) {
    std::vector<Read> reads;
    for (const auto& in : inputs)
        for (auto m : in.records) {
            ++out.records;
            if (!util::parse_date(m.label))
                throw_usage(in.name + ": label '" + m.label +
                            "' is not a date YYYY-MM-DD (run each matrix point with --date and "
                            "--label set to the matrix date)");
            if (!options.benchmark.empty() && m.benchmark != options.benchmark)
                continue;
            reads.push_back({std::move(m), in.name});
        }
    if (reads.empty())
        throw_usage("merge: no record of benchmark '" + options.benchmark + "' in the inputs");
    const auto& first = reads.front();
    for (const auto& r : reads)
        if (r.m.benchmark != first.m.benchmark || r.m.metric != first.m.metric)
            throw_usage(r.where + ": benchmark '" + r.m.benchmark + "' metric '" + r.m.metric +
                        "' differs from " + first.where + " (benchmark '" + first.m.benchmark +
                        "' metric '" + first.m.metric +
                        "'); merge one benchmark at a time (--benchmark NAME)");
    return reads;
}

// 2. Append what the history lacks (idempotent: same label+benchmark+timestamp is skipped);
//    returns the history's dated records of the same benchmark and metric.
std::vector<core::Measurement> append_to_history(const std::vector<Read>& reads,
                                                 ports::HistoryStore& history, MergeResult& out) {
    auto load = history.load();
    out.daily.warnings = load.warnings;
    std::set<std::string> present;
    for (const auto& m : load.records)
        present.insert(record_key(m));
    std::vector<core::Measurement> fresh;
    for (const auto& r : reads) {
        if (present.insert(record_key(r.m)).second)
            fresh.push_back(r.m);
        else
            ++out.already;
    }
    if (!fresh.empty())
        history.append(fresh);
    out.appended = fresh.size();
    const auto& first = reads.front().m;
    std::vector<core::Measurement> hist;
    for (auto& m : load.records)
        if (m.benchmark == first.benchmark && m.metric == first.metric && util::parse_date(m.label))
            hist.push_back(std::move(m));
    return hist;
}

// The planner's options for the merged points: the inputs' direction and repeats, every useful
// point proposed at once, nothing the evidence does not ask for.
core::SweepOptions merge_sweep(const std::vector<Read>& reads, const MergeOptions& options,
                               std::size_t dates) {
    auto sweep = options.sweep;
    sweep.direction = reads.front().m.direction;
    std::size_t max_values = 1;
    for (const auto& r : reads)
        max_values = std::max(max_values, r.m.values.size());
    sweep.repeats = static_cast<int>(std::max<std::size_t>(1, max_values));
    sweep.max_repeats = std::max(sweep.max_repeats, sweep.repeats);
    sweep.workers = static_cast<int>(dates);
    sweep.speculate = false;
    return sweep;
}

/// The merged points fed to the planner.
struct MergedPlan {
    std::vector<std::string> labels;
    std::map<std::string, std::size_t> index;
    core::SweepPlan plan;
    std::set<std::string> fingerprints; ///< of the ok records
};

// 3. The inputs' records into the plan: ok records first, so a date with a good and a failed
//    run keeps its values; the same record uploaded twice counts once.
void observe_reads(std::vector<Read>& reads, MergedPlan& mp, core::DailyResult& d) {
    std::stable_sort(reads.begin(), reads.end(), [](const Read& a, const Read& b) {
        return std::tie(a.m.label, a.m.timestamp) < std::tie(b.m.label, b.m.timestamp);
    });
    std::set<std::string> seen;
    std::size_t outside = 0;
    for (int pass = 0; pass < 2; ++pass)
        for (const auto& r : reads) {
            const bool ok = r.m.status == core::Status::ok && !r.m.values.empty();
            if (ok != (pass == 0))
                continue;
            const auto it = mp.index.find(r.m.label);
            if (it == mp.index.end()) {
                ++outside;
                continue;
            }
            if (!seen.insert(record_key(r.m)).second)
                continue;
            const long runs = ok ? static_cast<long>(r.m.values.size())
                              : r.m.status == core::Status::missing ? 0
                                                                    : 1;
            mp.plan.observe(it->second, r.m.status, r.m.values, r.m.reason, r.m.log, runs);
            d.measurements[it->second].push_back(r.m);
            if (ok)
                mp.fingerprints.insert(core::fingerprint_key(r.m.runner));
        }
    if (outside > 0)
        d.warnings.push_back(std::to_string(outside) + " record(s) outside " + d.from + " .. " +
                             d.to + " ignored");
}

// 4. Dates no input covers but the history measured ok (e.g. left out by plan
//    --exclude-measured).
std::size_t reuse_history(const std::vector<core::Measurement>& hist, MergedPlan& mp,
                          core::DailyResult& d) {
    std::map<std::size_t, std::vector<const core::Measurement*>> by_point;
    for (const auto& m : hist) {
        const auto it = mp.index.find(m.label);
        if (it != mp.index.end() && m.status == core::Status::ok && !m.values.empty() &&
            mp.plan.point(it->second).state == core::StateStatus::untested)
            by_point[it->second].push_back(&m);
    }
    for (const auto& [i, records] : by_point) {
        std::vector<double> values;
        for (const auto* m : records) {
            values.insert(values.end(), m->values.begin(), m->values.end());
            d.measurements[i].push_back(*m);
            mp.fingerprints.insert(core::fingerprint_key(m->runner));
        }
        mp.plan.reuse(i, values, records.back()->log);
    }
    return by_point.size();
}

} // namespace

MergeResult merge_points(const std::vector<MergeInput>& inputs, const MergeOptions& options,
                         ports::HistoryStore* history) {
    if (inputs.empty())
        throw_usage("merge: no input files (give result files or a directory holding them)");
    MergeResult out;
    auto reads = read_inputs(inputs, options, out);
    const auto hist =
        history ? append_to_history(reads, *history, out) : std::vector<core::Measurement>{};
    // The range: the options', else the merged dates'.
    std::string lo = reads.front().m.label, hi = lo;
    for (const auto& r : reads) {
        lo = std::min(lo, r.m.label);
        hi = std::max(hi, r.m.label);
    }
    const auto labels = resolve_date_range(options.from.empty() ? lo : options.from,
                                           options.to.empty() ? hi : options.to)
                            .labels();
    MergedPlan mp{
        labels, {}, core::SweepPlan(labels, merge_sweep(reads, options, labels.size())), {}};
    for (std::size_t i = 0; i < labels.size(); ++i)
        mp.index[labels[i]] = i;
    const auto& first = reads.front().m;
    auto& d = out.daily;
    d.from = labels.front();
    d.to = labels.back();
    d.image = first.image;
    d.benchmark = first.benchmark;
    d.metric = first.metric;
    d.unit = first.unit;
    d.direction = first.direction;
    d.measurements.resize(labels.size());
    observe_reads(reads, mp, d);
    out.from_history = reuse_history(hist, mp, d);
    if (mp.fingerprints.size() > 1)
        d.warnings.push_back("the merged points come from " +
                             std::to_string(mp.fingerprints.size()) +
                             " different runner fingerprints (GPU, driver, host); levels may "
                             "differ by machine, not by build");
    for (const auto& req : mp.plan.next())
        out.next.push_back(labels[req.index]);
    d.sweep = mp.plan.result(out.next.empty() ? std::string{}
                                              : "merged matrix points; dates still to measure: " +
                                                    util::join(out.next, ", "));
    return out;
}

} // namespace perfsweep::app
