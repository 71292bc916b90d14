#include "app/hourly.hpp"

#include "app/failure_log.hpp"
#include "app/journal_file.hpp"
#include "core/commit_text.hpp"
#include "core/exit_code.hpp"
#include "core/source_plan.hpp"
#include "core/stats.hpp"
#include "core/sweep_plan.hpp"
#include "util/crash_point.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>

namespace perfsweep::app {

namespace {

/// The side effects the stage uses (builder and runner may be null with plan).
struct HourlyPorts {
    ports::SourceRepos* repos = nullptr;
    ports::Builder* builder = nullptr;
    ports::PointRunner* runner = nullptr;
    ports::Files* files = nullptr;
    ports::Clock* clock = nullptr;
    ports::Progress* progress = nullptr;
};

using Commits = std::map<std::string, std::string>;
using Times = std::map<std::string, util::UnixSeconds>;

constexpr double k_alpha = 0.01;

std::string key_of(const Commits& c) {
    std::string k;
    for (const auto& [name, sha] : c)
        k += (k.empty() ? "" : ",") + name + "=" + sha;
    return k;
}

std::string one_line(std::string s) {
    for (auto& ch : s)
        if (ch == '\t' || ch == '\n' || ch == '\r')
            ch = ' ';
    return s;
}

std::string describe(const Commits& c) {
    return core::format_commits(c);
}

/// A state the search can test.
struct Point {
    util::UnixSeconds time = 0;
    Commits commits;
    Times times;
};

/// What measuring a state gave.
struct Eval {
    std::string status; ///< ok | build_failed | test_failed | budget
    std::vector<double> values;
    std::string reason;
};

/// The status of a window end: its level when it measured, else why not (a budget stop leaves it
/// untested).
core::StateStatus end_status(const Eval& ev, core::StateStatus level) {
    if (ev.status == "ok")
        return level;
    if (ev.status == "build_failed")
        return core::StateStatus::build_failed;
    if (ev.status == "test_failed")
        return core::StateStatus::test_failed;
    return core::StateStatus::untested;
}

/// The I/O side of the source stages: checks the repos out, builds, runs, records every finished
/// build and run in the journal and the book (core/source_plan), and drives the pure planner.
class Engine {
public:
    Engine(const HourlyOptions& o, HourlyPorts& p,
           std::vector<std::unique_ptr<ports::SourceRepo>>& repos, core::HourlyResult& r)
        : m_opt(o), m_ports(p), m_repos(repos), m_result(r),
          m_journal(p.files, o.state_dir, "hourly", o.settings_key) {
        m_start = m_ports.clock ? m_ports.clock->now() : 0;
        for (const auto& e : m_journal.resumed())
            m_book.apply(e, true);
        // The build output is the last finished build's (also across a kill: the journal's
        // building/build records), whatever HEAD says.
        m_built_key = m_book.built();
        if (!m_journal.resumed().empty() && m_ports.progress)
            m_ports.progress->line("resuming from " + m_journal.path() + ": " +
                                   std::to_string(m_book.spend().builds) + " builds, " +
                                   std::to_string(m_book.spend().runs) + " runs");
        publish();
    }

    /// State `p` measured with at least `--repeats` values (runs only what is missing).
    Eval measure(const Point& p, core::Stage stage) {
        const auto* f = m_book.find(key_of(p.commits));
        const auto have = f ? f->values.size() : 0;
        if (f && skipped(*f))
            return known(*f);
        const auto want = static_cast<std::size_t>(m_opt.repeats);
        if (have >= want)
            return known(*f);
        return run_state(p, stage, static_cast<int>(want - have));
    }

    /// `runs` more runs of a measured state; on success every value of the state so far.
    Eval more(const Point& p, core::Stage stage, int runs) { return run_state(p, stage, runs); }

    /// Set the values of every tested state in `states` to all the values measured for it.
    void refresh(std::vector<core::StateOutcome>& states) const {
        for (auto& s : states)
            if (const auto* f = m_book.find(key_of(s.commits)); f && !s.duplicate)
                s.values = f->values;
    }

