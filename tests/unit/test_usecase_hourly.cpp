// The hourly and commit stages in-process (tests/support/fakes): in-memory repos, a scripted
// builder and benchmark, the manual clock. What tests/integration/test_hourly.cpp checks by
// starting perfsweep over real git repos, for the stage's decisions (window ends, budgets, the
// commit stage, resume), in milliseconds.
#include "app/hourly.hpp"
#include "app/options.hpp"
#include "core/build_store.hpp"
#include "support/fakes/world.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

using namespace perfsweep;

namespace {

constexpr util::UnixSeconds k_t0 = 1714521600; // 2024-05-01T00:00:00Z

/// One repo, xla, with a commit every 40 minutes from 2024-04-30T23:00Z; from commit `culprit`
/// on the benchmark is `drop` slower (0.04 % deterministic noise).
struct Stage {
    fakes::World w;
    fakes::CommitLine xla = fakes::make_line("xla", "/src/xla", k_t0 - 3600, 80, 2400);
    std::size_t culprit = 40; // 2024-05-01T25:40 = 2024-05-02T01:40Z
    double drop = 0.10;
    ports::RunnerConfig rc;

    Stage() {
        w.repos.add(xla);
        w.runners.run = [this](const ports::PointRequest& r, int repeat) {
            const auto i = xla.index_of(r.commits.at("xla"));
            const double noise = 1 + 0.0004 * ((repeat * 7 + static_cast<int>(i)) % 3 - 1);
            return fakes::Run::of((i >= culprit ? 100 * (1 - drop) : 100.0) * noise);
        };
        rc.runtime = "none";
        rc.build_command = "build {path:xla}";
        rc.test_command = "bench";
        rc.metric = "MLUPS";
    }
    /// The options of `hourly --repo xla=/src/xla --from T0 --to T0+48h` (the planners' defaults).
    app::HourlyOptions options() const {
        app::HourlyOptions o;
        o.repos.push_back({"xla", "/src/xla", "origin/main"});
        o.from = util::time_at(k_t0);
        o.to = util::time_at(k_t0 + 48 * 3600);
        o.settings_key = app::journal_identity(o, rc);
        return o;
    }
    core::HourlyResult run(const app::HourlyOptions& o) {
        auto runner = w.runners.make(rc);
        return app::run_hourly(o, w.adapters, {*runner, *runner});
    }
    std::size_t lines_with(const std::string& part) const {
        return static_cast<std::size_t>(
            std::count_if(w.progress.lines.begin(), w.progress.lines.end(),
                          [&](const std::string& l) { return l.find(part) != std::string::npos; }));
    }
};

/// The stage named the culprit commit of `s`.
void check_culprit(const core::HourlyResult& r, const Stage& s) {
    INFO(r.message);
    REQUIRE(r.conclusion == core::HourlyConclusion::culprit);
    CHECK(r.culprit->repo == "xla");
    CHECK(r.culprit->commit.sha == s.xla.sha(s.culprit));
}

bool built_once_each(const fakes::RunLog& log) {
    return std::all_of(log.builds.begin(), log.builds.end(),
                       [](const auto& kv) { return kv.second == 1; });
}

} // namespace

TEST_CASE("hourly in-process: to the commit, every state built once, every run counted once",
          "[usecase][hourly]") {
    Stage s;
    auto o = s.options();
    o.to_commit = true;
    const auto r = s.run(o);
    check_culprit(r, s);
    CHECK(r.culprit->note == "only xla changed in the window");
    REQUIRE(r.last_good);
    REQUIRE(r.first_bad);
    CHECK(r.last_good->time < s.xla.commits[s.culprit].time);
    CHECK(r.first_bad->time >= s.xla.commits[s.culprit].time);
    CHECK(r.spend.builds == s.w.runners.log.total_builds());
    CHECK(r.spend.runs == s.w.runners.log.total_runs());
    CHECK(built_once_each(s.w.runners.log));
    CHECK(r.metric == "MLUPS");
}

