// Suite "Timeouts and leftovers": the real perfsweep binary runs hung benchmarks and hung builds
// that spawn children and grandchildren (some ignoring SIGTERM), benchmarks that exit but leave
// helpers running, failing and interrupted runs in kept containers (the fake docker on PATH
// records every call and keeps the container list; like a real engine, its containers outlive a
// killed CLI), and gets SIGINT or SIGTERM mid-run, a second SIGINT while a benchmark ignores
// SIGTERM, or SIGKILL. After each scenario: no process whose argv carries the scenario's unique
// marker is alive (scan of /proc), no container is left (the fake engine's list is empty and
// every fresh container of an interrupted run got `rm -f`), and $TMPDIR holds nothing perfsweep
// created.
// Figure: scenarios, orphans left (goal 0), containers left (goal 0), temp files left (goal 0).
//
// Second case, "SIGKILL and resume": perfsweep is SIGKILLed mid-run together with its guard (as an
// OOM kill of both would: the next perfsweep ends the run before it measures anything), with
// runtime none, a fresh container per run and a kept container, and once alone (the next
// perfsweep starts at once, while the guard may still be ending the run). Every benchmark process
// appends "start/beat/end ID TIME" lines; no two runs' [start, last beat] intervals may overlap,
// and nothing of the killed run may survive.
// Figure: kills, orphans (goal 0), containers left (goal 0), overlapping runs (goal 0).

#include "support/child_exec.hpp"
#include "support/figures.hpp"
#include "support/temp_dir.hpp"
#include "util/strings.hpp"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <thread>
#include <vector>

using namespace perfsweep;
using namespace perfsweep::test;
namespace fs = std::filesystem;

namespace {

/// Processes alive (not zombies) whose command line contains `marker`.
std::vector<pid_t> processes_with(const std::string& marker) {
    std::vector<pid_t> out;
    for (const auto& e : fs::directory_iterator("/proc")) {
        const auto name = e.path().filename().string();
        if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos)
            continue;
        std::string cmdline;
        try {
            cmdline = read_file(e.path().string() + "/cmdline");
        } catch (...) {
            continue; // gone meanwhile
        }
        for (char& c : cmdline)
            if (c == '\0')
                c = ' ';
        if (cmdline.find(marker) != std::string::npos)
            out.push_back(static_cast<pid_t>(std::stol(name)));
    }
    return out;
}

/// The scripts every scenario uses, in one directory, and the fake engine.
struct World {
    TempDir dir{"perfsweep-suite-leftovers"};
    std::string bin = dir.file("bin"), state = dir.file("engine"), calls = dir.file("calls.jsonl");
    std::string tmp = dir.file("tmp");
    std::string hang = dir.file("hang.sh"), leave = dir.file("leave.sh"), ok = dir.file("ok.sh"),
                fail = dir.file("fail.sh"), dhang = dir.file("dhang.sh"),
                ignore = dir.file("ignore.sh");
    World() {
        fs::create_directories(bin);
        fs::create_directories(state);
        fs::create_directories(tmp);
        const std::string src = std::string(PERFSWEEP_SOURCE_DIR) + "/tests/support/fake_docker";
        fs::create_symlink(src, bin + "/docker");
        // The fake engine runs under the system python: a pyenv shim first on PATH costs ~0.5 s
        // per call.
        if (fs::exists("/usr/bin/python3"))
            fs::create_symlink("/usr/bin/python3", bin + "/python3");
        write_file(state + "/remote", "");
        write_file(state + "/images", "img:2023-08-24\nimg:2023-08-01\nimg:2023-08-02\n");
        // hang.sh MARKER: a child that ignores SIGTERM, a child with a grandchild, and a leader
        // that never ends. Every one carries MARKER in its argv.
        write_file(
            hang, R"SH(sh -c 'trap "" TERM; while :; do sleep 0.05; done' "$1-child-ignoring-term" &
sh -c 'sh -c "while :; do sleep 0.05; done" "$0-grandchild" & while :; do sleep 0.05; done' "$1-child" &
echo started
while :; do sleep 0.05; done
)SH");
        // leave.sh MARKER: prints the metric and exits, leaving helpers (one ignoring SIGTERM).
        write_file(leave,
                   R"SH(sh -c 'trap "" TERM; while :; do sleep 0.05; done' "$1-left-ignoring-term" &
sh -c 'while :; do sleep 0.05; done' "$1-left" &
echo "MLUPS: 7"
)SH");
        write_file(ok, "echo 'MLUPS: 5'\n");
        // ignore.sh MARKER: the benchmark itself ignores SIGTERM (a second Ctrl-C must still end
        // it).
        write_file(ignore, "trap '' TERM\necho started\nwhile :; do sleep 0.05; done\n");
        write_file(fail, "echo 'Traceback: boom'\nexit 1\n");
        // dhang.sh DATE MARKER: the nightly of 2023-08-25 hangs with children, the others run.
        write_file(dhang, R"SH(if [ "$1" = 2023-08-25 ]; then exec sh ")SH" + hang +
                              R"SH(" "$2"; fi
echo "MLUPS: 5"
)SH");
    }
    std::vector<std::string> env() const {
        return {"PATH=" + bin + ":" + std::getenv("PATH"),
                "FAKE_DOCKER_LOG=" + calls,
                "FAKE_DOCKER_STATE=" + state,
                "TMPDIR=" + tmp,
                "PERFSWEEP_KILL_GRACE=0.3",
                "PERFSWEEP_RUN_DIR=" + dir.file("runs")};
    }
    /// Containers the fake engine still has.
    int containers() const {
        const auto text = fs::exists(state + "/containers") ? read_file(state + "/containers") : "";
        int n = 0;
        for (const auto& l : util::split(text, '\n'))
            n += !l.empty();
        return n;
    }
    /// Fresh (`run --name N` without -d) containers with no `rm -f N` after them.
    int fresh_not_removed() const {
        if (!fs::exists(calls))
            return 0;
        const auto text = read_file(calls);
        static const std::regex run_re(
            R"re(\["docker", "run", "--rm", (?:"[^"]*", )*?"--name", "([^"]+)")re");
        int n = 0;
        for (std::sregex_iterator it(text.begin(), text.end(), run_re), end; it != end; ++it) {
            const std::string name = (*it)[1];
            if (text.find("\"rm\", \"-f\", \"" + name + "\"") == std::string::npos)
                ++n;
        }
        return n;
    }
    int temp_files() const {
        int n = 0;
        for ([[maybe_unused]] const auto& e : fs::directory_iterator(tmp))
            ++n;
        return n;
    }
};