    /// The name of a state's output directory: every repo's short SHA (one directory per tested
    /// tree, whichever stage or grid time tested it).
    static std::string output_name(const Point& p) {
        std::string n;
        for (const auto& [name, sha] : p.commits)
            n += (n.empty() ? "" : "_") + name + "-" + sha.substr(0, 10);
        return n;
    }

    /// Point OUTPUTS/last-good and OUTPUTS/first-bad at the output dirs of `good` and `bad`.
    void link_outputs(const Point& good, const Point& bad) {
        if (m_opt.outputs_dir.empty() || !m_ports.files)
            return;
        for (const auto& [link, p] :
             {std::pair<const char*, const Point*>{"last-good", &good}, {"first-bad", &bad}}) {
            m_ports.files->make_dirs(m_opt.outputs_dir + "/" + output_name(*p));
            m_ports.files->point_link(m_opt.outputs_dir + "/" + link, output_name(*p));
        }
        auto line = "outputs: " + m_opt.outputs_dir + "/last-good -> " + output_name(good) +
                    ", first-bad -> " + output_name(bad);
        if (m_ports.progress && line != m_outputs_line) // the commit stage may confirm the window
            m_ports.progress->line(line);
        m_outputs_line = std::move(line);
    }

    /// What is known about a state, if anything.
    const core::StateFacts* entry(const Point& p) const { return m_book.find(key_of(p.commits)); }

    /// Narrow `points` with the source planner (core/source_plan.hpp: the shared sweep planner
    /// plus what every build and run so far says). Fills `outs` (status, values) and returns the
    /// planner's result; `stopped` tells whether the budget cut it short.
    core::SweepResult search(const std::vector<Point>& points, core::Stage stage,
                             core::SweepStrategy strategy, std::vector<core::StateOutcome>& outs,
                             bool& stopped) {
        std::vector<std::string> keys, labels;
        for (const auto& p : points) {
            keys.push_back(key_of(p.commits));
            labels.push_back(util::format_iso8601(p.time) + " " + describe(p.commits));
        }
        core::SweepOptions so;
        so.strategy = strategy;
        // Inner states start with one run (the window ends' repeats give the noise); undecided
        // ones add runs by need, up to the same cap as the window ends.
        so.repeats = 1;
        so.min_span = m_opt.min_span;
        so.max_repeats = std::max(m_opt.max_repeats, m_opt.repeats);
        so.alpha = k_alpha;
        so.direction = m_opt.direction;
        so.workers = 1;
        if (m_opt.exit_code_mode)
            so.comparison = core::ComparisonKind::pass_fail;
        core::SourcePlan plan(keys, labels, so);
        stopped = false;
        for (;;) {
            plan.sync(m_book);
            const auto step = plan.next(m_book);
            if (!step)
                break;
            const auto& p = points[step->index];
            const Eval ev = run_state(p, stage, step->runs);
            if (ev.status == "budget") {
                stopped = true;
                break;
            }
            if (ev.status == "ok")
                report(p, "median " + util::format_fixed(core::median(ev.values), 3));
            else
                report(p, ev.status + ": " + ev.reason);
        }
        plan.sync(m_book);
        auto res = plan.result(stopped ? "budget exhausted" : "");
        const auto* b = core::regression_boundary(res);
        for (std::size_t i = 0; i < points.size(); ++i) {
            auto& out = outs[i];
            const auto* f = m_book.find(keys[i]);
            if (!f) {
                out.status = core::StateStatus::untested;
                continue;
            }
            out.values = f->values;
            if (f->build_failed) {
                out.status = core::StateStatus::build_failed;
                out.reason = f->build_reason;
            } else if (f->run_failed && f->values.empty()) {
                out.status = core::StateStatus::test_failed;
                out.reason = f->run_reason;
            } else if (f->values.empty()) {
                out.status = core::StateStatus::untested;
            } else if (!b) {
                out.status = core::StateStatus::unknown;
            } else {
                out.status = i <= b->last_before   ? core::StateStatus::good
                             : i >= b->first_after ? core::StateStatus::bad
                                                   : core::StateStatus::unknown;
            }
        }
        return res;
    }

private:
    static bool skipped(const core::StateFacts& f) {
        return f.build_failed || (f.run_failed && f.values.empty());
    }

