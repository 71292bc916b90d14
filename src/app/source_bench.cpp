#include "app/source_bench.hpp"

#include "core/commit_text.hpp"
#include "core/exit_code.hpp"
#include "core/stats.hpp"
#include "util/crash_point.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <cmath>

namespace perfsweep::app {

namespace {

std::string single_line(std::string s) {
    for (auto& ch : s)
        if (ch == '\t' || ch == '\n' || ch == '\r')
            ch = ' ';
    return s;
}

/// A state that cannot be measured (build_failed, test_failed) as it is, else every value of it.
Eval known(const core::StateFacts& f) {
    if (core::is_broken(f.status))
        return {f.status, {}, f.reason};
    return {core::StateStatus::unknown, f.values, ""};
}

/// The name of a state's output directory: every repo's short SHA (one directory per tested
/// tree, whichever stage or grid time tested it).
std::string output_name(const core::SourceState& p) {
    std::string n;
    for (const auto& [name, sha] : p.commits)
        n += (n.empty() ? "" : "_") + name + "-" + sha.substr(0, 10);
    return n;
}

core::JournalEvent event(core::JournalEvent::Kind kind, const std::string& key) {
    core::JournalEvent e;
    e.kind = kind;
    e.point = key;
    return e;
}

} // namespace

std::string state_key(const std::map<std::string, std::string>& commits) {
    std::string k;
    for (const auto& [name, sha] : commits)
        k += (k.empty() ? "" : ",") + name + "=" + sha;
    return k;
}

SourceBench::SourceBench(const HourlyOptions& o, ports::Adapters& a, const SourceInstruments& with,
                         std::vector<std::unique_ptr<ports::SourceRepo>>& repos,
                         core::HourlyResult& r)
    : m_opt(o), m_a(a), m_with(with), m_repos(repos), m_result(r),
      m_journal(a.files, o.state_dir, "hourly", o.settings_key), m_start(a.clock.now()) {
    for (const auto& e : m_journal.resumed())
        m_book.apply(e, true);
    // The build output is the last finished build's (also across a kill: the journal's
    // building/build records), whatever HEAD says.
    m_built_key = m_book.built();
    if (!m_journal.resumed().empty())
        m_a.progress.line("resuming from " + m_journal.path() + ": " +
                          std::to_string(m_book.spend().builds) + " builds, " +
                          std::to_string(m_book.spend().runs) + " runs");
    m_result.spend = m_book.spend();
    load_evidence();
    if (!o.builds.dir.empty()) {
        m_store.emplace(a.files, a.progress, o.builds);
        // Strict keys: the recipe, the runner's machine (--sm local builds for its GPUs) and
        // every repo's commit.
        const auto machine = with.runner.runner_fingerprint();
        m_recipe = o.builds.recipe + "\nmachine " + core::fingerprint_key(machine);
    }
}

std::string SourceBench::build_key(const std::string& key) const {
    return core::build_key(m_recipe, {{"state", key}});
}

void SourceBench::load_evidence() {
    const auto& ev = m_opt.evidence;
    if (!m_with.evidence || !ev.reuse)
        return;
    m_want.recipe = ev.recipe;
    m_want.image = ev.image;
    const auto machine = m_with.runner.runner_fingerprint();
    if (machine.empty())
        return; // a runner that does not tell its machine up front: nothing is comparable
    m_want.runner = core::fingerprint_key(machine);
    m_want.benchmark = ev.benchmark;
    m_want.metric = ev.metric;
    auto load = m_with.evidence->load();
    for (auto& m : load.records)
        if (m.benchmark == ev.benchmark && m.metric == ev.metric && !m.commits.empty())
            m_evidence.push_back(std::move(m));
}

void SourceBench::consult(const core::SourceState& p) {
    const auto key = state_key(p.commits);
    const auto* f = m_book.find(key);
    if (m_consulted.count(key))
        return;
    m_consulted[key] = f ? f->values.size() : 0;
    if (m_evidence.empty() || (f && core::is_broken(f->status)))
        return;
    auto want = m_want;
    want.commits = p.commits;
    auto found = core::find_evidence(m_evidence, want,
                                     m_opt.exit_code_mode ? std::vector<std::string>{}
                                                          : m_opt.evidence.admissible_images,
                                     m_opt.exit_code_mode);
    const auto label = util::format_iso8601(p.time) + "  " + core::format_commits(p.commits);
    if (!found.exact.empty() && !(f && f->runs > 0)) { // else the journal's runs are they
        m_book.reuse(key, found.exact);
        m_a.progress.line(label + "  known: " + std::to_string(found.exact.size()) +
                          " values from " + m_with.evidence->describe());
    }
    if (!found.same_sources.empty()) // pooled once a run of the rebuild agrees (confirm)
        m_pending[key] = std::move(found);
    m_result.spend = m_book.spend();
}

void SourceBench::consult_ends(const core::SourceState& good, const core::SourceState& bad) {
    consult(good);
    consult(bad);
    auto level = [this](const core::SourceState& p) -> std::optional<double> {
        const auto key = state_key(p.commits);
        if (const auto it = m_pending.find(key); it != m_pending.end())
            return core::median(it->second.same_sources);
        if (const auto* f = m_book.find(key); f && !f->values.empty())
            return core::median(f->values);
        return std::nullopt;
    };
    const auto g = level(good), b = level(bad);
    m_step = g && b ? std::abs(*g - *b) : 0;
}

// The same sources' values built by another recipe (a nightly's own build) join the state once
// one run of the rebuild agrees with them: the first such state of the stage gets that run; if
// it disagrees, no such evidence counts in this stage.
void SourceBench::confirm(const core::SourceState& p, core::Stage stage) {
    const auto key = state_key(p.commits);
    const auto it = m_pending.find(key);
    if (it == m_pending.end())
        return;
    const auto found = std::move(it->second);
    m_pending.erase(it);
    const auto label = util::format_iso8601(p.time) + "  " + core::format_commits(p.commits);
    const auto from = "nightly " + util::join(found.labels, ", ");
    if (!m_recipe_agrees) {
        const auto* f = m_book.find(key);
        if (!f || f->values.empty())
            run_state(p, stage, 1);
        f = m_book.find(key);
        if (!f || f->values.empty())
            return; // it did not build or run: measured (or skipped) as any state
        m_recipe_agrees =
            core::evidence_confirmed(found.same_sources, f->values, m_step, k_hourly_alpha);
        m_a.progress.line(label + "  the rebuild " +
                          (*m_recipe_agrees ? "agrees with " : "differs from ") + from + " (" +
                          util::format_fixed(core::median(f->values), 3) + " vs " +
                          util::format_fixed(core::median(found.same_sources), 3) + ")" +
                          (*m_recipe_agrees ? "" : ": its values are not reused"));
    }
    if (!*m_recipe_agrees)
        return;
    m_book.reuse(key, found.same_sources);
    m_a.progress.line(label + "  known: " + std::to_string(found.same_sources.size()) +
                      " values of " + from);
    m_result.spend = m_book.spend();
}

Eval SourceBench::measure(const core::SourceState& p, core::Stage stage) {
    consult(p);
    const auto key = state_key(p.commits);
    const auto want = static_cast<std::size_t>(m_opt.repeats);
    const auto before = m_book.spend();
    const bool built = m_built_key == key;
    confirm(p, stage);
    const auto* f = m_book.find(key);
    if (!f || (!core::is_broken(f->status) && f->values.size() < want))
        run_state(p, stage, static_cast<int>(want - (f ? f->values.size() : 0)));
    // What the evidence spared: the runs (and the build) the state would have needed without it.
    const auto had = m_consulted[key];
    const long needed = had >= want ? 0 : static_cast<long>(want - had);
    const long ran = m_book.spend().runs - before.runs;
    const long builds = m_book.spend().builds - before.builds +
                        (m_book.spend().restored_builds - before.restored_builds);
    if (needed > 0 && !core::is_broken(m_book.find(key)->status)) {
        m_book.avoided(std::max(0L, needed - ran), builds == 0 && !built ? 1 : 0);
        m_result.spend = m_book.spend();
    }
    return known(*m_book.find(key));
}

Eval SourceBench::more(const core::SourceState& p, core::Stage stage, int runs) {
    return run_state(p, stage, runs);
}

void SourceBench::refresh(std::vector<core::StateOutcome>& states) const {
    for (auto& s : states)
        if (const auto* f = m_book.find(state_key(s.commits)); f && !s.duplicate)
            s.values = f->values;
}

const core::StateFacts* SourceBench::facts(const core::SourceState& p) const {
    return m_book.find(state_key(p.commits));
}

void SourceBench::link_outputs(const core::SourceState& good, const core::SourceState& bad) {
    if (m_opt.outputs_dir.empty())
        return;
    for (const auto& [link, p] :
         {std::pair<const char*, const core::SourceState*>{"last-good", &good},
          {"first-bad", &bad}}) {
        m_a.files.make_dirs(m_opt.outputs_dir + "/" + output_name(*p));
        m_a.files.point_link(m_opt.outputs_dir + "/" + link, output_name(*p));
    }
    auto line = "outputs: " + m_opt.outputs_dir + "/last-good -> " + output_name(good) +
                ", first-bad -> " + output_name(bad);
    if (line != m_outputs_line) // the commit stage may confirm the window
        m_a.progress.line(line);
    m_outputs_line = std::move(line);
}

core::SweepResult SourceBench::search(const std::vector<core::SourceState>& points,
                                      core::Stage stage, core::SweepStrategy strategy,
                                      std::vector<core::StateOutcome>& outs, bool& stopped) {
    std::vector<std::string> keys, labels;
    for (const auto& p : points) {
        keys.push_back(state_key(p.commits));
        labels.push_back(util::format_iso8601(p.time) + " " + core::format_commits(p.commits));
    }
    core::SweepOptions so;
    so.strategy = strategy;
    // Inner states start with one run (the window ends' repeats give the noise); undecided ones
    // add runs by need, up to the same cap as the window ends.
    so.repeats = 1;
    so.min_span = m_opt.min_span;
    so.max_repeats = std::max(m_opt.max_repeats, m_opt.repeats);
    so.alpha = k_hourly_alpha;
    so.direction = m_opt.direction;
    so.workers = 1;
    if (m_opt.exit_code_mode)
        so.comparison = core::ComparisonKind::pass_fail;
    for (const auto& p : points) { // known states join from the evidence before anything runs
        consult(p);
        if (m_recipe_agrees.value_or(false))
            confirm(p, stage);
    }
    core::SourcePlan plan(keys, labels, so);
    stopped = false;
    for (plan.sync(m_book); const auto step = plan.next(m_book); plan.sync(m_book)) {
        const auto& p = points[step->index];
        const Eval ev = run_state(p, stage, step->runs);
        if (ev.budget()) {
            stopped = true;
            break;
        }
        report(p, ev.measured() ? "median " + util::format_fixed(core::median(ev.values), 3)
                                : std::string(core::to_string(ev.status)) + ": " + ev.reason);
    }
    plan.sync(m_book);
    auto res = plan.result(stopped ? "budget exhausted" : "");
    const auto* b = core::regression_boundary(res);
    for (std::size_t i = 0; i < points.size(); ++i) {
        const auto* f = m_book.find(keys[i]);
        outs[i].status = core::search_status(f, i, b);
        if (!f)
            continue;
        outs[i].values = f->values;
        if (core::is_broken(f->status))
            outs[i].reason = f->reason;
    }
    return res;
}

bool SourceBench::budget_left(bool needs_build) const {
    if (needs_build && m_opt.max_builds > 0 && m_book.spend().builds >= m_opt.max_builds)
        return false;
    return m_opt.max_time.count() == 0 ||
           m_a.clock.now() - m_start < static_cast<double>(m_opt.max_time.count());
}

ports::PointRequest SourceBench::request(const core::SourceState& p, core::Stage stage) const {
    ports::PointRequest req;
    req.label = util::format_iso8601(p.time);
    req.stage = stage;
    req.values["time"] = req.label;
    for (const auto& repo : m_repos) {
        const auto& sha = p.commits.at(repo->name());
        req.values["commit:" + repo->name()] = sha;
        const auto inside = m_opt.repo_paths_in_runner.find(repo->name());
        req.values["path:" + repo->name()] =
            inside == m_opt.repo_paths_in_runner.end() ? repo->path() : inside->second;
        req.commits[repo->name()] = sha;
        auto t = p.times.find(repo->name());
        if (t != p.times.end())
            req.commit_times[repo->name()] = util::format_iso8601(t->second);
    }
    req.repeats = 1;
    if (m_store) {
        req.values["build_dir"] = m_store->dir_in_runner(build_key(state_key(p.commits)));
        req.values["build_mode"] = "build";
    }
    if (!m_opt.outputs_dir.empty())
        req.values["output_dir"] =
            (m_opt.outputs_dir_in_runner.empty() ? m_opt.outputs_dir
                                                 : m_opt.outputs_dir_in_runner) +
            "/" + output_name(p);
    return req;
}

void SourceBench::checkout(const core::SourceState& p) {
    for (const auto& repo : m_repos)
        if (!m_checked_out || repo->head() != p.commits.at(repo->name()))
            repo->checkout(p.commits.at(repo->name()));
    m_checked_out = true;
    util::crash_point("hourly.after_checkout"); // at the state, its build not yet started
    if (!m_opt.outputs_dir.empty())
        m_a.files.make_dirs(m_opt.outputs_dir + "/" + output_name(p));
}

bool SourceBench::build(const std::string& key, const ports::PointRequest& req) {
    add(event(core::JournalEvent::Kind::building, key)); // the output is no state's now
    m_built_key.clear();
    if (m_store)
        m_store->clear(build_key(key));
    auto out = m_with.builder.build(req);
    util::crash_point("hourly.after_build"); // built, not yet recorded
    auto done = event(core::JournalEvent::Kind::build, key);
    done.ok = out.ok;
    done.reason = out.ok ? "" : single_line(out.reason);
    add(done);
    if (out.ok)
        m_built_key = key;
    if (out.ok && m_store)
        m_store->keep(build_key(key));
    return out.ok;
}

// The kept build of `key` made current again: the recipe's restore step ({build_mode} restore)
// or, when the benchmark reads the state's own {build_dir}, nothing to run. False when it could
// not be put back (the caller builds it).
bool SourceBench::put_back(const std::string& key, ports::PointRequest& req) {
    add(event(core::JournalEvent::Kind::building, key)); // the output is no state's now
    m_built_key.clear();
    ports::StepOutcome out{true, "", ""};
    if (m_store->settings().restore_step) {
        req.values["build_mode"] = "restore";
        out = m_with.builder.build(req);
        req.values["build_mode"] = "build";
    }
    auto done = event(core::JournalEvent::Kind::restored, key);
    done.ok = out.ok;
    done.reason = out.ok ? "" : single_line(out.reason);
    add(done);
    m_store->restored(build_key(key), out.ok);
    m_a.progress.line(
        req.label + "  " + core::format_commits(req.commits) + "  " +
        (out.ok ? "kept build put back (not rebuilt)"
                : "the kept build could not be put back (" + done.reason + "): building it again"));
    if (out.ok)
        m_built_key = key;
    return out.ok;
}

Eval SourceBench::run_state(const core::SourceState& p, core::Stage stage, int runs) {
    const auto key = state_key(p.commits);
    const auto* f = m_book.find(key);
    if (f && core::is_broken(f->status))
        return known(*f);
    // The worktree does not follow HEAD: a kill mid-checkout leaves it ahead of HEAD, so a fresh
    // process checks every repo out on its first round (libgit2 writes only the files that
    // differ).
    bool at_state = m_built_key == key;
    for (const auto& repo : m_repos)
        if (repo->head() != p.commits.at(repo->name()))
            at_state = false;
    const bool needs_build = !(f && f->built && at_state);
    // A kept build of the state (built before, in any stage or invocation) is put back instead.
    const bool kept = needs_build && m_store && m_store->kept(build_key(key));
    if (!budget_left(needs_build && !kept))
        return {core::StateStatus::untested, f ? f->values : std::vector<double>{},
                "budget exhausted"};
    checkout(p);
    auto req = request(p, stage);
    if (needs_build && !(kept && put_back(key, req))) {
        if (kept && !budget_left(true)) // it could not be put back, and a build is over budget
            return {core::StateStatus::untested, f ? f->values : std::vector<double>{},
                    "budget exhausted"};
        if (!build(key, req))
            return known(*m_book.find(key));
    }
    for (int k = 0; k < runs; ++k) {
        if (k > 0 && !budget_left(false))
            break;
        const auto* so_far = m_book.find(key);
        req.first_repeat = static_cast<int>(so_far ? so_far->runs : 0) + 1;
        auto ms = m_with.runner.run_points({req});
        if (ms.empty())
            throw_infra("hourly: the runner returned no measurement for " + req.label);
        util::crash_point("hourly.after_run"); // measured, not yet recorded
        auto& m = ms.front();
        if (const auto code = core::abort_code(m); code && m_opt.exit_code_mode)
            throw_infra("exit-code mode: " + req.label + " (" + core::format_commits(p.commits) +
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
        record_evidence(m);
        if (m.status != core::Status::ok || m.values.empty())
            break;
    }
    return known(*m_book.find(key)); // every value of the state so far
}

// Every run joins the evidence store (after the journal: a kill in between loses it from the
// store only, and the journal's resume asks nothing of the store for that state).
void SourceBench::record_evidence(core::Measurement m) const {
    if (!m_with.evidence || m.status == core::Status::missing)
        return;
    m.recipe = m_opt.evidence.recipe;
    m_with.evidence->append({m});
}

void SourceBench::add(const core::JournalEvent& e) {
    m_journal.append(core::journal_record(e)); // the journal first (durable), then the book
    m_book.apply(e, false);
    if (m_result.metric.empty())
        m_result.metric = m_book.metric();
    m_result.spend = m_book.spend(); // across invocations, the resumed part included
}

void SourceBench::report(const core::SourceState& p, const std::string& what) {
    m_a.progress.line(util::format_iso8601(p.time) + "  " + core::format_commits(p.commits) + "  " +
                      what);
}

} // namespace perfsweep::app