TEST_CASE("hourly in-process: without --to-commit the stage stops at the window and lists its "
          "commits",
          "[usecase][hourly]") {
    Stage s;
    const auto r = s.run(s.options());
    REQUIRE(r.conclusion == core::HourlyConclusion::window);
    CHECK(r.commit_steps.empty());
    CHECK(r.changed_repos == std::vector<std::string>{"xla"});
    const auto& c = r.candidates.at("xla");
    CHECK(std::any_of(c.begin(), c.end(),
                      [&](const core::CommitInfo& x) { return x.sha == s.xla.sha(s.culprit); }));
    CHECK_THAT(r.message, Catch::StartsWith("window: "));
    // The grid states carry what was measured: the window's ends are good and bad.
    std::size_t good = 0, bad = 0;
    for (const auto& st : r.states) {
        good += st.status == core::StateStatus::good ? 1 : 0;
        bad += st.status == core::StateStatus::bad ? 1 : 0;
    }
    CHECK(good >= 1);
    CHECK(bad >= 1);
}

TEST_CASE("hourly in-process: window ends that do not differ double their runs up to the cap, "
          "then say no change",
          "[usecase][hourly][ends]") {
    Stage s;
    s.drop = 0;
    auto o = s.options();
    o.to_commit = true;
    const auto r = s.run(o);
    CHECK(r.conclusion == core::HourlyConclusion::no_change);
    CHECK_THAT(r.message, Catch::StartsWith("the window ends do not differ significantly"));
    // 3 runs, +3, +6: 12 runs at each end (max_repeats), no state between them tested.
    CHECK(s.lines_with("window ends undecided") == 2);
    CHECK(s.lines_with("3 more runs each") == 1);
    CHECK(s.lines_with("6 more runs each") == 1);
    CHECK(s.w.runners.log.total_runs() == 24);
    CHECK(r.states.front().status == core::StateStatus::unknown);
    CHECK(r.states.front().values.size() == 12);
    CHECK(r.states.back().values.size() == 12);
}

TEST_CASE("hourly in-process: window ends undecided at first get more runs, then the search "
          "goes on",
          "[usecase][hourly][ends]") {
    Stage s;
    s.drop = 0.05;
    const auto quiet = s.w.runners.run;
    s.w.runners.run = [quiet](const ports::PointRequest& r, int repeat) {
        auto run = quiet(r, repeat);
        if (repeat < 4) // +3 %, -3 %, 0, +3 %: a warm-up the noise hides the step in
            run.value *= 1 + 0.03 * (repeat % 3 == 0 ? 1 : repeat % 3 == 1 ? -1 : 0);
        return run;
    };
    const auto r = s.run(s.options());
    INFO(util::join(s.w.progress.lines, "\n"));
    CHECK(s.lines_with("window ends undecided (change -") == 1);
    CHECK(s.lines_with("): 3 more runs each") == 1);
    CHECK(r.conclusion == core::HourlyConclusion::window);
}

TEST_CASE("hourly in-process: no repo changed inside the window: no change, nothing built",
          "[usecase][hourly]") {
    Stage s;
    auto o = s.options();
    const auto t = s.xla.commits[10].time;
    o.from = util::time_at(t + 60);
    o.to = util::time_at(t + 1800); // before the next commit
    const auto r = s.run(o);
    CHECK(r.conclusion == core::HourlyConclusion::no_change);
    CHECK_THAT(r.message, Catch::StartsWith("no repo changed between"));
    CHECK(s.w.runners.log.total_builds() == 0);
    CHECK(s.w.runners.log.total_runs() == 0);
}

TEST_CASE("hourly in-process: a window end that does not build makes the stage inconclusive",
          "[usecase][hourly]") {
    Stage s;
    const auto good_end = s.xla.sha(s.xla.at_time(k_t0));
    s.w.runners.build = [good_end](const ports::PointRequest& r) {
        return r.commits.at("xla") == good_end ? ports::StepOutcome{false, "compile error", ""}
                                               : ports::StepOutcome{true, "", ""};
    };
    const auto r = s.run(s.options());
    CHECK(r.conclusion == core::HourlyConclusion::inconclusive);
    CHECK_THAT(r.message, Catch::StartsWith("the window ends must build and run: last good "
                                            "build_failed (compile error), first bad ok"));
    CHECK(r.states.front().status == core::StateStatus::build_failed);
    CHECK(r.states.back().status == core::StateStatus::bad);
    CHECK_FALSE(r.budget_exhausted);
}

