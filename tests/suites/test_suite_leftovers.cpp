// Issue 8 suite "Timeouts and leftovers": the real perfsweep binary runs hung benchmarks and hung
// builds that spawn children and grandchildren (some ignoring SIGTERM), benchmarks that exit but
// leave helpers running, failing and interrupted runs in kept containers (the fake docker on PATH
// records every call and keeps the container list), and gets SIGINT or SIGTERM mid-run. After each
// scenario: no process whose argv carries the scenario's unique marker is alive (scan of /proc),
// no container is left (the fake engine's list is empty and every fresh container of an
// interrupted run got `rm -f`), and $TMPDIR holds nothing perfsweep created.
// Figure: scenarios, orphans left (goal 0), containers left (goal 0), temp files left (goal 0).

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
                fail = dir.file("fail.sh"), dhang = dir.file("dhang.sh");
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
        write_file(state + "/images", "img:2023-08-24\n");
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
        write_file(fail, "echo 'Traceback: boom'\nexit 1\n");
        // dhang.sh DATE MARKER: the nightly of 2023-08-25 hangs with children, the others run.
        write_file(dhang, R"SH(if [ "$1" = 2023-08-25 ]; then exec sh ")SH" + hang +
                              R"SH(" "$2"; fi
echo "MLUPS: 5"
)SH");
    }
    std::vector<std::string> env() const {
        return {"PATH=" + bin + ":" + std::getenv("PATH"), "FAKE_DOCKER_LOG=" + calls,
                "FAKE_DOCKER_STATE=" + state, "TMPDIR=" + tmp, "PERFSWEEP_KILL_GRACE=0.3"};
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

/// Run perfsweep with `args` and `env`; with `signal_when` set, send `sig` once the file `when`
/// contains the text `started` (the benchmark is running).
int run_and_signal(const std::vector<std::string>& args, const std::vector<std::string>& env,
                   int sig, const std::string& when) {
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        const int null = ::open("/dev/null", O_WRONLY);
        ::dup2(null, 1);
        ::dup2(null, 2);
        for (const auto& kv : env)
            ::putenv(const_cast<char*>(kv.c_str()));
        exec_perfsweep(args);
    }
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
    }
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

struct Scenario {
    std::string name;
    std::vector<std::string> args; ///< perfsweep arguments; MARK is replaced by the marker
    int sig = 0;                   ///< SIGINT/SIGTERM sent once the benchmark runs
    int expect_exit = -1;          ///< -1: any non-crash exit
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
        const int code = run_and_signal(s.args, w.env(), s.sig, logs);
        INFO(s.name << " (exit " << code << ")");
        if (s.expect_exit >= 0)
            CHECK(code == s.expect_exit);
        CHECK(code < 128); // perfsweep itself ended normally, after its cleanup
        // The group got SIGKILL before perfsweep returned; give the kernel a moment to finish
        // delivering it (no process may survive it).
        auto left_pids = processes_with(marker);
        for (int i = 0; i < 100 && !left_pids.empty(); ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            left_pids = processes_with(marker);
        }
        const int left = static_cast<int>(left_pids.size());
        CHECK(left == 0);
        orphans += left;
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
