#include "app/daily.hpp"

#include "app/failure_log.hpp"
#include "app/journal_file.hpp"
#include "core/commit_probe.hpp"
#include "core/date_range.hpp"
#include "core/exit_code.hpp"
#include "core/series.hpp"
#include "util/crash_point.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <utility>

namespace perfsweep::app {

core::DateRange resolve_date_range(const std::string& from, const std::string& to) {
    // The rule lives in core (the issue-request parser applies the same one).
    const auto range = core::check_daily_range(from, to);
    switch (range.problem) {
    case core::DateRangeProblem::bad_from:
        throw_usage("--from '" + from + "': expected a calendar date YYYY-MM-DD");
    case core::DateRangeProblem::bad_to:
        throw_usage("--to '" + to + "': expected a calendar date YYYY-MM-DD");
    case core::DateRangeProblem::reversed:
        throw_usage("--to " + to + " is before --from " + from);
    case core::DateRangeProblem::too_long:
        throw_usage("--from " + from + " --to " + to + ": more than 10 years of dates (" +
                    std::to_string(range.dates) + "; at most " +
                    std::to_string(core::k_max_daily_dates) + ")");
    case core::DateRangeProblem::none:
        break;
    }
    return {*util::parse_day(from), *util::parse_day(to)};
}

namespace {

/// One run of the daily stage: each step a method, the pure planner (core::SweepPlan) deciding.
class DailySweep {
public:
    DailySweep(const DailyOptions& o, ports::Adapters& a, const DailyInstruments& with,
               const FocusHook& on_focus);
    /// 1. Resume: read back every committed run of an earlier, identical invocation.
    void resume();
    /// 2. The history: the benchmark's records (what the journal holds and the history lacks is
    /// appended first), to reuse its points and the noise around the range.
    void load_history();
    /// Reuse the history's points once this runner's fingerprint is known (once).
    void reuse_history();
    /// 3. Rounds: next/run/observe until nothing useful is left or a budget stops it.
    void run_rounds();
    /// The result; exit-code mode: each regression's first bad nightly's first failing log.
    core::DailyResult finish();

private:
    bool observe(const core::Measurement& m, long runs);
    bool time_spent() const;
    ports::PointRequest request(std::size_t i) const;
    void run_round(const std::vector<core::SweepRequest>& reqs);
    bool run_repeat(const std::vector<core::SweepRequest>& reqs, std::vector<bool>& stopped,
                    int rep, std::string& abort);
    void announce(bool hook = true);
    core::DailyResult so_far() const;
    bool run_stream();
    void take_result(core::Measurement& m, std::size_t i, const ports::PointRequest& req);
    void attach_commits(core::Measurement& m, std::size_t i, const ports::PointRequest& req,
                        bool first_ok);
    void commit(core::Measurement& m, std::size_t i, long runs);
    std::vector<std::vector<double>> noise_context();

