// The hourly stage in-process (test::hourly_in_process: app::plan_hourly, app::run_hourly;
// options resolved by the CLI's rules) with the real local adapters: real git fixture repos at
// controlled committer times (libgit2), real build and test scripts reading the checked-out files
// (the process runner), a real kill -9 of a forked search. The only place tests call git for
// assertions is the `git rev-list -1 --before` equivalence check.

#include "support/env_guard.hpp"
#include "support/git_repo.hpp"
#include "support/local_world.hpp"
#include "support/temp_dir.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <catch2/catch.hpp>

#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <regex>
#include <set>

using namespace perfsweep;
namespace fs = std::filesystem;

namespace {

const util::UnixSeconds k_t0 = 1692835200; // 2023-08-24T00:00:00Z

/// The system python starts fast; a pyenv shim on PATH costs ~0.4 s per run.
std::string python() {
    return fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
}

std::string iso(double hours) {
    return util::format_iso8601(k_t0 + static_cast<util::UnixSeconds>(hours * 3600));
}

/// Runs git in `dir` with committer/author dates `hours` after k_t0; returns trimmed stdout.
std::string git(const std::string& dir, const std::vector<std::string>& args, double hours = 0) {
    return test::git_at(dir, args, k_t0 + static_cast<util::UnixSeconds>(hours * 3600));
}

std::string commit(const std::string& dir, double hours, const std::string& msg,
                   const std::map<std::string, std::string>& files,
                   const std::vector<std::string>& remove = {}) {
    for (const auto& [name, content] : files)
        test::write_file(dir + "/" + name, content);
    for (const auto& name : remove)
        fs::remove(dir + "/" + name);
    git(dir, {"add", "-A"});
    git(dir, {"commit", "-q", "-m", msg}, hours);
    return git(dir, {"rev-parse", "HEAD"});
}

/// Two repos: jax (a PR branch committed at 2h and merged at 6h, a build break at 4h fixed at
/// 4h20m) and xla (the culprit at 5h30m makes the benchmark 20% slower).
struct Fixture {
    test::TempDir dir{"perfsweep-hourly"};
    std::string jax = dir.file("jax");
    std::string xla = dir.file("xla");
    std::map<std::string, std::string> c; // label → sha

    Fixture() {
        for (const auto& [repo, url] : {std::pair{jax, "https://github.com/jax-ml/jax.git"},
                                        std::pair{xla, "git@github.com:openxla/xla.git"}}) {
            fs::create_directories(repo);
            git(repo, {"init", "-q", "-b", "main"});
            git(repo, {"remote", "add", "origin", url});
        }
        c["j0"] = commit(jax, -2, "init jax", {{"speed.txt", "100\n"}});
        c["j1"] = commit(jax, 1, "jax docs 1", {{"docs.txt", "1\n"}});
        git(jax, {"checkout", "-q", "-b", "pr"});
        c["p1"] = commit(jax, 2, "PR: tweak", {{"pr.txt", "pr\n"}});
        git(jax, {"checkout", "-q", "main"});
        c["j2"] = commit(jax, 3, "jax docs 2", {{"docs.txt", "2\n"}});
        c["j3"] = commit(jax, 4, "break the build", {{"broken.txt", "x\n"}});
        c["j4"] = commit(jax, 4 + 20.0 / 60, "fix the build", {}, {"broken.txt"});
        git(jax, {"merge", "-q", "--no-ff", "-m", "Merge PR", "pr"}, 6);
        c["j5"] = git(jax, {"rev-parse", "HEAD"});
        c["j6"] = commit(jax, 8, "jax docs 3", {{"docs.txt", "3\n"}});

        c["x0"] = commit(xla, -3, "init xla", {{"factor.txt", "1.0\n"}});
        c["x1"] = commit(xla, 2.5, "xla refactor", {{"other.txt", "1\n"}});
        c["x2"] = commit(xla, 5.5, "xla: slower kernels", {{"factor.txt", "0.8\n"}});
        c["x3"] = commit(xla, 7, "xla docs", {{"other.txt", "2\n"}});
        for (const auto& repo : {jax, xla})
            git(repo, {"update-ref", "refs/remotes/origin/main", "main"});

        test::write_file(dir.file("build.py"), R"PY(import os, sys, time
jax, xla, cj, cx, log, marker = sys.argv[1:7]
key = cj + "," + cx
with open(log, "a") as f: f.write("start " + key + "\n")
if os.path.exists(os.path.join(jax, "broken.txt")): sys.exit("compile error")
done = sum(1 for l in open(log) if l.startswith("done "))
if os.path.exists(marker) and done >= 2:
    os.remove(marker)
    pid = os.getppid()
    while pid > 1:
        if open("/proc/%d/comm" % pid).read().strip() == "perfsweep":
            os.kill(pid, 9); os._exit(1)
        pid = int(open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()[1])
with open(log, "a") as f: f.write("done " + key + "\n")
)PY");
        test::write_file(dir.file("bench.py"), R"PY(import sys
jax, xla, cj, cx, rep, log = sys.argv[1:7]
speed = float(open(jax + "/speed.txt").read()) * float(open(xla + "/factor.txt").read())
with open(log, "a") as f: f.write(cj + "," + cx + "\n")
print("MLUPS: %.3f" % (speed + 0.1 * (int(rep) % 3)))
)PY");
    }

