#include "app/hourly.hpp"

#include "app/failure_log.hpp"
#include "app/journal_file.hpp"
#include "app/source_bench.hpp"
#include "core/commit_text.hpp"
#include "core/exit_code.hpp"
#include "core/source_plan.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <set>

namespace perfsweep::app {

namespace {

using Commits = std::map<std::string, std::string>;

/// How a window end's measurement reads in a message: ok, build_failed, test_failed or budget.
std::string end_word(const Eval& e) {
    return e.measured() ? "ok" : e.budget() ? "budget" : std::string(core::to_string(e.status));
}

/// A window end's status: its level when it measured, else why not (a budget stop leaves it
/// untested).
core::StateStatus end_status(const Eval& e, core::StateStatus level) {
    return e.measured() ? level : e.status;
}

/// The window's ends in time, and the commits given for them (--good-commits/--bad-commits).
struct SourceWindow {
    util::UnixSeconds from = 0, to = 0;
    util::UnixSeconds since = 0; ///< the oldest commit any repo's line must reach
    Commits good, bad;           ///< by commits: the ends' commits
    bool by_commits = false;
};

/// One run of the hourly (and commit) stage: each step a method, reading what the earlier ones
/// found; the pure planners (core/source_plan) decide, the bench (app/source_bench) builds and
/// runs.
class HourlyStage {
public:
    HourlyStage(const HourlyOptions& o, ports::Adapters& a) : m_o(o), m_a(a) {}

    /// 1. Open every repo; fetch if asked; refuse shallow clones.
    void open_repos();
    /// 2. The window (times or commits), each repo's line, the grid's states, the distinct ones.
    void resolve_window(core::StateStatus initial);
    /// --plan: the states listed.
    core::HourlyResult planned();
    /// No repo changed in the window (one distinct state): the result saying so.
    std::optional<core::HourlyResult> unchanged();
    /// 3. The window ends, with more runs while undecided (core::WindowEnds). False: the stage
    /// ends here.
    bool measure_ends(SourceBench& bench);
    /// 4. Narrow the window over the distinct states. False: no window, or the budget stopped it.
    bool narrow_window(SourceBench& bench);
    /// 5. Narrow to the commit: the merged main-line timeline inside the window, with context.
    void narrow_commits(SourceBench& bench);
    /// The result, every distinct state's outcome copied into it once.
    core::HourlyResult finish(const SourceBench& bench);
    /// The repos (opened by open_repos).
    std::vector<std::unique_ptr<ports::SourceRepo>>& repos() { return m_repos; }
    /// The result being built.
    core::HourlyResult& result() { return m_result; }

private:
    SourceWindow window() const;
    SourceWindow window_by_commits() const;
    void note_window(SourceBench& bench);
    void note_failures(SourceBench& bench, const core::SourceState& good,
                       const core::SourceState& bad);
    void conclude_commits(SourceBench& bench, const core::SweepResult& sweep, bool stopped,
                          const std::vector<core::SourceState>& timeline,
                          const std::vector<core::TimelineStep>& steps, std::size_t context);
    void name_culprit(const core::TimelineStep& step);