    const DailyOptions& m_o;
    ports::Adapters& m_a;
    const DailyInstruments& m_with;
    const FocusHook& m_on_focus;
    const std::vector<std::string> m_labels;
    std::map<std::string, std::size_t> m_index;
    core::SweepPlan m_plan;
    core::DailyResult m_out;
    std::string m_fingerprint; // this runner's (known up front, else from the first measurement)
    bool m_have_fingerprint = false;
    JournalFile m_journal;
    std::vector<core::Measurement> m_resumed; // every committed run, in order
    std::vector<core::Measurement> m_hist;    // the history's ok records of the range's dates
    std::vector<core::Measurement> m_around;  // the benchmark's nights outside the range
    bool m_reused = false;
    double m_started = 0;
    std::string m_stop;
    std::set<std::pair<std::size_t, std::size_t>> m_announced; // boundaries printed so far
    bool m_focus_done = false;                                 // on_focus was called
};

core::SweepOptions sweep_options(const DailyOptions& o, const ports::PointRunner& runner) {
    auto s = o.sweep;
    s.workers = std::max(1, runner.workers());
    return s;
}

DailySweep::DailySweep(const DailyOptions& o, ports::Adapters& a, const DailyInstruments& with,
                       const FocusHook& on_focus)
    : m_o(o), m_a(a), m_with(with), m_on_focus(on_focus), m_labels(o.dates.labels()),
      m_plan(m_labels, sweep_options(o, with.runner)),
      m_journal(a.files, o.state_dir, "daily", o.identity) {
    for (std::size_t i = 0; i < m_labels.size(); ++i)
        m_index[m_labels[i]] = i;
    m_out.from = util::format_day(o.dates.from);
    m_out.to = util::format_day(o.dates.to);
    m_out.benchmark = o.benchmark;
    m_out.direction = o.sweep.direction;
    m_out.measurements.resize(m_labels.size());
    // This runner's fingerprint: from the runner itself when it knows it before running (then
    // history points are reused before the first round, so a date the history holds is never
    // measured again), else from the first measurement.
    if (const auto known = with.runner.runner_fingerprint(); !known.empty()) {
        m_fingerprint = core::fingerprint_key(known);
        m_have_fingerprint = true;
    }
}

bool DailySweep::observe(const core::Measurement& m, long runs) {
    const auto it = m_index.find(m.label);
    if (it == m_index.end())
        return false;
    m_plan.observe(it->second, m.status, m.values, m.reason, m.log, runs);
    m_out.measurements[it->second].push_back(m);
    if (m_out.metric.empty() && !m.metric.empty()) {
        m_out.metric = m.metric;
        m_out.unit = m.unit;
    }
    if (!m_have_fingerprint && !m.runner.empty()) {
        m_fingerprint = core::fingerprint_key(m.runner);
        m_have_fingerprint = true;
    }
    return true;
}

void DailySweep::resume() {
    const auto& path = m_journal.path();
    for (const auto& e : m_journal.resumed()) {
        const std::string at = path + ":" + std::to_string(e.line);
        if (e.kind != core::JournalEvent::Kind::run)
            throw_usage(at + ": a build record in a daily journal; expected run records");
        auto m = e.measurement;
        if (m.label != e.point)
            throw_usage(at + ": the run of '" + e.point + "' carries label '" + m.label + "'");
        if (!observe(m, e.runs))
            throw_usage(at + ": '" + e.point + "' is not a date of the sweep");
        m_out.resumed_runs += e.runs;
        m_resumed.push_back(std::move(m));
    }
    if (!m_resumed.empty())
        m_a.progress.line("resuming from " + path + ": " + std::to_string(m_resumed.size()) +
                          " finished measurements");
}

void DailySweep::load_history() {
    auto* history = m_with.history;
    if (!history || (m_o.rerun && m_resumed.empty()))
        return;
    auto load = history->load();
    m_out.warnings = load.warnings;
    // A kill between a run's commit to the state dir and its history append (or one that tore
    // the append) left the history without it: append what the state holds and the history
    // lacks, so no finished run is lost from the history either.
    if (!m_resumed.empty())
        if (const auto n = history->append_missing(m_resumed); n > 0)
            m_a.progress.line("appended " + std::to_string(n) + " committed runs missing from " +
                              history->describe());
    if (m_o.rerun)
        load.records.clear();
    const bool want_codes = m_o.sweep.comparison == core::ComparisonKind::pass_fail;
    // The sweep's series only (core::points_of_series: detect's grouping, so points stored
    // under the command line, the name of earlier versions, are reused too).
    for (auto& m : core::points_of_series(std::move(load.records), {m_o.benchmark, m_o.metric, ""}))
        if (m.status == core::Status::ok && !m.values.empty() &&
            m.exit_codes.empty() != want_codes) { // never mix metric and exit-code records
            if (m_index.count(m.label))
                m_hist.push_back(std::move(m));
            else if (!want_codes && util::parse_date(m.label) &&
                     (m.stage == core::Stage::daily || m.stage == core::Stage::record))
                m_around.push_back(std::move(m));
        }
}

// The noise the history shows around the range (this machine, the nearest nights on each side)
// is evidence too: a pair of dates with one run each is decided from the start. The same nights
// are the levels' evidence (set_level_context): a boundary next to the range's end is confirmed
// with them instead of measuring the history's nightlies again.
std::vector<std::vector<double>> DailySweep::noise_context() {
    std::map<std::string, std::vector<double>> before, after;
    for (const auto& m : m_around)
        if (core::fingerprint_key(m.runner) == m_fingerprint) {
            auto& v = (m.label < m_labels.front() ? before : after)[m.label];
            v.insert(v.end(), m.values.begin(), m.values.end());
        }
    constexpr std::size_t k_context_nights = 30;              // per side
    std::vector<std::vector<double>> near_before, near_after; // the levels, nearest first
    for (auto it = before.rbegin(); it != before.rend() && near_before.size() < k_context_nights;
         ++it)
        near_before.push_back(it->second);
    for (auto it = after.begin(); it != after.end() && near_after.size() < k_context_nights; ++it)
        near_after.push_back(it->second);
    m_plan.set_level_context(std::move(near_before), std::move(near_after));
    std::vector<std::vector<double>> context;
    std::size_t skip = before.size() > k_context_nights ? before.size() - k_context_nights : 0;
    for (auto& night : before)
        if (skip > 0)
            --skip;
        else
            context.push_back(night.second);
    std::size_t taken = 0;
    for (auto& night : after)
        if (taken++ < k_context_nights)
            context.push_back(night.second);
    return context;
}

void DailySweep::reuse_history() {
    if (m_reused || !m_have_fingerprint)
        return;
    m_reused = true;
    // Every matching record of a date (one per repeat) pooled into that date's values.
    std::map<std::size_t, std::vector<const core::Measurement*>> by_point;
    for (const auto& m : m_hist)
        if (core::fingerprint_key(m.runner) == m_fingerprint)
            by_point[m_index.at(m.label)].push_back(&m);
    if (auto context = noise_context(); !context.empty())
        m_plan.set_noise_context(std::move(context));
    long n = 0;
    for (const auto& [i, records] : by_point) {
        if (m_plan.point(i).state != core::StateStatus::untested)
            continue;
        std::vector<double> values;
        for (const auto* m : records) {
            values.insert(values.end(), m->values.begin(), m->values.end());
            m_out.measurements[i].push_back(*m);
        }
        m_plan.reuse(i, values, records.back()->log);
        ++n;
    }
    if (n > 0)
        m_a.progress.line("reusing " + std::to_string(n) + " dates from " +
                          m_with.history->describe());
}

bool DailySweep::time_spent() const {
    return m_o.max_time.count() > 0 &&
           m_a.clock.now() - m_started >= static_cast<double>(m_o.max_time.count());
}

ports::PointRequest DailySweep::request(std::size_t i) const {
    const auto& label = m_labels[i];
    ports::PointRequest pr;
    pr.label = label;
    pr.stage = core::Stage::daily;
    pr.repeats = 1;
    pr.first_repeat = static_cast<int>(m_out.measurements[i].size()) + 1;
    pr.values["date"] = label;
    pr.values["yyyy"] = label.substr(0, 4);
    pr.values["mm"] = label.substr(5, 2);
    pr.values["dd"] = label.substr(8, 2);
    return pr;
}

// Each repeat is its own runner call (one per worker in parallel), committed to the state
// directory as soon as it returns, so a kill loses at most the runs in flight.
void DailySweep::run_rounds() {
    m_started = m_a.clock.now();
    // Several GPUs (metric values): no round barrier, a free GPU gets the next useful point.
    if (m_with.runner.workers() > 1 && m_o.sweep.comparison == core::ComparisonKind::values) {
        while (run_stream()) {
        }
        announce();
        if (m_stop.empty() && m_plan.budget_exhausted())
            m_stop = "run budget spent (--max-runs)";
        return;
    }
    for (;;) {
        if (time_spent()) {
            m_stop = "time budget spent (--max-time)";
            return;
        }
        announce();
        const auto reqs = m_plan.next();
        if (reqs.empty()) {
            if (m_plan.budget_exhausted())
                m_stop = "run budget spent (--max-runs)";
            return;
        }
        run_round(reqs);
        reuse_history();
    }
}

// One stream of points over the GPUs: each repeat is its own runner call, committed as soon as it
// returns; a point's next repeat goes to the next free GPU. True when it stopped for the focus's
// hook (called here between two streams, so the hook has the machine to itself).
bool DailySweep::run_stream() {
    announce();
    const bool hook = !m_focus_done && m_on_focus && m_o.sweep.focus;
    struct Flight {
        core::SweepRequest q; // repeats = those not measured yet
        bool running = false;
    };
    std::vector<Flight> flights;
    auto next = [&]() -> std::optional<ports::PointRequest> {
        if (time_spent()) {
            m_stop = "time budget spent (--max-time)";
            return std::nullopt;
        }
        announce(false);
        if (hook && m_plan.focus_boundary())
            return std::nullopt; // let the points in flight finish, then the hook
        for (auto& f : flights)
            if (!f.running) {
                f.running = true;
                return request(f.q.index);
            }
        core::ProposalHints h;
        for (const auto& f : flights)
            h.in_flight.push_back(f.q);
        const auto q = m_plan.next_one(h);
        if (!q)
            return std::nullopt;
        flights.push_back({*q, true});
        return request(q->index);
    };
    auto done = [&](const ports::PointRequest& req, std::vector<core::Measurement> results) {
        const std::size_t i = m_index.at(req.label);
        const auto f = std::find_if(flights.begin(), flights.end(),
                                    [&](const Flight& x) { return x.q.index == i; });
        if (results.empty() || f == flights.end())
            return;
        take_result(results.front(), i, req);
        if (--f->q.repeats <= 0 || results.front().status != core::Status::ok)
            flights.erase(f);
        else
            f->running = false;
        reuse_history();
    };
    m_with.runner.run_stream(next, done);
    return hook && m_stop.empty() && m_plan.focus_boundary().has_value();
}

void DailySweep::take_result(core::Measurement& m, std::size_t i, const ports::PointRequest& req) {
    m.label = m_labels[i];
    m.stage = core::Stage::daily;
    if (m.benchmark.empty())
        m.benchmark = m_o.benchmark;
    attach_commits(m, i, req,
                   m.status == core::Status::ok &&
                       m_plan.point(i).state == core::StateStatus::untested);
    commit(m, i, m.status == core::Status::missing ? 0 : 1);
}

core::DailyResult DailySweep::so_far() const {
    core::DailyResult r = m_out;
    r.sweep = m_plan.result();
    return r;
}

// Each boundary as soon as it is decided; the focus's hook once (its time is not the sweep's:
// --max-time counts this stage only).
void DailySweep::announce(bool hook) {
    for (const auto& b : m_plan.decided_boundaries())
        if (m_announced.emplace(b.last_before, b.first_after).second)
            m_a.progress.line("boundary " + m_labels[b.last_before] + " → " +
                              m_labels[b.first_after] + ": " +
                              std::string(core::to_string(b.kind)) + " " +
                              util::format_fixed(100 * b.relative_change, 1) + " %");
    if (!hook || m_focus_done || !m_on_focus)
        return;
    if (const auto b = m_plan.focus_boundary()) {
        m_focus_done = true;
        const double before = m_a.clock.now();
        m_on_focus(so_far(), *b);
        m_started += m_a.clock.now() - before;
        m_a.progress.line("== daily: the rest of " + m_labels.front() + " → " + m_labels.back());
    }
}

void DailySweep::run_round(const std::vector<core::SweepRequest>& reqs) {
    std::vector<bool> stopped(reqs.size(), false);
    std::string abort; // exit-code mode: a status >= 128 stops the whole search
    for (int rep = 0; run_repeat(reqs, stopped, rep, abort); ++rep)
        if (!abort.empty())
            throw_infra("exit-code mode: " + abort +
                        "; statuses of 128 and above abort the search (git bisect run's "
                        "contract). The state is kept; fix the test and run again to resume");
}

// Repeat `rep` of every request still running; false when none is (or time is up).
bool DailySweep::run_repeat(const std::vector<core::SweepRequest>& reqs, std::vector<bool>& stopped,
                            int rep, std::string& abort) {
    std::vector<std::size_t> which; // positions in reqs still running this repeat
    for (std::size_t k = 0; k < reqs.size(); ++k)
        if (!stopped[k] && rep < reqs[k].repeats)
            which.push_back(k);
    if (which.empty() || (rep > 0 && time_spent()))
        return false;
    std::vector<ports::PointRequest> batch;
    for (auto k : which)
        batch.push_back(request(reqs[k].index));
    auto results = m_with.runner.run_points(batch);
    util::crash_point("daily.after_run"); // finished, not yet committed
    for (std::size_t j = 0; j < results.size() && j < which.size(); ++j) {
        const auto k = which[j];
        const auto i = reqs[k].index;
        auto& m = results[j];
        m.label = m_labels[i];
        if (const auto code = core::abort_code(m);
            code && m_o.sweep.comparison == core::ComparisonKind::pass_fail) {
            // Not committed: a resumed sweep runs this point again.
            if (abort.empty())
                abort = m.label + " exited " + std::to_string(*code) + " (log " + m.log + ")";
            stopped[k] = true;
            continue;
        }
        take_result(m, i, batch[j]);
        if (m.status != core::Status::ok)
            stopped[k] = true;
    }
    return true;
}

// The build's commits: the commits probe on a date's first ok run (not a benchmark run: no
// metric, no run line, not counted), else the image labels the environment probe read, else
// what an earlier repeat of the date found.
void DailySweep::attach_commits(core::Measurement& m, std::size_t i, const ports::PointRequest& req,
                                bool first_ok) {
    if (m_with.probe && first_ok) {
        const auto pr = m_with.probe->run_command(req, "commits-probe");
        if (!pr.ok)
            m_a.progress.line(m.label + "  warning: the commits probe failed (" + pr.reason + ")" +
                              (pr.log.empty() ? "" : "; log " + pr.log));
        const auto found = core::parse_commit_probe(pr.output);
        for (const auto& [repo, sha] : found.commits)
            m.commits[repo] = sha;
        for (const auto& [repo, t] : found.commit_times)
            m.commit_times[repo] = t;
    }
    if (m.commits.empty() && !m_o.commit_labels.empty() && first_ok) {
        std::vector<std::string> not_sha;
        m.commits = core::commits_from_labels(m.environment, m_o.commit_labels, not_sha).commits;
        for (const auto& l : not_sha) {
            m_out.warnings.push_back(m.label + ": image label '" + l +
                                     "' is not a commit SHA (7-40 lowercase hex digits); "
                                     "ignored");
            m_a.progress.line("warning: " + m_out.warnings.back());
        }
    }
    for (const auto& earlier : m_out.measurements[i])
        if (m.commits.empty() && !earlier.commits.empty()) {
            m.commits = earlier.commits;
            m.commit_times = earlier.commit_times;
        }
}

// Commit the run before anything else happens (the journal, replaced atomically), then the
// history, then the planner.
void DailySweep::commit(core::Measurement& m, std::size_t i, long runs) {
    core::JournalEvent e;
    e.point = m.label;
    e.runs = runs;
    e.measurement = m;
    m_journal.append(core::journal_record(e));
    util::crash_point("daily.after_state_write"); // committed, not yet in the history
    if (m_with.history)
        m_with.history->append({m});
    observe(m, runs);
    std::string line = m.label + "  " + std::string(core::to_string(m.status));
    if (m.status == core::Status::ok)
        line += "  " + std::to_string(m_plan.point(i).values.size()) + " values";
    else
        line += "  (" + m.reason + ")";
    m_a.progress.line(line);
}

core::DailyResult DailySweep::finish() {
    m_out.sweep = m_plan.result(m_stop);
    if (m_o.sweep.comparison == core::ComparisonKind::pass_fail)
        for (const auto& b : m_out.sweep.boundaries)
            if (b.kind == core::ChangeKind::regression && b.first_after < m_out.measurements.size())
                if (auto f = first_failure_log(m_out.sweep.points[b.first_after].label,
                                               m_out.measurements[b.first_after], m_a.files,
                                               m_o.secrets))
                    m_out.failure_logs.push_back(std::move(*f));
    return std::move(m_out);
}

} // namespace

core::DailyResult run_daily(const DailyOptions& options, ports::Adapters& adapters,
                            const DailyInstruments& with, const FocusHook& on_focus) {
    const auto held = hold_state(adapters.files, options.state_dir); // one sweep per --state
    DailySweep sweep(options, adapters, with, on_focus);
    sweep.resume();
    sweep.load_history();
    sweep.reuse_history();
    sweep.run_rounds();
    return sweep.finish();
}

} // namespace perfsweep::app
