#include "app/daily.hpp"

#include "app/failure_log.hpp"
#include "app/journal_file.hpp"
#include "core/commit_probe.hpp"
#include "core/date_range.hpp"
#include "core/exit_code.hpp"
#include "util/crash_point.hpp"
#include "util/error.hpp"
#include "util/time.hpp"

#include <cstdio>
#include <map>
#include <optional>
#include <set>

namespace perfsweep::app {

namespace {

std::string date_part(const std::string& label, int from, int len) {
    return label.substr(static_cast<std::size_t>(from), static_cast<std::size_t>(len));
}

} // namespace

std::vector<std::string> daily_candidates(const std::string& from, const std::string& to) {
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
    const auto f = *util::parse_date(from);
    std::vector<std::string> out;
    for (std::int64_t i = 0; i < range.dates; ++i)
        out.push_back(util::format_date(util::add_days(f, i)));
    return out;
}

core::DailyResult run_daily(const DailyOptions& options, ports::Adapters& adapters,
                            const Instruments& with) {
    if (!with.runner)
        throw_infra("daily: no benchmark runner was opened");
    const auto held = hold_state(adapters.files, options.state_dir); // one sweep per --state
    ports::PointRunner& runner = *with.runner;
    ports::CommandRunner* probe = with.probe;
    ports::HistoryStore* history = with.history;
    ports::Files& files = adapters.files;
    ports::Clock& clock = adapters.clock;
    ports::Progress& progress = adapters.progress;
    const auto labels = daily_candidates(options.from, options.to);
    std::map<std::string, std::size_t> index;
    for (std::size_t i = 0; i < labels.size(); ++i)
        index[labels[i]] = i;
    auto sweep_opts = options.sweep;
    sweep_opts.workers = std::max(1, runner.workers());
    core::SweepPlan plan(labels, sweep_opts);
    core::DailyResult out;
    out.from = options.from;
    out.to = options.to;
    out.benchmark = options.benchmark;
    out.direction = options.sweep.direction;
    out.measurements.resize(labels.size());
    // This runner's fingerprint: from the runner itself when it knows it before running (then
    // history points are reused before the first round, so a date the history holds is never
    // measured again), else from the first measurement.
    std::string fingerprint;
    bool have_fingerprint = false;
    if (const auto known = runner.runner_fingerprint(); !known.empty()) {
        fingerprint = core::fingerprint_key(known);
        have_fingerprint = true;
    }

    auto observe = [&](const core::Measurement& m, long runs) {
        const auto it = index.find(m.label);
        if (it == index.end())
            return false;
        plan.observe(it->second, m.status, m.values, m.reason, m.log, runs);
        out.measurements[it->second].push_back(m);
        if (out.metric.empty() && !m.metric.empty()) {
            out.metric = m.metric;
            out.unit = m.unit;
        }
        if (!have_fingerprint && !m.runner.empty()) {
            fingerprint = core::fingerprint_key(m.runner);
            have_fingerprint = true;
        }
        return true;
    };

    // 1. Resume: read back every committed run of an earlier, identical invocation.
    JournalFile journal(&files, options.state_dir, "daily", options.identity);
    std::vector<core::Measurement> resumed; // every committed run, in order
    for (const auto& e : journal.resumed()) {
        if (e.kind != core::JournalEvent::Kind::run)
            throw_usage(journal.path() + ":" + std::to_string(e.line) +
                        ": a build record in a daily journal; expected run records");
        auto m = e.measurement;
        if (m.label != e.point)
            throw_usage(journal.path() + ":" + std::to_string(e.line) + ": the run of '" + e.point +
                        "' carries label '" + m.label + "'");
        if (!observe(m, e.runs))
            throw_usage(journal.path() + ":" + std::to_string(e.line) + ": '" + e.point +
                        "' is not a date of the sweep");
        out.resumed_runs += e.runs;
        resumed.push_back(std::move(m));
    }
    if (!resumed.empty())
        progress.line("resuming from " + journal.path() + ": " + std::to_string(resumed.size()) +
                      " finished measurements");

    // 2. History reuse (same benchmark, same runner fingerprint, status ok).
    std::vector<core::Measurement> hist;
    std::vector<core::Measurement> around; // the benchmark's nights outside the range
    if (history && (!options.rerun || !resumed.empty())) {
        auto load = history->load();
        out.warnings = load.warnings;
        // A kill between a run's commit to the state dir and its history append (or one that
        // tore the append) left the history without it: append what the state holds and the
        // history lacks, so no finished run is lost from the history either.
        if (!resumed.empty()) {
            if (const auto n = history->append_missing(resumed); n > 0)
                progress.line("appended " + std::to_string(n) + " committed runs missing from " +
                              history->describe());
        }
        if (options.rerun)
            load.records.clear();
        const bool want_codes = options.sweep.comparison == core::ComparisonKind::pass_fail;
        for (auto& m : load.records)
            if (m.status == core::Status::ok && !m.values.empty() &&
                m.benchmark == options.benchmark &&
                m.exit_codes.empty() != want_codes) { // never mix metric and exit-code records
                if (index.count(m.label))
                    hist.push_back(std::move(m));
                else if (!want_codes && util::parse_date(m.label) &&
                         (m.stage == core::Stage::daily || m.stage == core::Stage::record))
                    around.push_back(std::move(m));
            }
    }
    bool reused = false;
    auto reuse_history = [&] {
        if (reused || !have_fingerprint)
            return;
        reused = true;
        // Every matching record of a date (one per repeat) pooled into that date's values.
        std::map<std::size_t, std::vector<const core::Measurement*>> by_point;
        for (const auto& m : hist)
            if (core::fingerprint_key(m.runner) == fingerprint)
                by_point[index.at(m.label)].push_back(&m);
        // The noise the history shows around the range (this machine, the nearest nights on each
        // side) is evidence too: a pair of dates with one run each is decided from the start.
        std::map<std::string, std::vector<double>> before, after;
        for (const auto& m : around)
            if (core::fingerprint_key(m.runner) == fingerprint) {
                auto& side = m.label < labels.front() ? before : after;
                auto& v = side[m.label];
                v.insert(v.end(), m.values.begin(), m.values.end());
            }
        constexpr std::size_t k_context_nights = 30; // per side
        std::vector<std::vector<double>> context;
        std::size_t skip = before.size() > k_context_nights ? before.size() - k_context_nights : 0;
        for (auto& night : before)
            if (skip > 0)
                --skip;
            else
                context.push_back(std::move(night.second));
        std::size_t taken = 0;
        for (auto& night : after)
            if (taken++ < k_context_nights)
                context.push_back(std::move(night.second));
        if (!context.empty())
            plan.set_noise_context(std::move(context));
        long n = 0;
        for (const auto& [i, records] : by_point) {
            if (plan.point(i).state != core::PointState::untested)
                continue;
            std::vector<double> values;
            for (const auto* m : records) {
                values.insert(values.end(), m->values.begin(), m->values.end());
                out.measurements[i].push_back(*m);
            }
            plan.reuse(i, values, records.back()->log);
            ++n;
        }
        if (n > 0)
            progress.line("reusing " + std::to_string(n) + " dates from " + history->describe());
    };
    reuse_history();

    // 3. Rounds. Each repeat is its own runner call (one per worker in parallel), committed to
    //    the state directory as soon as it returns, so a kill loses at most the runs in flight.
    const double started = clock.now();
    std::string stop;
    auto time_spent = [&] {
        return options.max_time_s > 0 && clock.now() - started >= options.max_time_s;
    };
    auto to_request = [&](std::size_t i) {
        ports::PointRequest pr;
        pr.label = labels[i];
        pr.stage = core::Stage::daily;
        pr.repeats = 1;
        pr.first_repeat = static_cast<int>(out.measurements[i].size()) + 1;
        pr.values["date"] = labels[i];
        pr.values["yyyy"] = date_part(labels[i], 0, 4);
        pr.values["mm"] = date_part(labels[i], 5, 2);
        pr.values["dd"] = date_part(labels[i], 8, 2);
        return pr;
    };
    for (;;) {
        if (time_spent()) {
            stop = "time budget spent (--max-time)";
            break;
        }
        const auto reqs = plan.next();
        if (reqs.empty()) {
            if (plan.budget_exhausted())
                stop = "run budget spent (--max-runs)";
            break;
        }
        std::vector<bool> stopped(reqs.size(), false);
        std::string abort; // exit-code mode: a status >= 128 stops the whole search
        for (int rep = 0;; ++rep) {
            std::vector<std::size_t> which; // positions in reqs still running this repeat
            for (std::size_t k = 0; k < reqs.size(); ++k)
                if (!stopped[k] && rep < reqs[k].repeats)
                    which.push_back(k);
            if (which.empty() || (rep > 0 && time_spent()))
                break;
            std::vector<ports::PointRequest> batch;
            for (auto k : which)
                batch.push_back(to_request(reqs[k].index));
            auto results = runner.run_points(batch);
            util::crash_point("daily.after_run"); // finished, not yet committed
            for (std::size_t j = 0; j < results.size() && j < which.size(); ++j) {
                const auto k = which[j];
                const auto i = reqs[k].index;
                auto& m = results[j];
                m.label = labels[i];
                m.stage = core::Stage::daily;
                if (m.benchmark.empty())
                    m.benchmark = options.benchmark;
                const bool first_ok = m.status == core::Status::ok &&
                                      plan.point(i).state == core::PointState::untested;
                if (probe && first_ok) {
                    // Not a benchmark run: no metric, no run line, not counted.
                    const auto pr = probe->run_command(batch[j], "commits-probe");
                    if (!pr.ok)
                        progress.line(m.label + "  warning: the commits probe failed (" +
                                      pr.reason + ")" + (pr.log.empty() ? "" : "; log " + pr.log));
                    const auto found = core::parse_commit_probe(pr.output);
                    for (const auto& [repo, sha] : found.commits)
                        m.commits[repo] = sha;
                    for (const auto& [repo, t] : found.commit_times)
                        m.commit_times[repo] = t;
                }
                // Image labels (read by the environment probe without pulling) name the commits
                // when no probe did.
                if (m.commits.empty() && !options.commit_labels.empty() && first_ok) {
                    std::vector<std::string> not_sha;
                    m.commits =
                        core::commits_from_labels(m.environment, options.commit_labels, not_sha)
                            .commits;
                    for (const auto& l : not_sha) {
                        out.warnings.push_back(m.label + ": image label '" + l +
                                               "' is not a commit SHA (7-40 lowercase hex "
                                               "digits); ignored");
                        progress.line("warning: " + out.warnings.back());
                    }
                }
                // Later repeats carry the build's commits found by the probe on the first.
                for (const auto& earlier : out.measurements[i])
                    if (m.commits.empty() && !earlier.commits.empty()) {
                        m.commits = earlier.commits;
                        m.commit_times = earlier.commit_times;
                    }
                if (const auto code = core::abort_code(m);
                    code && options.sweep.comparison == core::ComparisonKind::pass_fail) {
                    // Not committed: a resumed sweep runs this point again.
                    if (abort.empty())
                        abort =
                            m.label + " exited " + std::to_string(*code) + " (log " + m.log + ")";
                    stopped[k] = true;
                    continue;
                }
                const long runs = m.status == core::Status::missing ? 0 : 1;
                // Commit the run before anything else happens (the journal, replaced atomically).
                core::JournalEvent e;
                e.point = m.label;
                e.runs = runs;
                e.measurement = m;
                journal.append(core::journal_record(e));
                util::crash_point("daily.after_state_write"); // committed, not yet in the history
                if (history)
                    history->append({m});
                observe(m, runs);
                if (m.status != core::Status::ok)
                    stopped[k] = true;
                std::string line = m.label + "  " + std::string(core::to_string(m.status));
                if (m.status == core::Status::ok)
                    line += "  " + std::to_string(plan.point(i).values.size()) + " values";
                else
                    line += "  (" + m.reason + ")";
                progress.line(line);
            }
            if (!abort.empty())
                throw_infra("exit-code mode: " + abort +
                            "; statuses of 128 and above abort the search (git bisect run's "
                            "contract). The state is kept; fix the test and run again to resume");
        }
        reuse_history();
    }
    out.sweep = plan.result(stop);
    // Exit-code mode: each regression's first bad nightly carries its first failing run's log.
    if (options.sweep.comparison == core::ComparisonKind::pass_fail)
        for (const auto& b : out.sweep.boundaries)
            if (b.kind == core::ChangeKind::regression && b.first_after < out.measurements.size())
                if (auto f =
                        first_failure_log(out.sweep.points[b.first_after].label,
                                          out.measurements[b.first_after], files, options.secrets))
                    out.failure_logs.push_back(std::move(*f));
    return out;
}

} // namespace perfsweep::app