TEST_CASE("hourly in-process: --max-builds stops the search with the window so far",
          "[usecase][hourly][budget]") {
    Stage s;
    auto o = s.options();
    o.max_builds = 4;
    o.to_commit = true;
    const auto r = s.run(o);
    CHECK(r.conclusion == core::HourlyConclusion::inconclusive);
    CHECK(r.budget_exhausted);
    CHECK(r.spend.builds == 4);
    CHECK(s.w.runners.log.total_builds() == 4);
    CHECK_THAT(r.message, Catch::Contains("budget exhausted"));
}

TEST_CASE("hourly in-process: --max-time stops the search on the clock",
          "[usecase][hourly][budget]") {
    Stage s;
    s.w.runners.seconds_per_run = 120;
    auto o = s.options();
    o.max_time = std::chrono::minutes{15}; // the ends' 6 runs take 12 minutes
    const auto r = s.run(o);
    CHECK(r.conclusion == core::HourlyConclusion::inconclusive);
    CHECK(r.budget_exhausted);
    CHECK(s.w.runners.log.total_runs() <= 9);
}

TEST_CASE("hourly in-process: a stopped search resumes from its journal without building a state "
          "twice",
          "[usecase][hourly][resume]") {
    Stage s;
    auto o = s.options();
    o.state_dir = "st";
    o.to_commit = true;
    o.max_builds = 5;
    const auto first = s.run(o);
    REQUIRE(first.budget_exhausted);
    CHECK(first.spend.builds == 5);
    o.max_builds = 0;
    const auto again = s.run(o);
    INFO(again.message);
    CHECK(s.lines_with("resuming from st/journal.tsv: 5 builds") == 1);
    REQUIRE(again.conclusion == core::HourlyConclusion::culprit);
    CHECK(again.culprit->commit.sha == s.xla.sha(s.culprit));
    CHECK(again.spend.resumed_builds == 5);
    CHECK(again.spend.resumed_runs == first.spend.runs);
    CHECK(again.spend.builds == s.w.runners.log.total_builds()); // both invocations
    CHECK(built_once_each(s.w.runners.log));
}

TEST_CASE("hourly in-process: a state directory of other settings is refused, not reused",
          "[usecase][hourly][resume]") {
    Stage s;
    auto o = s.options();
    o.state_dir = "st";
    o.max_builds = 2;
    s.run(o);
    o.repeats = 5;
    o.settings_key = app::journal_identity(o, s.rc);
    CHECK_THROWS_WITH(s.run(o), Catch::Contains("st/journal.tsv holds a different sweep"));
}

TEST_CASE("hourly in-process: a window given by commits (--good-commits/--bad-commits)",
          "[usecase][hourly]") {
    Stage s;
    auto o = s.options();
    o.from.reset();
    o.to.reset();
    o.good_commits["xla"] = s.xla.sha(20);
    o.bad_commits["xla"] = s.xla.sha(60);
    o.to_commit = true;
    const auto r = s.run(o);
    check_culprit(r, s);
    CHECK(r.states.front().commits.at("xla") == s.xla.sha(20));
    CHECK(r.states.back().commits.at("xla") == s.xla.sha(60));
}

TEST_CASE("hourly in-process: --plan lists the grid's states and runs nothing",
          "[usecase][hourly][plan]") {
    Stage s;
    auto o = s.options();
    o.to = util::time_at(k_t0 + 6 * 3600);
    o.step = std::chrono::minutes{20};
    const auto r = app::plan_hourly(o, s.w.adapters);
    CHECK(r.conclusion == core::HourlyConclusion::planned);
    REQUIRE(r.states.size() == 19); // 6 h at 20 min, both ends
    std::size_t planned = 0, duplicate = 0;
    for (const auto& st : r.states) {
        planned += st.status == core::StateStatus::planned ? 1 : 0;
        duplicate += st.status == core::StateStatus::duplicate ? 1 : 0;
    }
    CHECK(planned == 10); // a commit every 40 minutes: every other grid point is a new state
    CHECK(duplicate == 9);
    CHECK(r.message == "19 states, 10 distinct");
    CHECK(s.w.runners.log.total_builds() + s.w.runners.log.total_runs() == 0);
}