    std::vector<std::string> args(const std::vector<std::string>& extra) const {
        std::vector<std::string> a{"--repo", "jax=" + jax, "--repo", "xla=" + xla};
        a.insert(a.end(), extra.begin(), extra.end());
        return a;
    }

    std::vector<std::string> run_args(const std::vector<std::string>& extra) const {
        auto a = args({"--build",
                       python() + " " + dir.file("build.py") +
                           " {path:jax} {path:xla} {commit:jax} {commit:xla} " +
                           dir.file("builds.log") + " " + dir.file("kill.marker"),
                       "--test",
                       python() + " " + dir.file("bench.py") +
                           " {path:jax} {path:xla} {commit:jax} {commit:xla} {repeat} " +
                           dir.file("runs.log"),
                       "--logs", dir.file("logs")});
        a.insert(a.end(), extra.begin(), extra.end());
        return a;
    }
};

/// Value of `"key": "..."` occurrences in order (the JSON is pretty-printed, one key per line).
std::vector<std::string> json_strings(const std::string& json, const std::string& key) {
    std::vector<std::string> out;
    std::regex re("\"" + key + "\": \"([^\"]*)\"");
    for (std::sregex_iterator it(json.begin(), json.end(), re), end; it != end; ++it)
        out.push_back((*it)[1]);
    return out;
}

/// The JSON text of the object that follows `"key": {` (balanced braces).
std::string json_object(const std::string& json, const std::string& key) {
    auto pos = json.find("\"" + key + "\": {");
    if (pos == std::string::npos)
        return "";
    pos = json.find('{', pos);
    int depth = 0;
    for (std::size_t i = pos; i < json.size(); ++i) {
        depth += json[i] == '{' ? 1 : (json[i] == '}' ? -1 : 0);
        if (depth == 0)
            return json.substr(pos, i - pos + 1);
    }
    return "";
}

std::vector<std::string> lines_of(const std::string& path) {
    std::vector<std::string> out;
    if (!fs::exists(path))
        return out;
    for (const auto& l : util::split(test::read_file(path), '\n'))
        if (!l.empty())
            out.push_back(l);
    return out;
}

} // namespace