/// Starts perfsweep with `args` in a forked child, its output thrown away and `env` (each
/// "NAME=value") added to its environment; returns the child's pid.
pid_t start_quiet(const std::vector<std::string>& args, const std::vector<std::string>& env) {
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        discard_output();
        for (const auto& kv : env)
            ::putenv(const_cast<char*>(kv.c_str()));
        exec_perfsweep(args);
    }
    return pid;
}

/// Run perfsweep with `args` and `env`; with `sig` set, send it once a file under `when` contains
/// the text `started` (the benchmark is running), and `sig2` (if set) 100 ms later.
int run_and_signal(const std::vector<std::string>& args, const std::vector<std::string>& env,
                   int sig, const std::string& when, int sig2 = 0) {
    const pid_t pid = start_quiet(args, env);
    int status = 0;
    if (sig != 0) {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        auto started = [&] {
            for (const auto& e : fs::recursive_directory_iterator(when))
                if (e.is_regular_file() &&
                    read_file(e.path().string()).find("started") != std::string::npos)
                    return true;
            return false;
        };
        while (std::chrono::steady_clock::now() < deadline &&
               ::waitpid(pid, &status, WNOHANG) == 0 && !(fs::exists(when) && started()))
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        ::kill(pid, sig);
        if (sig2 != 0) {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            ::kill(pid, sig2);
        }
    }
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

struct Scenario {
    std::string name;
    std::vector<std::string> args;  ///< perfsweep arguments; MARK is replaced by the marker
    int sig = 0;                    ///< SIGINT/SIGTERM/SIGKILL sent once the benchmark runs
    int expect_exit = -1;           ///< -1: any non-crash exit; 128+N: killed by signal N
    int sig2 = 0;                   ///< a second signal 100 ms after the first
    std::vector<std::string> env{}; ///< extra environment
};

} // namespace

