// Suite "locks": two perfsweep processes pointed at one thing that only one may use at a time.
// - Two `daily` on one --state: before the lock, both measured every date (each run twice at
//   once), the journal kept one process's runs (the other's committed runs were overwritten) and
//   the history got every label twice; both exited 0. Now the second stops at once (exit 3)
//   naming the first, and the first's sweep is whole.
// - Two `hourly --to-commit` on one --repo clone: before the lock, each checked out states under
//   the other's build and benchmark, and one named the wrong culprit with exit 0 in 2 of 3
//   rounds (or failed with "cannot detach HEAD"). Now the second stops at once; the first names
//   the right culprit.
// Figure: pairs started, second processes refused, dates measured twice, journal runs lost,
// duplicate history labels, wrong culprits (goal 0 for the last four).

#include "support/child_exec.hpp"
#include "support/figures.hpp"
#include "support/git_repo.hpp"
#include "support/temp_dir.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

using namespace perfsweep;
using namespace perfsweep::test;
namespace fs = std::filesystem;

namespace {

/// A perfsweep started in a forked child, its output going to files.
struct LockChild {
    pid_t pid = -1;
    std::string out_path, err_path;
};

LockChild start_locked(const TempDir& dir, const std::string& name,
                       const std::vector<std::string>& args) {
    LockChild c;
    c.out_path = dir.file(name + ".out");
    c.err_path = dir.file(name + ".err");
    const int o = ::open(c.out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    const int e = ::open(c.err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    REQUIRE(o >= 0);
    REQUIRE(e >= 0);
    c.pid = ::fork();
    REQUIRE(c.pid >= 0);
    if (c.pid == 0) {
        ::dup2(o, 1);
        ::dup2(e, 2);
        exec_perfsweep(args);
    }
    ::close(o);
    ::close(e);
    return c;
}

int finish_locked(const LockChild& c) {
    int status = 0;
    ::waitpid(c.pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/// Wait (at most 60 s) until `path` exists and is not empty: the first process is under way.
void wait_for_file(const std::string& path) {
    for (int i = 0; i < 6000; ++i) {
        std::error_code ec;
        if (fs::file_size(path, ec) > 0 && !ec)
            return;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    FAIL("nothing appeared at " << path);
}

std::vector<std::string> file_lines(const std::string& path) {
    std::vector<std::string> out;
    if (!fs::exists(path))
        return out;
    for (auto& l : util::split(read_file(path), '\n'))
        if (!l.empty())
            out.push_back(l);
    return out;
}

struct LockTally {
    int pairs = 0;
    int refused = 0;
    int double_measured = 0;
    int journal_lost = 0;
    int history_duplicates = 0;
    int wrong_culprit = 0;
};

/// Two processes of one command line and how each ended.
struct LockRace {
    LockChild a, b;
    int ra = 0, rb = 0;
};

/// Starts `args` as process a and, once a has written to `runs`, again as b; waits for both.
/// Checks that a finished (exit 0) and that b stopped at once (exit 3) naming a's pid and what a
/// holds (`held`, e.g. "--state DIR"); counts the pair and the refusal in `t`.
LockRace race_locked(const TempDir& dir, const std::vector<std::string>& args,
                     const std::string& runs, const std::string& held, LockTally& t) {
    LockRace r;
    r.a = start_locked(dir, "a", args);
    wait_for_file(runs);
    r.b = start_locked(dir, "b", args);
    r.rb = finish_locked(r.b);
    r.ra = finish_locked(r.a);
    ++t.pairs;
    const auto err_b = read_file(r.b.err_path);
    INFO("a: " << read_file(r.a.err_path) << "\nb: " << err_b);
    CHECK(r.ra == 0);
    CHECK(r.rb == 3);
    const bool refused =
        r.rb == 3 &&
        err_b.find("another perfsweep (pid " + std::to_string(r.a.pid)) != std::string::npos &&
        err_b.find("holds " + held) != std::string::npos;
    CHECK(refused);
    t.refused += refused ? 1 : 0;
    return r;
}

/// Two `daily` sweeps of 8 dates on one --state and one history, the second started once the
/// first has measured a date.
void lock_two_dailies(LockTally& t) {
    TempDir dir("perfsweep-locks-daily");
    const auto state = dir.file("state"), history = dir.file("history.jsonl");
    const auto runs = dir.file("runs.txt");
    const std::vector<std::string> args = {"daily",
                                           "--from",
                                           "2024-03-01",
                                           "--to",
                                           "2024-03-08",
                                           "--runtime",
                                           "none",
                                           "--strategy",
                                           "exhaustive",
                                           "--test",
                                           "sh -c 'echo {label} >> " + runs +
                                               "; sleep 0.2; echo MLUPS: 500'",
                                           "--state",
                                           state,
                                           "--history",
                                           history,
                                           "--logs",
                                           dir.file("logs"),
                                           "--env-probe",
                                           "none"};
    const LockRace race = race_locked(dir, args, runs, "--state " + state, t);
    INFO("a: " << read_file(race.a.err_path));
    std::map<std::string, int> measured;
    for (const auto& l : file_lines(runs))
        ++measured[l];
    CHECK(measured.size() == 8);
    for (const auto& [label, n] : measured)
        t.double_measured += n > 1 ? 1 : 0;
    int journal = 0;
    for (const auto& l : file_lines(state + "/journal.tsv"))
        journal += l.rfind("run\t", 0) == 0 ? 1 : 0;
    t.journal_lost += static_cast<int>(file_lines(runs).size()) - journal;
    std::map<std::string, int> labels;
    for (const auto& l : file_lines(history)) {
        const auto at = l.find("\"label\":\"");
        if (at != std::string::npos)
            ++labels[l.substr(at + 9, l.find('"', at + 9) - at - 9)];
    }
    for (const auto& [label, n] : labels)
        t.history_duplicates += n - 1;
}

/// Two `hourly --to-commit` searches of one clone whose 5th commit makes the benchmark slower.
void lock_two_hourlies(LockTally& t) {
    TempDir dir("perfsweep-locks-hourly");
    const auto repo = dir.file("src");
    const long long t0 = 1692835200; // 2023-08-24T00:00:00Z
    fs::create_directories(repo);
    git_at(repo, {"init", "-q", "-b", "main"}, t0);
    std::map<int, std::string> sha;
    for (int h = 0; h < 9; ++h) {
        write_file(repo + "/speed.txt", h < 5 ? "500\n" : "400\n");
        write_file(repo + "/n.txt", std::to_string(h) + "\n");
        git_at(repo, {"add", "-A"}, t0 + h * 3600);
        git_at(repo, {"commit", "-q", "-m", "c" + std::to_string(h)}, t0 + h * 3600 + 60);
        sha[h] = git_at(repo, {"rev-parse", "HEAD"}, t0);
    }
    git_at(repo, {"update-ref", "refs/remotes/origin/main", "main"}, t0);
    const auto runs = dir.file("runs.txt");
    const std::vector<std::string> args = {"hourly",
                                           "--repo",
                                           "src=" + repo,
                                           "--from",
                                           util::format_iso8601(t0 + 1800),
                                           "--to",
                                           util::format_iso8601(t0 + 9 * 3600),
                                           "--to-commit",
                                           "--json",
                                           "--build",
                                           "true",
                                           "--test",
                                           "sh -c 'echo {commit:src} >> " + runs +
                                               "; sleep 0.2; echo MLUPS: $(cat " + repo +
                                               "/speed.txt)'",
                                           "--logs",
                                           dir.file("logs")};
    const LockRace race = race_locked(dir, args, runs, "--repo src=" + repo, t);
    // Every process that exited 0 must name c5.
    for (const auto& [c, rc] : {std::pair{&race.a, race.ra}, std::pair{&race.b, race.rb}}) {
        if (rc != 0)
            continue;
        const auto out = read_file(c->out_path);
        const auto culprit = out.find("\"culprit\"");
        const auto named =
            culprit == std::string::npos ? culprit : out.find("\"sha\": \"", culprit);
        const bool right = named != std::string::npos && out.compare(named + 8, 40, sha[5]) == 0;
        CHECK(right);
        t.wrong_culprit += right ? 0 : 1;
    }
}

} // namespace

TEST_CASE("locks: a second daily on one --state and a second hourly on one --repo clone stop "
          "at once, and the first finishes whole",
          "[suites][locks]") {
    LockTally t;
    lock_two_dailies(t);
    lock_two_hourlies(t);
    report_figure("locks", {{"pairs", std::to_string(t.pairs)},
                            {"second_refused", std::to_string(t.refused)},
                            {"measured_twice", std::to_string(t.double_measured)},
                            {"journal_runs_lost", std::to_string(t.journal_lost)},
                            {"history_duplicates", std::to_string(t.history_duplicates)},
                            {"wrong_culprit", std::to_string(t.wrong_culprit)}});
    CHECK(t.double_measured == 0);
    CHECK(t.journal_lost == 0);
    CHECK(t.history_duplicates == 0);
    CHECK(t.wrong_culprit == 0);
}