TEST_CASE("hourly in-process: two repos changed, the commit stage names the one carrying the "
          "change",
          "[usecase][hourly]") {
    Stage s;
    auto jax = fakes::make_line("jax", "/src/jax", k_t0 - 1800, 60, 3600);
    s.w.repos.add(jax);
    auto o = s.options();
    o.repos.push_back({"jax", "/src/jax", "origin/main"});
    o.to_commit = true;
    const auto r = s.run(o);
    check_culprit(r, s);
    CHECK(r.culprit->note == "xla carries the change; jax also changed in the window but not at "
                             "the culprit step");
    CHECK(built_once_each(s.w.runners.log));
}

TEST_CASE("hourly in-process: exit-code mode finds the commit that starts failing",
          "[usecase][hourly][exit-code]") {
    Stage s;
    s.rc.exit_code_mode = true;
    s.w.runners.run = [&s](const ports::PointRequest& r, int) {
        return fakes::Run::exit(s.xla.index_of(r.commits.at("xla")) >= s.culprit ? 1 : 0);
    };
    auto o = s.options();
    o.exit_code_mode = true;
    o.to_commit = true;
    o.settings_key = app::journal_identity(o, s.rc);
    const auto r = s.run(o);
    check_culprit(r, s);
    CHECK(r.failure_rates);
    CHECK(r.good_runs.failed == 0);
    CHECK(r.bad_runs.passed == 0);
    CHECK(r.bad_runs.failed >= 1);
}

TEST_CASE("hourly in-process: exit-code mode aborts on a status of 128 or more, the state kept",
          "[usecase][hourly][exit-code]") {
    Stage s;
    s.rc.exit_code_mode = true;
    s.w.runners.run = [](const ports::PointRequest&, int) { return fakes::Run::exit(130); };
    auto o = s.options();
    o.exit_code_mode = true;
    o.state_dir = "st";
    o.settings_key = app::journal_identity(o, s.rc);
    CHECK_THROWS_WITH(s.run(o), Catch::Contains("statuses of 128 and above abort the search"));
    // The build is committed to the journal, the aborted run is not.
    const auto& journal = s.w.files.files.at("st/journal.tsv");
    CHECK(journal.find("\nbuild\t") != std::string::npos);
    CHECK(journal.find("\nrun\t") == std::string::npos);
}

TEST_CASE("hourly in-process: a --state another perfsweep holds stops before a build (issue 29)",
          "[usecase][hourly][locks]") {
    Stage s;
    auto o = s.options();
    o.state_dir = "st";
    s.w.files.held_elsewhere.insert("st");
    CHECK_THROWS_WITH(s.run(o), Catch::Contains("holds --state st"));
    CHECK(s.w.runners.log.total_builds() == 0);
    CHECK(s.w.runners.log.total_runs() == 0);
}

// ---- Build once per state (issue 27): kept builds are put back instead of rebuilt -------------

namespace {

/// A builder that keeps builds: each state's builds and put-backs are counted, and the benchmark
/// measures the build put in place last, not the state it is asked about (a put-back that did
/// not happen measures the wrong state).
struct Kept {
    std::map<std::string, int> built, restored;
    std::string current; ///< the xla commit of the build in place

    /// Wire `s` to it; `o` keeps its builds in the store "builds" under `recipe` (0: none).
    void wire(Stage& s, app::HourlyOptions& o, const std::string& recipe = "build {build_dir}",
              std::size_t keep = 12) {
        o.builds.dir = "builds";
        o.builds.recipe = recipe;
        o.builds.keep = keep;
        o.builds.restore_step = true;
        s.w.runners.build = [this](const ports::PointRequest& r) {
            (r.values.at("build_mode") == "restore" ? restored
                                                    : built)[fakes::state_key(r.commits)]++;
            current = r.commits.at("xla");
            return ports::StepOutcome{true, "", ""};
        };
        const auto run = s.w.runners.run;
        s.w.runners.run = [this, run](const ports::PointRequest& r, int repeat) {
            auto in_place = r;
            in_place.commits["xla"] = current;
            return run(in_place, repeat);
        };
    }
    /// Builds of a state built before (the goal: none).
    int rebuilt() const {
        int n = 0;
        for (const auto& [state, k] : built)
            n += k - 1;
        return n;
    }
    int sum(const std::map<std::string, int>& m) const {
        int n = 0;
        for (const auto& [state, k] : m)
            n += k;
        return n;
    }
};

/// Window ends a noisy warm-up leaves undecided at first: the ends get 3 more runs each, the
/// current one first, so the other end is visited again.
void undecided_ends(Stage& s) {
    s.drop = 0.05;
    const auto quiet = s.w.runners.run;
    s.w.runners.run = [quiet](const ports::PointRequest& r, int repeat) {
        auto run = quiet(r, repeat);
        if (repeat < 4)
            run.value *= 1 + 0.03 * (repeat % 3 == 0 ? 1 : repeat % 3 == 1 ? -1 : 0);
        return run;
    };
}

/// A stage whose builds are kept: `setup` shapes the benchmark first, then the options keep
/// builds in the store "builds".
struct KeptStage {
    Stage s;
    Kept k;
    app::HourlyOptions o;
    explicit KeptStage(void (*setup)(Stage&)) {
        setup(s);
        o = s.options();
        k.wire(s, o);
    }
};

} // namespace