TEST_CASE("timeouts and leftovers: hung groups die, containers and temp files are removed",
          "[suites][leftovers]") {
    World w;
    const auto logs = w.dir.file("logs");
    const std::vector<std::string> none = {"--runtime", "none", "--logs", logs, "--timeout", "1s"};
    const std::vector<std::string> kept = {"--runtime",  "docker",     "--keep-container",
                                           "--image",    "img:{date}", "--date",
                                           "2023-08-24", "--logs",     logs};
    auto with = [](std::vector<std::string> a, const std::vector<std::string>& b) {
        a.insert(a.end(), b.begin(), b.end());
        return a;
    };
    const std::string hang = "sh " + w.hang + " MARK", leave = "sh " + w.leave + " MARK";
    std::vector<Scenario> scenarios = {
        {"hung benchmark with children, one ignoring SIGTERM, past --timeout",
         with({"run", "--test", hang}, none), 0, 4},
        {"benchmark exits and leaves helpers running", with({"run", "--test", leave}, none), 0, 0},
        {"hung build with children past --timeout",
         with({"run", "--build", hang, "--test", "sh " + w.ok}, none), 0, 4},
        {"daily: one hung nightly with children past --timeout",
         with({"daily", "--from", "2023-08-24", "--to", "2023-08-26", "--strategy", "exhaustive",
               "--repeats", "1", "--test", "sh " + w.dhang + " {date} MARK"},
              none),
         0, -1},
        {"SIGINT during a hung benchmark (runtime none)",
         with({"run", "--test", hang}, {"--runtime", "none", "--logs", logs}), SIGINT, 3},
        {"SIGTERM during a hung benchmark (runtime none)",
         with({"run", "--test", hang}, {"--runtime", "none", "--logs", logs}), SIGTERM, 3},
        {"kept container: the benchmark fails", with({"run", "--test", "sh " + w.fail}, kept), 0,
         4},
        {"kept container: the build fails",
         with({"run", "--build", "sh " + w.fail, "--test", "sh " + w.ok}, kept), 0, 4},
        {"kept container: hung benchmark past --timeout",
         with({"run", "--test", hang, "--timeout", "1s"}, kept), 0, 4},
        {"kept container: SIGINT mid-run", with({"run", "--test", hang}, kept), SIGINT, 3},
        {"kept container: SIGTERM mid-run", with({"run", "--test", hang}, kept), SIGTERM, 3},
        {"kept container: SIGTERM mid-build",
         with({"run", "--build", hang, "--test", "sh " + w.ok}, kept), SIGTERM, 3},
        {"fresh container per run: SIGTERM mid-run",
         with({"run", "--test", hang}, {"--runtime", "docker", "--image", "img:{date}", "--date",
                                        "2023-08-24", "--logs", logs}),
         SIGTERM, 3},
        {"a second SIGINT while the benchmark ignores SIGTERM (runtime none)",
         with({"run", "--test", "sh " + w.ignore + " MARK"}, {"--runtime", "none", "--logs", logs}),
         SIGINT,
         128 + SIGINT,
         SIGINT,
         {"PERFSWEEP_KILL_GRACE=30"}},
        {"SIGKILL during a hung benchmark (runtime none)",
         with({"run", "--test", hang}, {"--runtime", "none", "--logs", logs}), SIGKILL,
         128 + SIGKILL},
        {"SIGKILL mid-run (fresh container per run)",
         with({"run", "--test", hang}, {"--runtime", "docker", "--image", "img:{date}", "--date",
                                        "2023-08-24", "--logs", logs}),
         SIGKILL, 128 + SIGKILL},
        {"SIGKILL mid-run (kept container)", with({"run", "--test", hang}, kept), SIGKILL,
         128 + SIGKILL},
    };
    int orphans = 0, containers = 0, temps = 0, n = 0;
    // The long version repeats every scenario (signals land at other moments of the run).
    std::vector<Scenario> all;
    for (int round = 0; round < suite_scale(); ++round)
        all.insert(all.end(), scenarios.begin(), scenarios.end());
    for (auto& s : all) {
        ++n;
        const std::string marker =
            "psw-leftover-" + std::to_string(::getpid()) + "-" + std::to_string(n);
        for (auto& a : s.args)
            a = std::regex_replace(a, std::regex("MARK"), marker);
        fs::remove_all(logs);
        auto env = w.env();
        env.insert(env.end(), s.env.begin(), s.env.end());
        const int code = run_and_signal(s.args, env, s.sig, logs, s.sig2);
        INFO(s.name << " (exit " << code << ")");
        if (s.expect_exit >= 0)
            CHECK(code == s.expect_exit);
        if (s.expect_exit < 128)
            CHECK(code < 128); // perfsweep itself ended normally, after its cleanup
        // The group got SIGKILL before perfsweep returned (or, when perfsweep was killed, its
        // guard is ending the run now); give that a moment (no process may survive it).
        auto left_pids = processes_with(marker);
        for (int i = 0; i < 250 && !left_pids.empty(); ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            left_pids = processes_with(marker);
        }
        const int left = static_cast<int>(left_pids.size());
        CHECK(left == 0);
        orphans += left;
        for (int i = 0; i < 250 && w.containers() + w.fresh_not_removed() > 0; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        const int c = w.containers() + w.fresh_not_removed();
        CHECK(c == 0);
        containers += c;
        const int t = w.temp_files();
        CHECK(t == 0);
        temps += t;
        // Clean up whatever a failure left, so the next scenario starts clean.
        for (const pid_t p : left_pids)
            ::kill(p, SIGKILL);
    }
    report_figure("leftovers", {{"scenarios", std::to_string(n)},
                                {"orphans", std::to_string(orphans)},
                                {"containers", std::to_string(containers)},
                                {"temp_files", std::to_string(temps)}});
}

namespace {

/// beat.sh ID FILE MARK: a run that records its life in FILE: "start ID T", then every 20 ms
/// "beat ID T" (from the run and from a child that ignores SIGTERM), "end ID T" after ~0.8 s, then
/// the metric. T is in nanoseconds; ID is the point's date and the run's pid. A run that ends by
/// itself ends its child first (in a kept container nothing else would: processes a `docker exec`
/// leaves behind keep running there); a killed run leaves it to perfsweep.
const char* k_beat = R"SH(id="$1-$$"; f=$2
now() { date +%s%N; }
echo "start $id $(now)" >> "$f"
echo started
sh -c 'trap "" TERM; while :; do echo "beat $0 $(date +%s%N)" >> "$1"; sleep 0.02; done' "$id" "$f" "$3" &
child=$!
i=0
while [ $i -lt 40 ]; do echo "beat $id $(now)" >> "$f"; sleep 0.02; i=$((i+1)); done
kill -9 $child; wait $child 2>/dev/null
echo "end $id $(now)" >> "$f"
echo "MLUPS: 5"
)SH";

/// Runs of a beats file: id → [first start, last beat or end].
std::map<std::string, std::pair<long long, long long>> runs_of(const std::string& file) {
    std::map<std::string, std::pair<long long, long long>> out;
    if (!fs::exists(file))
        return out;
    for (const auto& line : util::split(read_file(file), '\n')) {
        const auto f = util::split(line, ' ');
        if (f.size() != 3 || f[2].empty() ||
            f[2].find_first_not_of("0123456789") != std::string::npos)
            continue; // a line torn by SIGKILL
        const long long t = std::stoll(f[2]);
        auto it = out.find(f[1]);
        if (it == out.end())
            out[f[1]] = {t, t};
        else {
            if (f[0] == "start")
                it->second.first = std::min(it->second.first, t);
            it->second.second = std::max(it->second.second, t);
        }
    }
    return out;
}

/// Pairs of runs whose intervals overlap.
int overlaps(const std::map<std::string, std::pair<long long, long long>>& runs) {
    int n = 0;
    for (auto a = runs.begin(); a != runs.end(); ++a)
        for (auto b = std::next(a); b != runs.end(); ++b)
            if (a->second.first < b->second.second && b->second.first < a->second.second) {
                WARN("runs " << a->first << " and " << b->first << " overlap");
                ++n;
            }
    return n;
}

/// The guard a perfsweep process forked (a child named perfsweep-guard), 0 if none.
pid_t guard_of(pid_t perfsweep) {
    for (const auto& e : fs::directory_iterator("/proc")) {
        const auto name = e.path().filename().string();
        if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos)
            continue;
        try {
            const auto stat = read_file(e.path().string() + "/stat");
            const auto comm = read_file(e.path().string() + "/comm");
            const auto close = stat.rfind(')');
            const auto f = util::split(stat.substr(close + 2), ' ');
            if (f.size() > 1 && std::stol(f[1]) == perfsweep && comm == "perfsweep-guard\n")
                return static_cast<pid_t>(std::stol(name));
        } catch (...) {
        }
    }
    return 0;
}

} // namespace