    static Eval known(const core::StateFacts& f) {
        if (f.build_failed)
            return {"build_failed", {}, f.build_reason};
        if (f.run_failed && f.values.empty())
            return {"test_failed", {}, f.run_reason};
        return {"ok", f.values, ""};
    }

    /// The spend so far into the result (total across invocations, resumed part included).
    void publish() { m_result.spend = m_book.spend(); }

    bool budget_left(bool needs_build) const {
        if (needs_build && m_opt.max_builds > 0 && m_book.spend().builds >= m_opt.max_builds)
            return false;
        if (m_opt.max_runs > 0 && m_book.spend().runs >= m_opt.max_runs)
            return false;
        if (m_opt.max_time > 0 && m_ports.clock && m_ports.clock->now() - m_start >= m_opt.max_time)
            return false;
        return true;
    }

    ports::PointRequest request(const Point& p, core::Stage stage) const {
        ports::PointRequest req;
        req.label = util::format_iso8601(p.time);
        req.stage = stage;
        req.values["time"] = req.label;
        for (const auto& repo : m_repos) {
            const auto& sha = p.commits.at(repo->name());
            req.values["commit:" + repo->name()] = sha;
            req.values["path:" + repo->name()] = repo->path();
            req.commits[repo->name()] = sha;
            auto t = p.times.find(repo->name());
            if (t != p.times.end())
                req.commit_times[repo->name()] = util::format_iso8601(t->second);
        }
        req.repeats = 1;
        if (!m_opt.outputs_dir.empty())
            req.values["output_dir"] =
                (m_opt.outputs_dir_in_runner.empty() ? m_opt.outputs_dir
                                                     : m_opt.outputs_dir_in_runner) +
                "/" + output_name(p);
        return req;
    }

    /// Build state `p` when its build is not the current one, then `runs` runs of it, one runner
    /// call each, every finished build and run recorded before the next starts.
    Eval run_state(const Point& p, core::Stage stage, int runs) {
        const auto key = key_of(p.commits);
        if (const auto* f = m_book.find(key); f && skipped(*f))
            return known(*f);
        // The worktree does not follow HEAD: a kill mid-checkout leaves it ahead of HEAD, so a
        // fresh process checks every repo out on its first round (libgit2 writes only the files
        // that differ).
        bool at_state = m_built_key == key;
        for (const auto& repo : m_repos)
            if (repo->head() != p.commits.at(repo->name()))
                at_state = false;
        const auto* f = m_book.find(key);
        const bool needs_build = !(f && f->built && at_state);
        if (!budget_left(needs_build))
            return {"budget", f ? f->values : std::vector<double>{}, "budget exhausted"};
        if (!m_ports.builder || !m_ports.runner)
            throw_usage("hourly: --build and --test are needed to test states");
        for (const auto& repo : m_repos)
            if (!m_checked_out || repo->head() != p.commits.at(repo->name()))
                repo->checkout(p.commits.at(repo->name()));
        m_checked_out = true;
        util::crash_point("hourly.after_checkout"); // at the state, its build not yet started
        if (!m_opt.outputs_dir.empty() && m_ports.files)
            m_ports.files->make_dirs(m_opt.outputs_dir + "/" + output_name(p));
        auto req = request(p, stage);
        if (needs_build) {
            add(event(core::JournalEvent::Kind::building, key)); // the output is no state's now
            m_built_key.clear();
            auto out = m_ports.builder->build(req);
            util::crash_point("hourly.after_build"); // built, not yet recorded
            auto done = event(core::JournalEvent::Kind::build, key);
            done.ok = out.ok;
            done.reason = out.ok ? "" : one_line(out.reason);
            add(done);
            if (!out.ok)
                return known(*m_book.find(key));
            m_built_key = key;
        }
        for (int k = 0; k < runs; ++k) {
            if (k > 0 && !budget_left(false))
                break;
            const auto* so_far = m_book.find(key);
            req.first_repeat = static_cast<int>(so_far ? so_far->runs : 0) + 1;
            auto ms = m_ports.runner->run_points({req});
            if (ms.empty())
                throw_infra("hourly: the runner returned no measurement for " + req.label);
            util::crash_point("hourly.after_run"); // measured, not yet recorded
            auto& m = ms.front();
            if (const auto code = core::abort_code(m); code && m_opt.exit_code_mode)
                throw_infra("exit-code mode: " + req.label + " (" + describe(p.commits) +
                            ") exited " + std::to_string(*code) + " (log " + m.log +
                            "); statuses of 128 and above abort the search (git bisect run's "
                            "contract). The state is kept; fix the test and run again to resume");
            m.stage = stage;
            if (m.label.empty())
                m.label = req.label;
            auto ran = event(core::JournalEvent::Kind::run, key);
            ran.runs = m.status == core::Status::missing ? 0 : 1;
            ran.measurement = m;
            add(ran);
            if (m.status != core::Status::ok || m.values.empty())
                break;
        }
        return known(*m_book.find(key)); // every value of the state so far
    }