TEST_CASE("hourly --plan resolves first-parent states, dedupes and records changes",
          "[hourly][cli]") {
    Fixture fx;
    auto r =
        test::hourly_in_process(fx.args({"--from", iso(0), "--to", iso(9), "--plan", "--json"}));
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const auto jax = json_strings(r.out, "jax");
    const auto xla = json_strings(r.out, "xla");
    const auto status = json_strings(r.out, "status");
    REQUIRE(jax.size() == 10);
    const std::vector<std::string> want_jax{"j0", "j1", "j1", "j2", "j3",
                                            "j4", "j5", "j5", "j6", "j6"};
    const std::vector<std::string> want_xla{"x0", "x0", "x0", "x1", "x1",
                                            "x1", "x2", "x3", "x3", "x3"};
    for (std::size_t i = 0; i < 10; ++i) {
        INFO("grid point " << i);
        CHECK(jax[i] == fx.c[want_jax[i]]);
        CHECK(xla[i] == fx.c[want_xla[i]]);
    }
    // The PR commit (2h) never appears: at 2h main was still at j1.
    CHECK(r.out.find(fx.c["p1"]) == std::string::npos);
    CHECK(status == std::vector<std::string>{"planned", "planned", "duplicate", "planned",
                                             "planned", "planned", "planned", "planned", "planned",
                                             "duplicate"});
    CHECK(r.out.find("\"changed\": [\n        \"jax\",\n        \"xla\"\n      ]") !=
          std::string::npos);
    CHECK(fs::exists(fx.jax + "/broken.txt") == false); // nothing checked out
    CHECK(git(fx.jax, {"rev-parse", "HEAD"}) == fx.c["j6"]);

    // A 30-minute step sees x1 (2h30m) on its own point.
    auto half = test::hourly_in_process(
        fx.args({"--from", iso(2), "--to", iso(3), "--step", "30m", "--plan", "--json"}));
    REQUIRE(half.exit_code == 0);
    CHECK(json_strings(half.out, "xla") ==
          std::vector<std::string>{fx.c["x0"], fx.c["x1"], fx.c["x1"]});
}

TEST_CASE("hourly --any-parent reproduces git rev-list -1 --before exactly", "[hourly][cli]") {
    Fixture fx;
    auto r = test::hourly_in_process(fx.args(
        {"--from", iso(0), "--to", iso(9), "--step", "20m", "--plan", "--json", "--any-parent"}));
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const auto times = json_strings(r.out, "time");
    const auto jax = json_strings(r.out, "jax");
    const auto xla = json_strings(r.out, "xla");
    REQUIRE(jax.size() == 28);
    for (std::size_t i = 0; i < jax.size(); ++i) {
        INFO(times[i]);
        CHECK(jax[i] == git(fx.jax, {"rev-list", "-1", "--before=" + times[i], "origin/main"}));
        CHECK(xla[i] == git(fx.xla, {"rev-list", "-1", "--before=" + times[i], "origin/main"}));
    }
    // Here the two methods differ: the PR commit, merged hours later, is "the state" at 2h-6h.
    CHECK(std::find(jax.begin(), jax.end(), fx.c["p1"]) != jax.end());
}

TEST_CASE("hourly narrows to the hour and --to-commit to the culprit, skipping build failures",
          "[hourly][cli]") {
    Fixture fx;
    // A file no commit touches keeps its mtime through every checkout (incremental builds).
    const auto old_time = fs::last_write_time(fx.jax + "/speed.txt") - std::chrono::hours(48);
    fs::last_write_time(fx.jax + "/speed.txt", old_time);
    auto r = test::hourly_in_process(
        fx.run_args({"--from", iso(0), "--to", iso(9), "--to-commit", "--json", "--repeats", "3"}));
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    const auto window = json_object(r.out, "window");
    const auto last_good = json_object(window, "last_good");
    const auto first_bad = json_object(window, "first_bad");
    CHECK(json_strings(last_good, "time") == std::vector<std::string>{iso(5)});
    CHECK(json_strings(last_good, "jax") == std::vector<std::string>{fx.c["j4"]});
    CHECK(json_strings(last_good, "xla") == std::vector<std::string>{fx.c["x1"]});
    CHECK(json_strings(first_bad, "time") == std::vector<std::string>{iso(6)});
    CHECK(json_strings(first_bad, "jax") == std::vector<std::string>{fx.c["j5"]});
    CHECK(json_strings(first_bad, "xla") == std::vector<std::string>{fx.c["x2"]});
    const auto culprit = json_object(r.out, "culprit");
    CHECK(json_strings(culprit, "repo") == std::vector<std::string>{"xla"});
    CHECK(json_strings(culprit, "sha") == std::vector<std::string>{fx.c["x2"]});
    CHECK(json_strings(culprit, "subject") == std::vector<std::string>{"xla: slower kernels"});
    CHECK(culprit.find("xla carries the change") != std::string::npos);
    const auto cand = json_object(r.out, "candidates");
    // jax: the merge commit (first parent main line), not the PR commit; xla: the culprit.
    CHECK(json_strings(cand, "sha") == std::vector<std::string>{fx.c["j5"], fx.c["x2"]});
    const auto urls = json_object(r.out, "compare_urls");
    CHECK(json_strings(urls, "jax") ==
          std::vector<std::string>{"https://github.com/jax-ml/jax/compare/" + fx.c["j4"] + "..." +
                                   fx.c["j5"]});
    CHECK(json_strings(urls, "xla") ==
          std::vector<std::string>{"https://github.com/openxla/xla/compare/" + fx.c["x1"] + "..." +
                                   fx.c["x2"]});
    // The 4h state (broken build) was tried, skipped and never decided the window.
    CHECK(r.out.find("\"build_failed\"") != std::string::npos);
    CHECK(json_strings(r.out, "conclusion") == std::vector<std::string>{"culprit"});
    CHECK(fs::last_write_time(fx.jax + "/speed.txt") == old_time);
    // Left detached at the last tested state (jax j4 with xla at the culprit).
    CHECK(git(fx.jax, {"rev-parse", "HEAD"}) == fx.c["j4"]);
    CHECK_FALSE(fs::exists(fx.jax + "/pr.txt"));
    CHECK(git(fx.jax, {"rev-parse", "--abbrev-ref", "HEAD"}) == "HEAD");
}