TEST_CASE("SIGKILL and resume: nothing of the killed run survives, no two runs overlap",
          "[suites][leftovers][sigkill]") {
    World w;
    const auto beat = w.dir.file("beat.sh");
    write_file(beat, k_beat);
    struct Case {
        std::string name;
        std::vector<std::string> args; ///< MARK, BEATS and LOGS are replaced
        bool guard_too;                ///< the guard is killed with perfsweep
    };
    const std::vector<std::string> daily = {"daily",
                                            "--from",
                                            "2023-08-01",
                                            "--to",
                                            "2023-08-02",
                                            "--strategy",
                                            "exhaustive",
                                            "--repeats",
                                            "1",
                                            "--state",
                                            "STATE",
                                            "--logs",
                                            "LOGS",
                                            "--env-probe",
                                            "none",
                                            "--test",
                                            "sh " + beat + " {date} BEATS MARK"};
    auto with = [](std::vector<std::string> a, const std::vector<std::string>& b) {
        a.insert(a.end(), b.begin(), b.end());
        return a;
    };
    const auto none = with(daily, {"--runtime", "none"});
    const auto fresh = with(daily, {"--runtime", "docker", "--image", "img:{date}"});
    const std::vector<std::string> kept = {
        "run",         "--runtime",  "docker", "--keep-container",
        "--image",     "img:{date}", "--date", "2023-08-24",
        "--repeats",   "2",          "--logs", "LOGS",
        "--env-probe", "none",       "--test", "sh " + beat + " {repeat} BEATS MARK"};
    // Each case is two perfsweep processes (killed, then resumed). The guard alone ending a run
    // is the first test case's SIGKILL scenarios; here the resume must find the run still going
    // (guard killed too) for each runtime, and once, with the guard alive, start at once while
    // the guard may still be ending the run.
    std::vector<Case> cases;
    for (int round = 0; round < suite_scale(); ++round) {
        cases.push_back({"runtime none", none, false});
        cases.push_back({"runtime none", none, true});
        cases.push_back({"fresh container per run", fresh, true});
        cases.push_back({"kept container", kept, true});
    }
    int kills = 0, orphans = 0, containers = 0, overlapping = 0, n = 0;
    for (auto& c : cases) {
        ++n;
        const std::string marker =
            "psw-sigkill-" + std::to_string(::getpid()) + "-" + std::to_string(n);
        const auto beats = w.dir.file("beats-" + std::to_string(n));
        const auto logs = w.dir.file("logs-" + std::to_string(n));
        for (auto& a : c.args) {
            a = std::regex_replace(a, std::regex("MARK"), marker);
            a = std::regex_replace(a, std::regex("BEATS"), beats);
            a = std::regex_replace(a, std::regex("LOGS"), logs);
            a = std::regex_replace(a, std::regex("STATE"),
                                   w.dir.file("state-" + std::to_string(n)));
        }
        INFO(c.name << (c.guard_too ? ", guard killed too" : ", guard alive"));
        const auto env = w.env();
        const pid_t pid = start_quiet(c.args, env);
        // Kill it 0.3 s into its second run (two "start" lines).
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        auto starts = [&] {
            const auto text = fs::exists(beats) ? read_file(beats) : "";
            int k = 0;
            for (std::size_t p = 0; (p = text.find("start ", p)) != std::string::npos; ++p)
                ++k;
            return k;
        };
        int status = 0;
        while (starts() < 2 && std::chrono::steady_clock::now() < deadline &&
               ::waitpid(pid, &status, WNOHANG) == 0)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        REQUIRE(starts() >= 2);
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        const pid_t guard = guard_of(pid);
        CHECK(guard != 0);
        // Both killed: the guard first, so that it cannot end the run in between (a guard killed
        // halfway through ending it is the [containment] test of integration_tests).
        if (c.guard_too && guard != 0)
            ::kill(guard, SIGKILL);
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &status, 0);
        ++kills;
        if (c.guard_too) {
            // An OOM kill of both: the run goes on (the next perfsweep must end it).
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            CHECK_FALSE(processes_with(marker).empty());
        }
        // The same command again, at once: it ends what is left (or waits for the guard to end
        // it) before it measures anything.
        const int code = run_and_signal(c.args, env, 0, logs);
        CHECK(code == 0);
        auto left = processes_with(marker);
        for (int i = 0; i < 100 && !left.empty(); ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            left = processes_with(marker);
        }
        CHECK(left.empty());
        orphans += static_cast<int>(left.size());
        for (pid_t p : left)
            ::kill(p, SIGKILL);
        for (int i = 0; i < 250 && w.containers() > 0; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        CHECK(w.containers() == 0);
        containers += w.containers();
        const auto runs = runs_of(beats);
        CHECK(runs.size() >= 3);
        const int o = overlaps(runs);
        CHECK(o == 0);
        overlapping += o;
    }
    report_figure("sigkill-resume", {{"kills", std::to_string(kills)},
                                     {"orphans", std::to_string(orphans)},
                                     {"containers", std::to_string(containers)},
                                     {"overlapping_runs", std::to_string(overlapping)}});
}