TEST_CASE("hourly in-process: a state visited again is put back from the build store, not "
          "rebuilt",
          "[usecase][hourly][builds]") {
    { // without a store (as before): the good end is built twice
        Stage s;
        undecided_ends(s);
        const auto r = s.run(s.options());
        CHECK(r.conclusion == core::HourlyConclusion::window);
        CHECK_FALSE(built_once_each(s.w.runners.log));
    }
    KeptStage ks(undecided_ends);
    auto& [s, k, o] = ks;
    const auto r = s.run(o);
    INFO(util::join(s.w.progress.lines, "\n"));
    CHECK(r.conclusion == core::HourlyConclusion::window);
    CHECK(k.rebuilt() == 0);
    CHECK(k.sum(k.restored) >= 1);
    CHECK(r.spend.builds == k.sum(k.built));
    CHECK(r.spend.restored_builds == k.sum(k.restored));
    CHECK(r.spend.avoided_builds == r.spend.restored_builds);
    CHECK(s.lines_with("kept build put back (not rebuilt)") ==
          static_cast<std::size_t>(k.sum(k.restored)));
}

TEST_CASE("hourly in-process: a resumed search puts back what the stopped one built",
          "[usecase][hourly][builds][resume]") {
    auto stop_and_resume = [](Stage& s, app::HourlyOptions o) {
        o.state_dir = "st";
        o.max_builds = 2; // the ends; the good end's further runs need it again
        const auto first = s.run(o);
        REQUIRE(first.budget_exhausted);
        o.max_builds = 0;
        return s.run(o);
    };
    { // without a store (as before): the resumed search builds the good end again
        Stage s;
        undecided_ends(s);
        stop_and_resume(s, s.options());
        CHECK_FALSE(built_once_each(s.w.runners.log));
    }
    KeptStage ks(undecided_ends);
    auto& [s, k, o] = ks;
    const auto r = stop_and_resume(s, o);
    INFO(util::join(s.w.progress.lines, "\n"));
    CHECK(r.conclusion == core::HourlyConclusion::window);
    CHECK(k.rebuilt() == 0);
    CHECK(k.sum(k.restored) >= 1);
    // The counts read back from the journal: the resumed result counts both invocations.
    CHECK(r.spend.resumed_builds == 2);
    CHECK(r.spend.builds == k.sum(k.built));
    CHECK(r.spend.restored_builds == k.sum(k.restored));
}

TEST_CASE("hourly in-process: the build store is keyed by the recipe: another recipe builds "
          "again, the same one rebuilds nothing",
          "[usecase][hourly][builds]") {
    Stage s;
    Kept k;
    auto search = [&](const std::string& state, const std::string& recipe) {
        auto o = s.options();
        o.to_commit = true;
        o.state_dir = state;
        k.wire(s, o, recipe);
        k.built.clear();
        k.restored.clear();
        return s.run(o);
    };
    const auto first = search("st1", "build {build_dir}");
    check_culprit(first, s);
    const auto built_first = k.sum(k.built);
    CHECK(built_first == first.spend.builds);
    CHECK(k.sum(k.restored) == 0);
    // A second search (its own journal) with the same recipe: every state is put back.
    const auto same = search("st2", "build {build_dir}");
    check_culprit(same, s);
    CHECK(k.sum(k.built) == 0);
    CHECK(k.sum(k.restored) == built_first);
    CHECK(same.spend.builds == 0);
    CHECK(same.spend.restored_builds == built_first);
    // Another recipe: nothing kept counts for it.
    const auto other = search("st3", "build -O3 {build_dir}");
    check_culprit(other, s);
    CHECK(k.sum(k.built) == built_first);
    CHECK(k.sum(k.restored) == 0);
}