    static core::JournalEvent event(core::JournalEvent::Kind kind, const std::string& key) {
        core::JournalEvent e;
        e.kind = kind;
        e.point = key;
        return e;
    }

    /// Record one finished thing: the journal first (durable), then the book.
    void add(const core::JournalEvent& e) {
        m_journal.append(core::journal_record(e));
        m_book.apply(e, false);
        if (m_result.metric.empty())
            m_result.metric = m_book.metric();
        publish();
    }

    void report(const Point& p, const std::string& what) {
        if (m_ports.progress)
            m_ports.progress->line(util::format_iso8601(p.time) + "  " + describe(p.commits) +
                                   "  " + what);
    }

    const HourlyOptions& m_opt;
    HourlyPorts& m_ports;
    std::vector<std::unique_ptr<ports::SourceRepo>>& m_repos;
    core::HourlyResult& m_result;
    JournalFile m_journal;
    core::SourceBook m_book;
    double m_start = 0;
    bool m_checked_out = false; ///< this process checked the repos out (their worktrees are known)
    std::string m_built_key;    ///< the state the build output is of ("" = unknown)
    std::string m_outputs_line; ///< the last "outputs:" line printed
};

core::StateOutcome outcome_of(const Point& p) {
    core::StateOutcome o;
    o.time = p.time;
    o.commits = p.commits;
    return o;
}

} // namespace

core::HourlyResult run_hourly(const HourlyOptions& o, ports::Adapters& adapters,
                              const Instruments& with) {
    HourlyPorts ports{&adapters.repos, with.builder,    with.runner,
                      &adapters.files, &adapters.clock, &adapters.progress};
    const auto held = hold_state(adapters.files, o.state_dir); // one search per --state
    if (o.repos.empty())
        throw_usage("hourly: expected at least one --repo NAME=PATH");
    if (o.strategy != "sequential" && o.strategy != "adaptive" && o.strategy != "bisect")
        throw_usage("--strategy '" + o.strategy + "': expected sequential, adaptive or bisect");
    if (o.repeats < 1)
        throw_usage("--repeats: expected a positive number");
    core::HourlyResult result;

    // Open every repo; fetch if asked; refuse shallow clones.
    std::vector<std::unique_ptr<ports::SourceRepo>> repos;
    std::set<std::string> names;
    for (const auto& spec : o.repos) {
        if (!names.insert(spec.name).second)
            throw_usage("--repo " + spec.name + ": the name is given twice");
        auto repo = ports.repos->open(spec.name, spec.path);
        if (repo->is_shallow())
            throw_usage("--repo " + spec.name + "=" + spec.path +
                        ": a shallow clone; the hourly stage needs full history (run `git fetch "
                        "--unshallow` in it)");
        if (o.fetch) {
            if (ports.progress)
                ports.progress->line("fetching " + spec.name);
            repo->fetch("origin", o.token_env);
        }
        repos.push_back(std::move(repo));
    }

    // The window ends.
    const bool by_commits = !o.good_commits.empty() || !o.bad_commits.empty();
    util::UnixSeconds from = 0, to = 0, since = 0;
    Commits good_given, bad_given;
    if (by_commits) {
        if (o.from || o.to)
            throw_usage("--good-commits/--bad-commits cannot be combined with --from/--to");
        bool first = true;
        for (std::size_t r = 0; r < repos.size(); ++r) {
            const auto& name = repos[r]->name();
            auto g = o.good_commits.find(name);
            auto b = o.bad_commits.find(name);
            if (g == o.good_commits.end() || b == o.bad_commits.end())
                throw_usage("--good-commits/--bad-commits: expected a commit for repo '" + name +
                            "' in both");
            const auto gc = repos[r]->commit(g->second);
            const auto bc = repos[r]->commit(b->second);
            good_given[name] = gc.sha;
            bad_given[name] = bc.sha;
            from = first ? gc.time : std::max(from, gc.time);
            to = first ? bc.time : std::max(to, bc.time);
            since = first ? gc.time : std::min(since, gc.time);
            first = false;
        }
        for (const auto& [name, sha] : o.good_commits)
            if (!names.count(name))
                throw_usage("--good-commits: '" + name + "' is not a --repo name");
        for (const auto& [name, sha] : o.bad_commits)
            if (!names.count(name))
                throw_usage("--bad-commits: '" + name + "' is not a --repo name");
        if (to < from)
            to = from;
    } else {
        if (!o.from || !o.to)
            throw_usage("hourly: expected --from and --to (or --good-commits and --bad-commits)");
        from = *o.from;
        to = *o.to;
        since = from;
    }
    const auto grid = core::make_grid(from, to, o.step);

    // Each repo's line: the first-parent chain back to the window start, or all reachable commits.
    std::vector<core::RepoLine> chains, lines;
    for (std::size_t r = 0; r < repos.size(); ++r) {
        const auto& ref = o.repos[r].ref;
        core::RepoLine chain{repos[r]->name(), repos[r]->first_parent_history(ref, since)};
        if (o.any_parent)
            lines.push_back({repos[r]->name(), core::rev_list_order(repos[r]->reachable(ref),
                                                                    repos[r]->resolve(ref))});
        else
            lines.push_back(chain);
        chains.push_back(std::move(chain));
    }
    auto states = core::resolve_states(lines, grid);
    if (by_commits) {
        // The ends are the given commits; re-derive what changed next to them.
        auto set_end = [&](core::SourceState& s, const Commits& c) {
            s.commits = c;
            for (std::size_t r = 0; r < repos.size(); ++r)
                s.times[repos[r]->name()] = repos[r]->commit(c.at(repos[r]->name())).time;
        };
        set_end(states.front(), good_given);
        set_end(states.back(), bad_given);
        for (std::size_t i = 1; i < states.size(); ++i) {
            states[i].changed.clear();
            for (const auto& [name, sha] : states[i].commits)
                if (states[i - 1].commits.at(name) != sha)
                    states[i].changed.push_back(name);
            states[i].duplicate = states[i].changed.empty();
        }
    }

    std::vector<Point> distinct;
    std::vector<std::size_t> distinct_state; // distinct index → states index
    for (std::size_t i = 0; i < states.size(); ++i) {
        core::StateOutcome out;
        out.time = states[i].time;
        out.commits = states[i].commits;
        out.changed = states[i].changed;
        out.duplicate = states[i].duplicate;
        out.status = states[i].duplicate ? core::StateStatus::duplicate
                     : o.plan            ? core::StateStatus::planned
                                         : core::StateStatus::untested;
        result.states.push_back(out);
        if (!states[i].duplicate) {
            distinct.push_back({states[i].time, states[i].commits, states[i].times});
            distinct_state.push_back(i);
        }
    }
    if (o.plan) {
        result.conclusion = core::HourlyConclusion::planned;
        result.message = std::to_string(states.size()) + " states, " +
                         std::to_string(distinct.size()) + " distinct";
        return result;
    }
    if (distinct.size() == 1) {
        result.conclusion = core::HourlyConclusion::no_change;
        result.message = "no repo changed between " + util::format_iso8601(from) + " and " +
                         util::format_iso8601(to) + ": the change is not in these repos";
        return result;
    }

    Engine engine(o, ports, repos, result);
    // The ends give the reference samples.
    std::vector<core::StateOutcome> outs;
    for (const auto& p : distinct)
        outs.push_back(outcome_of(p));
    auto copy_back = [&] {
        for (std::size_t d = 0; d < distinct.size(); ++d) {
            auto& s = result.states[distinct_state[d]];
            s.status = outs[d].status;
            s.values = outs[d].values;
            s.reason = outs[d].reason;
        }
    };
    const auto good_end = engine.measure(distinct.front(), core::Stage::hourly);
    const auto bad_end = engine.measure(distinct.back(), core::Stage::hourly);
    outs.front().reason = good_end.reason;
    outs.back().reason = bad_end.reason;
    outs.front().status = end_status(good_end, core::StateStatus::good);
    outs.back().status = end_status(bad_end, core::StateStatus::bad);
    if (good_end.status != "ok" || bad_end.status != "ok") {
        copy_back();
        result.budget_exhausted = good_end.status == "budget" || bad_end.status == "budget";
        result.conclusion = core::HourlyConclusion::inconclusive;
        result.message = "the window ends must build and run: last good " + good_end.status +
                         (good_end.reason.empty() ? "" : " (" + good_end.reason + ")") +
                         ", first bad " + bad_end.status +
                         (bad_end.reason.empty() ? "" : " (" + bad_end.reason + ")");
        return result;
    }
    auto compare_ends = [&](const std::vector<double>& gv, const std::vector<double>& bv) {
        auto c = core::compare_samples(gv, bv, k_alpha);
        if (o.exit_code_mode) { // failure counts: complete separation or Fisher's exact test
            const auto g = core::count_pass_fail(gv);
            const auto b = core::count_pass_fail(bv);
            c.relative_change = b.rate() - g.rate();
            c.p_value = core::fisher_exact_two_sided(g.failed, g.passed, b.failed, b.passed);
            c.significant = (g.failed == 0 && b.passed == 0) || (g.passed == 0 && b.failed == 0) ||
                            c.p_value < k_alpha;
        }
        return c;
    };
    std::vector<double> good_values = good_end.values, bad_values = bad_end.values;
    auto cmp = compare_ends(good_values, bad_values);
    // The daily stage found these two nightlies different, so undecided window ends double their
    // runs (up to max_repeats) before the stage may say "no change": a flaky failure hides easily
    // in a few runs, and a few percent drop in a few noisy runs (3 H200 runs of a -3.8 % step
    // gave p=0.011). The end built last runs first, so each doubling costs one rebuild.
    bool bad_first = true;
    for (int per_end = o.repeats, cap = std::max(o.max_repeats, o.repeats);
         !cmp.significant && per_end < cap;) {
        const int extra = std::min(per_end, cap - per_end);
        if (ports.progress)
            ports.progress->line(
                "window ends undecided (" +
                (o.exit_code_mode
                     ? "good " + core::describe_rate(core::count_pass_fail(good_values)) +
                           ", bad " + core::describe_rate(core::count_pass_fail(bad_values))
                     : "change " + util::format_fixed(cmp.relative_change * 100, 2) +
                           "%, p=" + util::format_fixed(cmp.p_value, 4)) +
                "): " + std::to_string(extra) + " more runs each");
        const auto& first = bad_first ? distinct.back() : distinct.front();
        const auto& second = bad_first ? distinct.front() : distinct.back();
        const auto a = engine.more(first, core::Stage::hourly, extra);
        if (a.status != "ok")
            break;
        const auto b = engine.more(second, core::Stage::hourly, extra);
        if (b.status != "ok")
            break;
        (bad_first ? bad_values : good_values) = a.values;
        (bad_first ? good_values : bad_values) = b.values;
        bad_first = !bad_first;
        per_end += extra;
        cmp = compare_ends(good_values, bad_values);
    }
    outs.front().values = good_values;
    outs.back().values = bad_values;
    if (!cmp.significant) {
        copy_back();
        outs.front().status = outs.back().status = core::StateStatus::unknown;
        result.conclusion = core::HourlyConclusion::no_change;
        result.message = "the window ends do not differ significantly (change " +
                         util::format_fixed(cmp.relative_change * 100, 2) +
                         "%, p=" + util::format_fixed(cmp.p_value, 4) + ")";
        copy_back();
        return result;
    }
    bool stopped = false;
    const auto strategy = o.strategy == "sequential" ? core::SweepStrategy::exhaustive
                          : o.strategy == "bisect"   ? core::SweepStrategy::bisect
                                                     : core::SweepStrategy::adaptive;
    const auto sweep = engine.search(distinct, core::Stage::hourly, strategy, outs, stopped);
    copy_back();
    const auto* boundary = core::regression_boundary(sweep);
    if (!boundary) {
        result.budget_exhausted = stopped;
        result.conclusion = core::HourlyConclusion::inconclusive;
        result.message = stopped ? "budget exhausted before a level change was located"
                                 : "no decided level change between the window ends";
        return result;
    }
    const std::size_t lo = boundary->last_before;
    const std::size_t hi = boundary->first_after;
    stopped = stopped || boundary->untested_between > 0;
    const auto& lp = distinct[lo];
    const auto& hp = distinct[hi];
    result.last_good = core::WindowEnd{lp.time, lp.commits};
    result.first_bad = core::WindowEnd{hp.time, hp.commits};
    engine.link_outputs(lp, hp);
    // Exit-code mode: the runs of both sides and the bad side's first failing log, for the report.
    auto note_failures = [&](const Point& good, const Point& bad) {
        if (!o.exit_code_mode)
            return;
        result.failure_rates = true;
        const auto* g = engine.entry(good);
        const auto* b = engine.entry(bad);
        result.good_runs = g ? core::count_pass_fail(g->values) : core::PassFail{};
        result.bad_runs = b ? core::count_pass_fail(b->values) : core::PassFail{};
        result.first_bad_log.reset();
        if (b && ports.files)
            result.first_bad_log =
                failure_log_at(util::format_iso8601(bad.time) + " " + describe(bad.commits),
                               b->failure_log, b->failure_code, *ports.files, o.secrets);
    };
    note_failures(lp, hp);
    for (std::size_t r = 0; r < repos.size(); ++r) {
        const auto& name = repos[r]->name();
        const auto& a = lp.commits.at(name);
        const auto& b = hp.commits.at(name);
        if (a == b)
            continue;
        result.changed_repos.push_back(name);
        result.candidates[name] = core::commits_between(lines[r], a, b);
        auto url = core::compare_url(repos[r]->remote_url("origin"), a, b);
        if (!url.empty())
            result.compare_urls[name] = url;
    }
    result.budget_exhausted = stopped;
    result.conclusion =
        stopped ? core::HourlyConclusion::inconclusive : core::HourlyConclusion::window;
    result.message = std::string(stopped ? "budget exhausted; window so far: " : "window: ") +
                     util::format_iso8601(lp.time) + " (good) .. " + util::format_iso8601(hp.time) +
                     " (bad), changed: " + util::join(result.changed_repos, ", ");
    if (!o.to_commit || stopped)
        return result;

    // The commit stage: bisect the merged main-line timeline inside the window.
    const auto steps = core::merged_timeline(chains, lp.commits, hp.commits);
    std::vector<Point> tl;
    tl.push_back(lp);
    for (const auto& s : steps) {
        Point p = tl.back();
        p.time = s.commit.time;
        p.commits[s.repo] = s.commit.sha;
        p.times[s.repo] = s.commit.time;
        tl.push_back(std::move(p));
    }
    // Evidence of the hourly stage: up to two measured states next to the window on each level
    // join the search as context (known values: no build, no run), so the commit stage confirms
    // the two levels with what the hourly stage measured instead of rebuilding the window's
    // states for more runs.
    std::vector<Point> search_points;
    std::size_t ctx_before = 0;
    for (std::size_t d = lo; d-- > 0 && ctx_before < 2;)
        if (outs[d].status == core::StateStatus::good) {
            search_points.insert(search_points.begin(), distinct[d]);
            ++ctx_before;
        }
    search_points.insert(search_points.end(), tl.begin(), tl.end());
    for (std::size_t d = hi + 1, n = 0; d < distinct.size() && n < 2; ++d)
        if (outs[d].status == core::StateStatus::bad) {
            search_points.push_back(distinct[d]);
            ++n;
        }
    std::vector<core::StateOutcome> touts(search_points.size());
    bool tstopped = false;
    const auto tsweep = engine.search(search_points, core::Stage::commit,
                                      core::SweepStrategy::bisect, touts, tstopped);
    touts.erase(touts.begin(), touts.begin() + static_cast<std::ptrdiff_t>(ctx_before));
    touts.resize(tl.size());
    for (std::size_t i = 0; i < tl.size(); ++i) {
        const auto o_i = outcome_of(tl[i]);
        touts[i].time = o_i.time;
        touts[i].commits = o_i.commits;
        touts[i].duplicate = o_i.duplicate;
        touts[i].changed =
            i > 0 ? std::vector<std::string>{steps[i - 1].repo} : std::vector<std::string>{};
    }
    result.commit_steps = touts;
    // The commit stage may have run window states again: every state shows all its values.
    engine.refresh(result.states);
    engine.refresh(result.commit_steps);
    const auto* tb = core::regression_boundary(tsweep);
    result.budget_exhausted = tstopped || (tb && tb->untested_between > 0);
    if (!tb || result.budget_exhausted) {
        result.conclusion = core::HourlyConclusion::inconclusive;
        result.message = result.budget_exhausted
                             ? "budget exhausted during the commit stage"
                             : "commit stage: no decided level change along the timeline";
        return result;
    }
    if (tb->last_before < ctx_before || tb->first_after >= ctx_before + tl.size()) {
        result.conclusion = core::HourlyConclusion::inconclusive;
        result.message = "commit stage: the level changes outside the window's commits";
        return result;
    }
    const std::size_t tlo = tb->last_before - ctx_before;
    const std::size_t thi = tb->first_after - ctx_before;
    if (thi != tlo + 1) {
        result.message = "commit stage: " + std::to_string(thi - tlo) +
                         " commits remain between the last good-like and the first bad-like "
                         "state (the others did not build or run)";
        return result;
    }
    const auto& step = steps[thi - 1];
    note_failures(tl[tlo], tl[thi]);
    engine.link_outputs(tl[tlo], tl[thi]);
    result.culprit = core::Culprit{step.repo, step.commit, ""};
    if (result.changed_repos.size() > 1) {
        std::vector<std::string> others;
        for (const auto& r : result.changed_repos)
            if (r != step.repo)
                others.push_back(r);
        result.culprit->note = step.repo + " carries the change; " + util::join(others, ", ") +
                               " also changed in the window but not at the culprit step";
    } else {
        result.culprit->note = "only " + step.repo + " changed in the window";
    }
    result.conclusion = core::HourlyConclusion::culprit;
    result.message = "culprit: " + step.repo + " " + step.commit.sha + " \"" + step.commit.subject +
                     "\" (" + result.culprit->note + ")";
    return result;
}

} // namespace perfsweep::app