    const HourlyOptions& m_o;
    ports::Adapters& m_a;
    std::vector<std::unique_ptr<ports::SourceRepo>> m_repos;
    SourceWindow m_window;
    std::vector<core::RepoLine> m_chains, m_lines; // first-parent chains; the lines searched
    std::vector<core::SourceState> m_distinct;     // the distinct states, in time order
    std::vector<std::size_t> m_distinct_state;     // distinct index → result.states index
    std::vector<core::StateOutcome> m_outs;        // what is known about each distinct state
    std::size_t m_lo = 0, m_hi = 0;                // the window: distinct indices
    bool m_commit_stage = false;
    core::HourlyResult m_result;
};

void HourlyStage::open_repos() {
    if (m_o.repos.empty())
        throw_usage("hourly: expected at least one --repo NAME=PATH");
    if (m_o.repeats < 1)
        throw_usage("--repeats: expected a positive number");
    std::set<std::string> names;
    for (const auto& spec : m_o.repos) {
        if (!names.insert(spec.name).second)
            throw_usage("--repo " + spec.name + ": the name is given twice");
        auto repo = m_a.repos.open(spec.name, spec.path);
        if (repo->is_shallow())
            throw_usage("--repo " + spec.name + "=" + spec.path +
                        ": a shallow clone; the hourly stage needs full history (run `git fetch "
                        "--unshallow` in it)");
        if (m_o.fetch) {
            m_a.progress.line("fetching " + spec.name);
            repo->fetch("origin", m_o.token_env);
        }
        m_repos.push_back(std::move(repo));
    }
}

SourceWindow HourlyStage::window_by_commits() const {
    if (m_o.from || m_o.to)
        throw_usage("--good-commits/--bad-commits cannot be combined with --from/--to");
    SourceWindow w;
    w.by_commits = true;
    bool first = true;
    for (const auto& repo : m_repos) {
        const auto& name = repo->name();
        auto g = m_o.good_commits.find(name);
        auto b = m_o.bad_commits.find(name);
        if (g == m_o.good_commits.end() || b == m_o.bad_commits.end())
            throw_usage("--good-commits/--bad-commits: expected a commit for repo '" + name +
                        "' in both");
        const auto gc = repo->commit(g->second);
        const auto bc = repo->commit(b->second);
        w.good[name] = gc.sha;
        w.bad[name] = bc.sha;
        w.from = first ? gc.time : std::max(w.from, gc.time);
        w.to = first ? bc.time : std::max(w.to, bc.time);
        w.since = first ? gc.time : std::min(w.since, gc.time);
        first = false;
    }
    for (const auto* given : {&m_o.good_commits, &m_o.bad_commits})
        for (const auto& [name, sha] : *given)
            if (!w.good.count(name))
                throw_usage(
                    std::string(given == &m_o.good_commits ? "--good-commits" : "--bad-commits") +
                    ": '" + name + "' is not a --repo name");
    w.to = std::max(w.to, w.from);
    return w;
}

SourceWindow HourlyStage::window() const {
    if (!m_o.good_commits.empty() || !m_o.bad_commits.empty())
        return window_by_commits();
    if (!m_o.from || !m_o.to)
        throw_usage("hourly: expected --from and --to (or --good-commits and --bad-commits)");
    SourceWindow w;
    w.from = util::unix_seconds(*m_o.from);
    w.to = util::unix_seconds(*m_o.to);
    w.since = w.from;
    return w;
}

void HourlyStage::resolve_window(core::StateStatus initial) {
    m_window = window();
    const auto grid = core::make_grid(m_window.from, m_window.to, m_o.step.count());
    // Each repo's line: the first-parent chain back to the window start, or all reachable commits.
    for (std::size_t r = 0; r < m_repos.size(); ++r) {
        auto& repo = *m_repos[r];
        const auto& ref = m_o.repos[r].ref;
        core::RepoLine chain{repo.name(), repo.first_parent_history(ref, m_window.since)};
        m_lines.push_back(
            m_o.any_parent ? core::RepoLine{repo.name(), core::rev_list_order(repo.reachable(ref),
                                                                              repo.resolve(ref))}
                           : chain);
        m_chains.push_back(std::move(chain));
    }
    auto states = core::resolve_states(m_lines, grid);
    if (m_window.by_commits) { // the ends are the given commits; re-derive what changed by them
        for (const auto& [s, commits] : {std::pair{&states.front(), &m_window.good},
                                         std::pair{&states.back(), &m_window.bad}}) {
            s->commits = *commits;
            for (const auto& repo : m_repos)
                s->times[repo->name()] = repo->commit(commits->at(repo->name())).time;
        }
        for (std::size_t i = 1; i < states.size(); ++i) {
            states[i].changed.clear();
            for (const auto& [name, sha] : states[i].commits)
                if (states[i - 1].commits.at(name) != sha)
                    states[i].changed.push_back(name);
            states[i].duplicate = states[i].changed.empty();
        }
    }
    for (std::size_t i = 0; i < states.size(); ++i) {
        core::StateOutcome out;
        static_cast<core::SourceState&>(out) = states[i];
        out.times.clear(); // a state's outcome shows its time and commits, not each commit's time
        out.status = states[i].duplicate ? core::StateStatus::duplicate : initial;
        m_result.states.push_back(std::move(out));
        if (!states[i].duplicate) {
            m_distinct.push_back(states[i]);
            m_distinct_state.push_back(i);
            core::StateOutcome o;
            o.time = states[i].time;
            o.commits = states[i].commits;
            m_outs.push_back(std::move(o));
        }
    }
}

core::HourlyResult HourlyStage::planned() {
    m_result.conclusion = core::HourlyConclusion::planned;
    m_result.message = std::to_string(m_result.states.size()) + " states, " +
                       std::to_string(m_distinct.size()) + " distinct";
    return std::move(m_result);
}

std::optional<core::HourlyResult> HourlyStage::unchanged() {
    if (m_distinct.size() != 1)
        return std::nullopt;
    m_result.conclusion = core::HourlyConclusion::no_change;
    m_result.message = "no repo changed between " + util::format_iso8601(m_window.from) + " and " +
                       util::format_iso8601(m_window.to) + ": the change is not in these repos";
    return std::move(m_result);
}

bool HourlyStage::measure_ends(SourceBench& bench) {
    const auto& good_end = m_distinct.front();
    const auto& bad_end = m_distinct.back();
    bench.consult_ends(good_end, bad_end);
    const auto good = bench.measure(good_end, core::Stage::hourly);
    const auto bad = bench.measure(bad_end, core::Stage::hourly);
    auto& g = m_outs.front();
    auto& b = m_outs.back();
    g.reason = good.reason;
    b.reason = bad.reason;
    g.status = end_status(good, core::StateStatus::good);
    b.status = end_status(bad, core::StateStatus::bad);
    if (!good.measured() || !bad.measured()) {
        m_result.budget_exhausted = good.budget() || bad.budget();
        m_result.conclusion = core::HourlyConclusion::inconclusive;
        m_result.message = "the window ends must build and run: last good " + end_word(good) +
                           (good.reason.empty() ? "" : " (" + good.reason + ")") + ", first bad " +
                           end_word(bad) + (bad.reason.empty() ? "" : " (" + bad.reason + ")");
        return false;
    }
    core::WindowEnds ends(good.values, bad.values,
                          {m_o.repeats, m_o.max_repeats, k_hourly_alpha, m_o.exit_code_mode});
    bool stopped = false; // by the budget: the ends are undecided, not the same
    while (const auto step = ends.next()) {
        m_a.progress.line("window ends undecided (" + ends.describe() +
                          "): " + std::to_string(step->runs) + " more runs each");
        const auto& first = step->bad_first ? bad_end : good_end;
        const auto& second = step->bad_first ? good_end : bad_end;
        const auto x = bench.more(first, core::Stage::hourly, step->runs);
        const auto y = x.measured() ? bench.more(second, core::Stage::hourly, step->runs) : x;
        stopped = x.budget() || y.budget();
        if (!x.measured() || !y.measured())
            break;
        ends.observe(*step, step->bad_first ? y.values : x.values,
                     step->bad_first ? x.values : y.values);
    }
    g.values = ends.good();
    b.values = ends.bad();
    if (ends.comparison().significant)
        return true;
    if (stopped) {
        m_result.budget_exhausted = true;
        m_result.conclusion = core::HourlyConclusion::inconclusive;
        m_result.message =
            "budget exhausted while the window ends were undecided (" + ends.describe() + ")";
        return false;
    }
    g.status = b.status = core::StateStatus::unknown;
    m_result.conclusion = core::HourlyConclusion::no_change;
    m_result.message = "the window ends do not differ significantly (change " +
                       util::format_fixed(ends.comparison().relative_change * 100, 2) +
                       "%, p=" + util::format_fixed(ends.comparison().p_value, 4) + ")";
    return false;
}

bool HourlyStage::narrow_window(SourceBench& bench) {
    bool stopped = false;
    const auto sweep = bench.search(m_distinct, core::Stage::hourly, m_o.strategy, m_outs, stopped);
    const auto* boundary = core::regression_boundary(sweep);
    if (!boundary) {
        m_result.budget_exhausted = stopped;
        m_result.conclusion = core::HourlyConclusion::inconclusive;
        m_result.message = stopped ? "budget exhausted before a level change was located"
                                   : "no decided level change between the window ends";
        return false;
    }
    m_lo = boundary->last_before;
    m_hi = boundary->first_after;
    stopped = stopped || boundary->untested_between > 0;
    note_window(bench);
    const auto& lp = m_distinct[m_lo];
    const auto& hp = m_distinct[m_hi];
    m_result.budget_exhausted = stopped;
    m_result.conclusion =
        stopped ? core::HourlyConclusion::inconclusive : core::HourlyConclusion::window;
    m_result.message = std::string(stopped ? "budget exhausted; window so far: " : "window: ") +
                       util::format_iso8601(lp.time) + " (good) .. " +
                       util::format_iso8601(hp.time) +
                       " (bad), changed: " + util::join(m_result.changed_repos, ", ");
    return !stopped;
}

// The window's ends, output links, failure rates, and what changed in each repo between them.
void HourlyStage::note_window(SourceBench& bench) {
    const auto& lp = m_distinct[m_lo];
    const auto& hp = m_distinct[m_hi];
    m_result.last_good = core::WindowEnd{lp.time, lp.commits};
    m_result.first_bad = core::WindowEnd{hp.time, hp.commits};
    bench.link_outputs(lp, hp);
    note_failures(bench, lp, hp);
    for (std::size_t r = 0; r < m_repos.size(); ++r) {
        const auto& name = m_repos[r]->name();
        const auto& a = lp.commits.at(name);
        const auto& b = hp.commits.at(name);
        if (a == b)
            continue;
        m_result.changed_repos.push_back(name);
        m_result.candidates[name] = core::commits_between(m_lines[r], a, b);
        auto url = core::compare_url(m_repos[r]->remote_url("origin"), a, b);
        if (!url.empty())
            m_result.compare_urls[name] = url;
    }
}

// Exit-code mode: the runs of both sides and the bad side's first failing log, for the report.
void HourlyStage::note_failures(SourceBench& bench, const core::SourceState& good,
                                const core::SourceState& bad) {
    if (!m_o.exit_code_mode)
        return;
    m_result.failure_rates = true;
    const auto* g = bench.facts(good);
    const auto* b = bench.facts(bad);
    m_result.good_runs = g ? core::count_pass_fail(g->values) : core::PassFail{};
    m_result.bad_runs = b ? core::count_pass_fail(b->values) : core::PassFail{};
    m_result.first_bad_log.reset();
    if (b)
        m_result.first_bad_log =
            failure_log_at(util::format_iso8601(bad.time) + " " + core::format_commits(bad.commits),
                           b->failure_log, b->failure_code, m_a.files, m_o.secrets);
}

void HourlyStage::narrow_commits(SourceBench& bench) {
    const auto steps =
        core::merged_timeline(m_chains, m_distinct[m_lo].commits, m_distinct[m_hi].commits);
    std::vector<core::SourceState> timeline{m_distinct[m_lo]};
    for (const auto& s : steps) {
        auto p = timeline.back();
        p.time = s.commit.time;
        p.commits[s.repo] = s.commit.sha;
        p.times[s.repo] = s.commit.time;
        timeline.push_back(std::move(p));
    }
    // The hourly stage's evidence joins the search as context (core::context_points).
    std::vector<core::StateStatus> statuses;
    for (const auto& o : m_outs)
        statuses.push_back(o.status);
    const auto context = core::context_points(statuses, m_lo, m_hi);
    std::vector<core::SourceState> points;
    for (auto d : context.before)
        points.push_back(m_distinct[d]);
    points.insert(points.end(), timeline.begin(), timeline.end());
    for (auto d : context.after)
        points.push_back(m_distinct[d]);
    std::vector<core::StateOutcome> outs(points.size());
    bool stopped = false;
    const auto sweep =
        bench.search(points, core::Stage::commit, core::SweepStrategy::bisect, outs, stopped);
    outs.erase(outs.begin(), outs.begin() + static_cast<std::ptrdiff_t>(context.before.size()));
    outs.resize(timeline.size());
    for (std::size_t i = 0; i < timeline.size(); ++i) {
        outs[i].time = timeline[i].time;
        outs[i].commits = timeline[i].commits;
        outs[i].changed =
            i > 0 ? std::vector<std::string>{steps[i - 1].repo} : std::vector<std::string>{};
    }
    m_result.commit_steps = std::move(outs);
    m_commit_stage = true; // it may have run window states again: finish() shows all values
    conclude_commits(bench, sweep, stopped, timeline, steps, context.before.size());
}

void HourlyStage::conclude_commits(SourceBench& bench, const core::SweepResult& sweep, bool stopped,
                                   const std::vector<core::SourceState>& timeline,
                                   const std::vector<core::TimelineStep>& steps,
                                   std::size_t context) {
    const auto* tb = core::regression_boundary(sweep);
    m_result.budget_exhausted = stopped || (tb && tb->untested_between > 0);
    if (!tb || m_result.budget_exhausted) {
        m_result.conclusion = core::HourlyConclusion::inconclusive;
        m_result.message = m_result.budget_exhausted
                               ? "budget exhausted during the commit stage"
                               : "commit stage: no decided level change along the timeline";
        return;
    }
    if (tb->last_before < context || tb->first_after >= context + timeline.size()) {
        m_result.conclusion = core::HourlyConclusion::inconclusive;
        m_result.message = "commit stage: the level changes outside the window's commits";
        return;
    }
    const std::size_t lo = tb->last_before - context;
    const std::size_t hi = tb->first_after - context;
    if (hi != lo + 1) {
        m_result.message = "commit stage: " + std::to_string(hi - lo) +
                           " commits remain between the last good-like and the first bad-like "
                           "state (the others did not build or run)";
        return;
    }
    note_failures(bench, timeline[lo], timeline[hi]);
    bench.link_outputs(timeline[lo], timeline[hi]);
    name_culprit(steps[hi - 1]);
}

void HourlyStage::name_culprit(const core::TimelineStep& step) {
    m_result.culprit = core::Culprit{step.repo, step.commit, ""};
    if (m_result.changed_repos.size() > 1) {
        std::vector<std::string> others;
        for (const auto& r : m_result.changed_repos)
            if (r != step.repo)
                others.push_back(r);
        m_result.culprit->note = step.repo + " carries the change; " + util::join(others, ", ") +
                                 " also changed in the window but not at the culprit step";
    } else {
        m_result.culprit->note = "only " + step.repo + " changed in the window";
    }
    m_result.conclusion = core::HourlyConclusion::culprit;
    m_result.message = "culprit: " + step.repo + " " + step.commit.sha + " \"" +
                       step.commit.subject + "\" (" + m_result.culprit->note + ")";
}

core::HourlyResult HourlyStage::finish(const SourceBench& bench) {
    for (std::size_t d = 0; d < m_distinct.size(); ++d) {
        auto& s = m_result.states[m_distinct_state[d]];
        s.status = m_outs[d].status;
        s.values = m_outs[d].values;
        s.reason = m_outs[d].reason;
    }
    if (m_commit_stage) {
        bench.refresh(m_result.states);
        bench.refresh(m_result.commit_steps);
    }
    return std::move(m_result);
}

} // namespace

core::HourlyResult run_hourly(const HourlyOptions& options, ports::Adapters& adapters,
                              const SourceInstruments& with) {
    const auto held = hold_state(adapters.files, options.state_dir); // one search per --state
    HourlyStage stage(options, adapters);
    stage.open_repos();
    stage.resolve_window(core::StateStatus::untested);
    if (auto none = stage.unchanged())
        return std::move(*none);
    SourceBench bench(options, adapters, with, stage.repos(), stage.result());
    if (stage.measure_ends(bench) && stage.narrow_window(bench) && options.to_commit)
        stage.narrow_commits(bench);
    return stage.finish(bench);
}

core::HourlyResult plan_hourly(const HourlyOptions& options, ports::Adapters& adapters) {
    HourlyStage stage(options, adapters);
    stage.open_repos();
    stage.resolve_window(core::StateStatus::planned);
    return stage.planned();
}

} // namespace perfsweep::app