TEST_CASE("hourly in-process: the build store stays within --keep-builds, least recently used "
          "out first, and refuses a damaged index",
          "[usecase][hourly][builds]") {
    Stage s;
    Kept k;
    auto o = s.options();
    o.to_commit = true;
    k.wire(s, o, "build {build_dir}", 2);
    const auto r = s.run(o);
    check_culprit(r, s);
    const auto index = core::parse_build_index(s.w.files.read_text("builds/index.tsv"), "index");
    REQUIRE(index.builds.size() == 2);
    std::size_t entries = 0;
    for (const auto& d : s.w.files.dirs)
        entries += d.rfind("builds/", 0) == 0 ? 1 : 0;
    CHECK(entries == 2); // the evicted builds' directories are gone
    core::BuildIndex i;
    i.touch("a");
    i.touch("b");
    i.touch("a");
    i.touch("c");
    CHECK(i.evict(2) == std::vector<std::string>{core::build_entry("b")});
    CHECK(core::parse_build_index(core::format_build_index(i), "x").builds.size() == 2);
    CHECK(core::build_entry(core::build_key("r1", {{"xla", "1"}})) !=
          core::build_entry(core::build_key("r2", {{"xla", "1"}})));
    s.w.files.files["builds/index.tsv"] += "0123456789abcdef\t1\tnot its key\n";
    CHECK_THROWS_WITH(s.run(o), Catch::Contains("builds/index.tsv:4: field 3 (key): it does not "
                                                "match its entry"));
}

TEST_CASE("hourly in-process: the commit stage puts back the hourly stage's builds instead of "
          "rebuilding them",
          "[usecase][hourly][builds]") {
    // A noisy benchmark (1 %, a fixed pseudo-random sequence per window): the commit stage's
    // undecided pairs need more runs of window states the hourly stage built.
    struct Counts {
        int commit_rebuilt = 0, commit_put_back = 0, rebuilt = 0, exact = 0;
    };
    auto windows = [](bool keep) {
        Counts c;
        for (std::uint64_t seed = 1; seed <= 12; ++seed) {
            Stage s;
            s.drop = 0.05;
            s.w.runners.run = [&s, seed](const ports::PointRequest& r, int repeat) {
                const auto i = s.xla.index_of(r.commits.at("xla"));
                std::uint64_t h = (seed * 1000003u + i * 7919u + static_cast<unsigned>(repeat)) *
                                  0x9e3779b97f4a7c15ull;
                const double u = static_cast<double>(h >> 11) / 9007199254740992.0; // [0, 1)
                return fakes::Run::of((i >= s.culprit ? 100 * (1 - s.drop) : 100.0) *
                                      (1 + 0.02 * (u - 0.5)));
            };
            Kept k;
            auto o = s.options();
            o.to_commit = true;
            if (keep)
                k.wire(s, o);
            std::map<std::string, core::Stage> first; // each state's first build's stage
            const auto script = s.w.runners.build;
            s.w.runners.build = [&](const ports::PointRequest& r) {
                const auto key = fakes::state_key(r.commits);
                const bool restore =
                    r.values.count("build_mode") && r.values.at("build_mode") == "restore";
                if (!restore && !first.emplace(key, r.stage).second) {
                    ++c.rebuilt;
                    c.commit_rebuilt +=
                        r.stage == core::Stage::commit && first.at(key) == core::Stage::hourly ? 1
                                                                                               : 0;
                }
                if (restore && r.stage == core::Stage::commit &&
                    first.at(key) == core::Stage::hourly)
                    ++c.commit_put_back;
                return script ? script(r) : ports::StepOutcome{true, "", ""};
            };
            const auto r = s.run(o);
            c.exact += r.culprit && r.culprit->commit.sha == s.xla.sha(s.culprit) ? 1 : 0;
        }
        return c;
    };
    const auto before = windows(false); // as before: no kept builds
    CHECK(before.commit_rebuilt > 0);
    const auto after = windows(true);
    CHECK(after.rebuilt == 0);
    CHECK(after.commit_put_back > 0);
    CHECK(after.exact >= before.exact);
}