TEST_CASE("hourly --strategy sequential tests every distinct state and finds the same window",
          "[hourly][cli]") {
    Fixture fx;
    auto r = test::hourly_in_process(
        fx.run_args({"--from", iso(0), "--to", iso(9), "--strategy", "sequential", "--json"}));
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    const auto window = json_object(r.out, "window");
    CHECK(json_strings(json_object(window, "last_good"), "time") ==
          std::vector<std::string>{iso(5)});
    CHECK(json_strings(json_object(window, "first_bad"), "time") ==
          std::vector<std::string>{iso(6)});
    // Every distinct state up to the first bad one, in time order, each built once.
    const auto builds = lines_of(fx.dir.file("builds.log"));
    std::vector<std::string> started;
    for (const auto& l : builds)
        if (l.rfind("start ", 0) == 0)
            started.push_back(l.substr(6));
    CHECK(started.size() == 8); // every distinct state (0h 1h 3h 4h 5h 6h 7h 8h), once
    CHECK(std::set<std::string>(started.begin(), started.end()).size() == 8);
    CHECK(r.out.find("\"build_failed\"") != std::string::npos); // 4h: skipped, not a verdict
}

TEST_CASE("hourly reports a window with no change without building anything", "[hourly][cli]") {
    Fixture fx;
    auto r = test::hourly_in_process(fx.run_args({"--from", iso(8.5), "--to", iso(12), "--json"}));
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(json_strings(r.out, "conclusion") == std::vector<std::string>{"no_change"});
    CHECK(r.out.find("\"builds\": 0") != std::string::npos);
    CHECK_FALSE(fs::exists(fx.dir.file("builds.log")));
}

TEST_CASE("hourly resumes after kill -9 without redoing finished builds or runs",
          "[hourly][cli][resume]") {
    Fixture fx;
    test::write_file(fx.dir.file("kill.marker"), "");
    const auto args = fx.run_args(
        {"--from", iso(0), "--to", iso(9), "--to-commit", "--json", "--state", fx.dir.file("st")});
    // The search in a forked process named perfsweep: build.py kills it (-9) mid-search.
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        ::prctl(PR_SET_NAME, "perfsweep", 0, 0, 0);
        ::_exit(test::hourly_in_process(args).exit_code);
    }
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGKILL);
    CHECK_FALSE(fs::exists(fx.dir.file("kill.marker")));
    const auto runs_before = lines_of(fx.dir.file("runs.log")).size();
    CHECK(runs_before > 0);
    auto resumed = test::hourly_in_process(args);
    INFO(resumed.out << resumed.err);
    REQUIRE(resumed.exit_code == 0);
    const auto culprit = json_object(resumed.out, "culprit");
    CHECK(json_strings(culprit, "sha") == std::vector<std::string>{fx.c["x2"]});
    // The same search without the kill (fixture commits are deterministic, so the shas match):
    // the killed + resumed pair must finish exactly the same builds and runs, none twice.
    Fixture ref;
    auto clean =
        test::hourly_in_process(ref.run_args({"--from", iso(0), "--to", iso(9), "--to-commit",
                                              "--json", "--state", ref.dir.file("st")}));
    REQUIRE(clean.exit_code == 0);
    REQUIRE(ref.c == fx.c);
    auto count = [](const Fixture& f, const std::string& log, const std::string& prefix) {
        std::map<std::string, int> n;
        for (const auto& l : lines_of(f.dir.file(log)))
            if (l.rfind(prefix, 0) == 0)
                ++n[l.substr(prefix.size())];
        return n;
    };
    CHECK(count(fx, "builds.log", "done ") == count(ref, "builds.log", "done "));
    CHECK(count(fx, "runs.log", "") == count(ref, "runs.log", ""));
    // Only the build that was killed was started twice.
    int extra_starts = 0;
    auto s_fx = count(fx, "builds.log", "start ");
    auto s_ref = count(ref, "builds.log", "start ");
    for (const auto& [key, n] : s_fx)
        extra_starts += n - s_ref[key];
    CHECK(extra_starts == 1);
    // A third run does nothing new at all, and says what the result cost in all: the counts of
    // the uninterrupted search, every one of them resumed, and the same values per state.
    auto again = test::hourly_in_process(args);
    INFO(again.out << again.err);
    CHECK(again.exit_code == 0);
    auto number = [](const std::string& json, const std::string& key) {
        std::smatch m;
        const std::regex re("\"" + key + "\": ([0-9]+)");
        return std::regex_search(json, m, re) ? std::stol(m[1]) : -1L;
    };
    CHECK(number(again.out, "builds") == number(clean.out, "builds"));
    CHECK(number(again.out, "runs") == number(clean.out, "runs"));
    CHECK(number(again.out, "resumed_builds") == number(clean.out, "builds"));
    CHECK(number(again.out, "resumed_runs") == number(clean.out, "runs"));
    CHECK(number(clean.out, "resumed_runs") == 0);
    CHECK(number(clean.out, "builds") > 0);
    CHECK(json_object(again.out, "window") == json_object(clean.out, "window"));
    // Every state and commit step shows the values it was measured with, once each.
    auto values = [](const std::string& json) {
        std::vector<std::string> v;
        const std::regex re("\"values\": \\[([^\\]]*)\\]");
        for (std::sregex_iterator it(json.begin(), json.end(), re), end; it != end; ++it)
            v.push_back((*it)[1]);
        return v;
    };
    CHECK(values(again.out) == values(clean.out));
    CHECK(values(resumed.out) == values(clean.out));
}

TEST_CASE("hourly refuses naive times, shallow clones and unknown refs with clear errors",
          "[hourly][cli]") {
    Fixture fx;
    auto naive = test::hourly_in_process(
        fx.args({"--from", "2023-08-24T00:00:00", "--to", iso(9), "--plan"}));
    CHECK(naive.exit_code == 2);
    CHECK(naive.err.find("--from") != std::string::npos);
    CHECK(naive.err.find("zone") != std::string::npos);

    const auto shallow = fx.dir.file("shallow");
    auto cl =
        test::run_command({"git", "clone", "-q", "--depth", "2", "file://" + fx.xla, shallow});
    REQUIRE(cl.exit_code == 0);
    auto sh = test::hourly_in_process({"--repo", "xla=" + shallow, "--ref", "origin/main", "--from",
                                       iso(0), "--to", iso(9), "--plan"});
    CHECK(sh.exit_code == 2);
    CHECK(sh.err.find("shallow") != std::string::npos);

    auto ref = test::hourly_in_process(
        fx.args({"--ref-for", "xla=origin/nope", "--from", iso(0), "--to", iso(9), "--plan"}));
    CHECK(ref.exit_code == 2);
    CHECK(ref.err.find("origin/nope") != std::string::npos);
}

TEST_CASE("hourly --fetch updates the clone through libgit2", "[hourly][cli]") {
    Fixture fx;
    const auto clone = fx.dir.file("xla-clone");
    REQUIRE(test::run_command({"git", "clone", "-q", fx.xla, clone}).exit_code == 0);
    const auto x4 = commit(fx.xla, 8.5, "xla after clone", {{"late.txt", "1\n"}});
    test::EnvGuard token("PERFSWEEP_GIT_TOKEN", "secret-token-value");
    auto r = test::hourly_in_process({"--repo", "xla=" + clone, "--fetch", "--from", iso(8), "--to",
                                      iso(9), "--plan", "--json"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(json_strings(r.out, "xla") == std::vector<std::string>{fx.c["x3"], x4});
    CHECK(r.out.find("secret-token-value") == std::string::npos);
    CHECK(r.err.find("secret-token-value") == std::string::npos);
}

TEST_CASE("hourly --from-result takes the window from a daily JSON result", "[hourly][cli]") {
    Fixture fx;
    // The shape `perfsweep daily --json` wrote before format 2 (boundaries carry their builds'
    // commits), trimmed.
    const auto daily = fx.dir.file("daily.json");
    test::write_file(daily, R"({"metric": "MLUPS", "points": [], "boundaries": [
      {"last_before": "2023-08-24", "first_after": "2023-08-25", "kind": "regression",
       "last_before_commits": {"jax": ")" +
                                fx.c["j1"] + R"(", "xla": ")" + fx.c["x0"] + R"("},
       "last_before_commit_times": {"jax": ")" +
                                iso(1) + R"(", "xla": ")" + iso(-3) + R"("},
       "first_after_commits": {"jax": ")" +
                                fx.c["j6"] + R"(", "xla": ")" + fx.c["x3"] + R"("},
       "first_after_commit_times": {"jax": ")" +
                                iso(8) + R"(", "xla": ")" + iso(7) + R"("}}]})");
    auto r = test::hourly_in_process(fx.args({"--from-result", daily, "--plan", "--json"}));
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const auto times = json_strings(r.out, "time");
    REQUIRE(times.size() == 8); // 1h .. 8h
    CHECK(times.front() == iso(1));
    CHECK(times.back() == iso(8));

    test::write_file(daily, R"({"boundaries": [{"kind": "regression", "last_before": "2023-08-24",
                                                "first_after": "2023-08-25"}]})");
    auto bad = test::hourly_in_process(fx.args({"--from-result", daily, "--plan"}));
    CHECK(bad.exit_code == 2);
    CHECK(bad.err.find("daily.json") != std::string::npos);
    CHECK(bad.err.find("commit times") != std::string::npos);
}

TEST_CASE("hourly stops at --max-builds as inconclusive and a rerun continues from the state dir",
          "[hourly][cli]") {
    Fixture fx;
    const auto st = fx.dir.file("st");
    auto cut = test::hourly_in_process(fx.run_args(
        {"--from", iso(0), "--to", iso(9), "--json", "--state", st, "--max-builds", "3"}));
    INFO(cut.out << cut.err);
    CHECK(cut.exit_code == 4);
    CHECK(cut.out.find("\"builds\": 3") != std::string::npos);
    CHECK(cut.out.find("\"budget_exhausted\": true") != std::string::npos);
    auto rest = test::hourly_in_process(
        fx.run_args({"--from", iso(0), "--to", iso(9), "--json", "--state", st}));
    REQUIRE(rest.exit_code == 0);
    CHECK(json_strings(json_object(json_object(rest.out, "window"), "first_bad"), "time") ==
          std::vector<std::string>{iso(6)});
    std::map<std::string, int> done;
    for (const auto& l : lines_of(fx.dir.file("builds.log")))
        if (l.rfind("done ", 0) == 0)
            CHECK(++done[l] == 1); // nothing built twice across the two invocations
}
