#include "adapters/process/containment.hpp"
#include "adapters/process/process.hpp"
#include "adapters/process/process_runner.hpp"
#include "adapters/system/local_files.hpp"
#include "app/run_point.hpp"
#include "support/child_exec.hpp"
#include "support/env_guard.hpp"
#include "support/recording_progress.hpp"
#include "support/temp_dir.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

using namespace perfsweep;

namespace {

struct Fixture {
    test::TempDir dir{"perfsweep-runner"};
    test::RecordingProgress progress;
    adapters::SystemClock clock;

    std::string script(const std::string& name, const std::string& body) {
        const auto path = dir.file(name);
        test::write_file(path, "#!/bin/bash\n" + body);
        std::filesystem::permissions(path, std::filesystem::perms::owner_all);
        return path;
    }
    ports::RunnerConfig config(const std::string& test_command) {
        ports::RunnerConfig c;
        c.test_command = test_command;
        c.logs_dir = dir.file("logs");
        c.timeout_s = 20;
        c.grace_s = 1;
        return c;
    }
    core::Measurement run(const ports::RunnerConfig& c, ports::PointRequest req = {}) {
        if (req.label.empty())
            req.label = "2023-08-24";
        adapters::ProcessRunner runner(c, progress, clock);
        auto out = runner.run_points({req});
        REQUIRE(out.size() == 1);
        return out[0];
    }
    /// Runs `bash script` with a timeout of `timeout_s` and a grace of `grace_s` seconds;
    /// checks that it timed out.
    core::Measurement run_to_timeout(const std::string& script, double timeout_s, double grace_s) {
        auto c = config("bash " + script);
        c.timeout_s = timeout_s;
        c.grace_s = grace_s;
        auto m = run(c);
        CHECK(m.status == core::Status::timeout);
        return m;
    }
};

bool process_gone(long pid) {
    // Gone, or a zombie waiting for a reaper that is not us: either way it no longer runs.
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    if (!stat)
        return true;
    std::string content;
    try {
        content.assign(std::istreambuf_iterator<char>(stat), std::istreambuf_iterator<char>());
    } catch (const std::ios_base::failure&) {
        return true; // reaped between the open and the read: the read fails with ESRCH
    }
    auto close = content.rfind(')');
    return close != std::string::npos && content.size() > close + 2 && content[close + 2] == 'Z';
}

/// Waits (at most `tries` x 20 ms) until `pid` no longer runs; returns whether it is gone.
bool wait_gone(long pid, int tries = 100) {
    for (int i = 0; i < tries && !process_gone(pid); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return process_gone(pid);
}

/// Checks that `pid` is gone within `tries` x 20 ms, and kills it where it is not (a failed check
/// leaves nothing running).
void check_gone(long pid, int tries = 100) {
    const bool gone = wait_gone(pid, tries);
    CHECK(gone);
    if (!gone)
        ::kill(static_cast<pid_t>(pid), SIGKILL);
}

/// The pid a script writes to `path`, once it is there (waits at most `tries` x 20 ms).
long wait_for_pid(const std::string& path, int tries = 200) {
    std::error_code ec;
    for (int i = 0; i < tries && !(std::filesystem::file_size(path, ec) > 0 && !ec); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const auto text = std::filesystem::exists(path) ? test::read_file(path) : "";
    REQUIRE_FALSE(text.empty());
    return std::stol(text);
}

/// Field 22 of /proc/PID/stat (start time in clock ticks after boot).
std::string start_time(pid_t pid) {
    const auto stat = test::read_file("/proc/" + std::to_string(pid) + "/stat");
    std::istringstream rest(stat.substr(stat.rfind(')') + 2));
    std::string field;
    for (int i = 3; i <= 22; ++i)
        rest >> field;
    return field;
}

std::string fs_read_link(const std::string& path) {
    return std::filesystem::read_symlink(path).string();
}

} // namespace

TEST_CASE("runtime none reads coloured, repeated and scientific metrics", "[runner][none]") {
    Fixture f;
    const auto s = f.script("bench.sh", "printf 'noise\\n\\033[32mMLUPS: 1.5e3\\033[0m\\n'\n"
                                        "echo 'MLUPS:  1600.25'\necho done >&2\n");
    auto c = f.config("bash " + s);
    ports::PointRequest req;
    req.label = "2023-08-24";
    req.repeats = 2;
    req.stage = core::Stage::daily;
    req.commits = {{"xla", "abc"}};
    auto m = f.run(c, req);
    CHECK(m.status == core::Status::ok);
    CHECK(m.reason.empty());
    CHECK(m.values == std::vector<double>{1500, 1600.25}); // one run printed both repeats
    CHECK(m.stage == core::Stage::daily);
    CHECK(m.commits.at("xla") == "abc");
    CHECK(m.runner.count("hostname") == 1);
    CHECK(m.metric == "MLUPS");
    CHECK(std::filesystem::exists(m.log));
    CHECK(test::read_file(m.log).find("done") != std::string::npos); // stderr captured too
    CHECK(f.progress.lines.size() == 1);
    CHECK_THAT(f.progress.lines[0],
               Catch::Contains("2023-08-24") && Catch::Contains("1500 1600.25"));
}

TEST_CASE("failures are classified and never become values", "[runner][none]") {
    Fixture f;
    SECTION("garbage output") {
        auto m = f.run(f.config("bash " + f.script("g.sh", "echo hello; echo 'MLUPS: soon'\n")));
        CHECK(m.status == core::Status::failed);
        CHECK_THAT(m.reason, Catch::Contains("not a finite number"));
        CHECK(m.values.empty());
    }
    SECTION("no metric at all") {
        auto m = f.run(f.config("bash " + f.script("n.sh", "echo hello\n")));
        CHECK(m.status == core::Status::failed);
        CHECK_THAT(m.reason, Catch::Contains("no line"));
    }
    SECTION("non-zero exit after printing a value") {
        auto m = f.run(f.config("bash " + f.script("e.sh", "echo 'MLUPS: 5'; exit 3\n")));
        CHECK(m.status == core::Status::failed);
        CHECK_THAT(m.reason, Catch::Contains("exit code 3"));
        CHECK(m.values.empty());
    }
    SECTION("crash by signal") {
        auto m = f.run(f.config("bash " + f.script("k.sh", "echo 'MLUPS: 5'; kill -SEGV $$\n")));
        CHECK(m.status == core::Status::failed);
        CHECK_THAT(m.reason, Catch::Contains("signal 11") && Catch::Contains("SEGV"));
        CHECK(m.values.empty());
    }
    SECTION("command not found") {
        auto m = f.run(f.config("perfsweep-no-such-program --x"));
        CHECK(m.status == core::Status::failed);
        CHECK_THAT(m.reason, Catch::Contains("not found on PATH"));
    }
}

TEST_CASE("a run past its timeout is killed with every child of its group", "[runner][none]") {
    Fixture f;
    const auto pidfile = f.dir.file("child.pid");
    const auto s = f.script("hang.sh", "echo 'MLUPS: 9'\n"
                                       "sleep 300 &\necho $! > " +
                                           pidfile +
                                           "\n"
                                           "trap '' TERM\nsleep 300\n");
    const auto t0 = std::chrono::steady_clock::now();
    auto m = f.run_to_timeout(s, 0.5, 0.3);
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    CHECK(m.values.empty());
    CHECK_THAT(m.reason, Catch::Contains("timed out"));
    CHECK(took < 10);
    CHECK(wait_gone(std::stol(test::read_file(pidfile))));
}

TEST_CASE("a timed-out run also kills what left its process group (setsid), a finished one not",
          "[runner][none]") {
    // setsid puts the grandchild in a new session and group: the group kill cannot reach it,
    // the environment cookie every child inherits does.
    REQUIRE(std::system("command -v setsid >/dev/null 2>&1") == 0); // util-linux
    Fixture f;
    const auto pidfile = f.dir.file("escaped.pid");
    const auto s = f.script("escape.sh", "setsid sh -c 'trap \"\" TERM; echo $$ > " + pidfile +
                                             "; exec sleep 300' &\n"
                                             "for i in $(seq 100); do [ -s " +
                                             pidfile +
                                             " ] && break; sleep 0.05; done\n"
                                             "echo 'MLUPS: 9'\n"
                                             "${HANG:+sleep 300}\n");
    auto c = f.config("bash " + s);
    c.env["HANG"] = "1";
    c.timeout_s = 1.5;
    c.grace_s = 0.3;
    auto m = f.run(c);
    CHECK(m.status == core::Status::timeout);
    CHECK(wait_gone(wait_for_pid(pidfile))); // ignored SIGTERM, got SIGKILL after the grace

    // A run that ends by itself leaves a daemon it started alone (a build server may serve the
    // next build); the test removes it.
    std::filesystem::remove(pidfile);
    c.env.erase("HANG");
    m = f.run(c);
    CHECK(m.status == core::Status::ok);
    const long daemon = wait_for_pid(pidfile);
    CHECK_FALSE(process_gone(daemon));
    ::kill(static_cast<pid_t>(daemon), SIGKILL);
}

TEST_CASE("megabytes of output go to the log and the metric is still found", "[runner][none]") {
    Fixture f;
    auto c = f.config("python3 -c \"import sys\nfor i in range(2100): print('x' * 999)\n"
                      "print('MLUPS: 42', file=sys.stderr)\"");
    auto m = f.run(c);
    CHECK(m.status == core::Status::ok);
    CHECK(m.values == std::vector<double>{42});
    CHECK(std::filesystem::file_size(m.log) > 2'000'000);
}

TEST_CASE("hostile placeholder values reach the program as literal argv", "[runner][none]") {
    Fixture f;
    const auto out = f.dir.file("argv.bin");
    const auto s = f.script("args.sh", "printf '%s\\0' \"$@\" > " + out + "\necho 'MLUPS: 1'\n");
    const std::string hostile =
        "$(touch " + f.dir.file("pwned") + ") ;rm -rf x `id` 'q' \"dq\"\nline2";
    auto c = f.config("bash " + s + " --xla={commit:XLA} {label} plain");
    ports::PointRequest req;
    req.label = "a b;c";
    req.values = {{"commit:XLA", hostile}};
    auto m = f.run(c, req);
    CHECK(m.status == core::Status::ok);
    const auto raw = test::read_file(out);
    std::vector<std::string> args;
    size_t start = 0;
    for (size_t i = 0; i < raw.size(); ++i)
        if (raw[i] == '\0') {
            args.push_back(raw.substr(start, i - start));
            start = i + 1;
        }
    CHECK(args == std::vector<std::string>{"--xla=" + hostile, "a b;c", "plain"});
    CHECK_FALSE(std::filesystem::exists(f.dir.file("pwned")));
}

TEST_CASE("warmup runs are discarded, one process per repeat, env exported", "[runner][none]") {
    Fixture f;
    const auto counter = f.dir.file("count");
    const auto envfile = f.dir.file("env");
    const auto s =
        f.script("count.sh", "n=$(( $(cat " + counter +
                                 " 2>/dev/null || echo 0) + 1 ))\n"
                                 "echo $n > " +
                                 counter +
                                 "\n"
                                 "echo \"$PERFSWEEP_DATE $PERFSWEEP_COMMIT_XLA $PERFSWEEP_REPEAT "
                                 "$1\" >> " +
                                 envfile + "\necho \"MLUPS: $n\"\n");
    auto c = f.config("bash " + s + " {repeat}");
    c.warmup = 1;
    ports::PointRequest req;
    req.label = "2023-08-24";
    req.repeats = 3;
    req.values = {{"date", "2023-08-24"}, {"commit:XLA", "deadbeef"}};
    auto m = f.run(c, req);
    CHECK(m.status == core::Status::ok);
    CHECK(m.values == std::vector<double>{2, 3, 4});
    CHECK(test::read_file(envfile) == "2023-08-24 deadbeef warmup1 warmup1\n"
                                      "2023-08-24 deadbeef 1 1\n2023-08-24 deadbeef 2 2\n"
                                      "2023-08-24 deadbeef 3 3\n");
    CHECK(f.progress.lines.size() == 4);
    CHECK_THAT(f.progress.lines.back(), Catch::Contains("run 3/3") && Catch::Contains("ETA"));
}

TEST_CASE("a GPU pool runs points concurrently with results identical to sequential",
          "[runner][none][gpus]") {
    Fixture f;
    const auto s = f.script(
        "gpu.sh", "start=$(date +%s.%N)\n[ -n \"$CUDA_VISIBLE_DEVICES\" ] && sleep 1\n"
                  "echo \"$1 $start $(date +%s.%N) $CUDA_VISIBLE_DEVICES\" >> " +
                      f.dir.file("times") + "\necho \"MLUPS: $(( ${1//-/} % 1000 )).$2\"\n");
    std::vector<ports::PointRequest> reqs;
    for (int d = 1; d <= 4; ++d) {
        ports::PointRequest r;
        r.label = "2023-08-0" + std::to_string(d);
        r.values = {{"date", r.label}};
        reqs.push_back(r);
    }
    auto c = f.config("bash " + s + " {date} {repeat}");
    c.gpus = {"0", "1", "2", "3"};
    adapters::ProcessRunner pool(c, f.progress, f.clock);
    CHECK(pool.workers() == 4);
    const auto parallel = pool.run_points(reqs);
    std::istringstream times(test::read_file(f.dir.file("times")));
    std::string label;
    double start = 0, end = 0, latest_start = 0, earliest_end = 1e300;
    std::string gpu;
    std::set<std::string> gpus;
    int n = 0;
    while (times >> label >> start >> end >> gpu) {
        latest_start = std::max(latest_start, start);
        earliest_end = std::min(earliest_end, end);
        gpus.insert(gpu);
        ++n;
    }
    CHECK(n == 4);
    CHECK(latest_start < earliest_end); // all four ran at the same time
    CHECK(gpus == std::set<std::string>{"0", "1", "2", "3"});

    auto seq_cfg = c;
    seq_cfg.gpus.clear();
    adapters::ProcessRunner sequential(seq_cfg, f.progress, f.clock);
    CHECK(sequential.workers() == 1);
    const auto seq = sequential.run_points(reqs);
    REQUIRE(seq.size() == parallel.size());
    for (size_t i = 0; i < seq.size(); ++i) {
        CHECK(parallel[i].label == reqs[i].label);
        CHECK(parallel[i].status == core::Status::ok);
        CHECK(parallel[i].values == seq[i].values);
        CHECK(parallel[i].label == seq[i].label);
    }
    CHECK(parallel[2].values == std::vector<double>{803.1});
}

TEST_CASE("the runner fingerprint probes nvidia-smi once", "[runner][none]") {
    Fixture f;
    const auto bin = f.dir.file("bin");
    std::filesystem::create_directories(bin);
    const auto calls = f.dir.file("smi.calls");
    f.script("bin/nvidia-smi", "echo \"$@\" >> " + calls +
                                   "\necho 'NVIDIA H200, 565.57.01'\n"
                                   "echo 'NVIDIA H200, 565.57.01'\n");
    test::EnvGuard path("PATH", bin + ":" + std::getenv("PATH"));
    auto c = f.config("echo 'MLUPS: 1'");
    adapters::ProcessRunner runner(c, f.progress, f.clock);
    std::vector<ports::PointRequest> reqs(3);
    for (size_t i = 0; i < reqs.size(); ++i)
        reqs[i].label = "p" + std::to_string(i);
    auto m = runner.run_points(reqs);
    for (const auto& x : m) {
        CHECK(x.runner.at("gpu") == "NVIDIA H200");
        CHECK(x.runner.at("driver") == "565.57.01");
        CHECK(x.runner.at("hostname").size() > 0);
    }
    CHECK(test::read_file(calls) == "--query-gpu=name,driver_version --format=csv,noheader\n");
}

namespace {
/// Keeps appended records in memory (the JSONL store lives on the history branch).
class MemoryHistory final : public ports::HistoryStore {
public:
    ports::HistoryLoad load() override { return {records, {}}; }
    void append(const std::vector<core::Measurement>& r) override {
        records.insert(records.end(), r.begin(), r.end());
    }
    std::size_t append_missing(const std::vector<core::Measurement>& r) override {
        std::vector<core::Measurement> stored = records, fresh;
        for (const auto& m : r) {
            auto same = [&](const core::Measurement& s) {
                return s.label == m.label && s.benchmark == m.benchmark && s.metric == m.metric &&
                       s.timestamp == m.timestamp && s.values == m.values && s.status == m.status;
            };
            if (auto it = std::find_if(stored.begin(), stored.end(), same); it != stored.end())
                stored.erase(it);
            else
                fresh.push_back(m);
        }
        append(fresh);
        return fresh.size();
    }
    void write_beside(const std::vector<ports::SideFile>&) override {}
    std::vector<ports::SideFile> read_beside(const std::string&) override { return {}; }
    std::string describe() const override { return "memory"; }
    std::vector<core::Measurement> records;
};
} // namespace

TEST_CASE("run_point builds first, records every outcome, and a failed build is a value",
          "[runner][none][app]") {
    Fixture f;
    MemoryHistory history;
    auto c = f.config("bash -c 'echo MLUPS: 5'");
    c.build_command = "bash -c 'test -e {path:src}/ok'";
    adapters::ProcessRunner runner(c, f.progress, f.clock);
    ports::PointRequest req;
    req.label = "h1";
    req.values = {{"path:src", f.dir.path().string()}};
    auto broken = app::run_point(runner, &runner, req, &history);
    CHECK(broken.status == core::Status::failed);
    CHECK_THAT(broken.reason, Catch::StartsWith("build: failed: exit code 1"));
    CHECK_THAT(broken.log, Catch::EndsWith("build.log"));
    test::write_file(f.dir.file("ok"), "");
    auto good = app::run_point(runner, &runner, req, &history);
    CHECK(good.status == core::Status::ok);
    CHECK(good.values == std::vector<double>{5});
    REQUIRE(history.records.size() == 2);
    CHECK(history.records[0].status == core::Status::failed);
    CHECK(history.records[1].values == std::vector<double>{5});
}

namespace {
/// A runtime strategy of the caller's: every command runs under `env RUNTIME=custom`.
class PrefixRuntime final : public adapters::Runtime {
public:
    adapters::Readiness prepare(const std::string& image) override {
        prepared.push_back(image);
        return {};
    }
    adapters::Launch wrap(const adapters::Invocation& inv) override {
        adapters::Launch l;
        l.spec.argv = {"env", "RUNTIME=custom"};
        l.spec.argv.insert(l.spec.argv.end(), inv.argv.begin(), inv.argv.end());
        l.spec.env = inv.env;
        return l;
    }
    bool in_container() const override { return false; }
    std::vector<std::string> prepared;
};
} // namespace

TEST_CASE("the measuring loop runs over a runtime strategy of the caller's choice",
          "[runner][none]") {
    Fixture f;
    auto c =
        f.config("bash " + f.script("rt.sh", "echo \"MLUPS: 1$PERFSWEEP_REPEAT\"\n"
                                             "echo \"runtime=$RUNTIME image=$PERFSWEEP_IMAGE\"\n"));
    c.image = "img-{date}";
    auto runtime = std::make_unique<PrefixRuntime>();
    auto* rt = runtime.get();
    adapters::ProcessRunner runner(c, std::move(runtime), f.progress, f.clock);
    ports::PointRequest req;
    req.label = "2023-08-24";
    req.values = {{"date", "2023-08-24"}};
    req.repeats = 2;
    const auto m = runner.run_points({req});
    REQUIRE(m.size() == 1);
    CHECK(m[0].status == core::Status::ok);
    CHECK(m[0].values == std::vector<double>{11, 12});
    CHECK(m[0].image == "img-2023-08-24");
    CHECK(rt->prepared == std::vector<std::string>{"img-2023-08-24"});
    CHECK_THAT(test::read_file(m[0].log), Catch::Contains("runtime=custom image=img-2023-08-24"));
}

TEST_CASE("memory does not grow with the benchmark's output", "[runner][none][output]") {
    // The real binary twice: a benchmark printing one line, and one printing 40 MiB on one line,
    // 100,000 lines of noise, then the metric. Their peak RSS (the child's ru_maxrss, which covers
    // its reaped children: sh, head, tr, yes) differs by far less than the output: perfsweep
    // keeps none of it. Before streaming it held the whole log at least twice (+80 MiB here).
    // The time this takes is not measured here: bench_run_output does that for 1 GiB.
    test::TempDir dir{"perfsweep-big-output"};
    const std::string noise = "noise line of a chatty benchmark ..............................";
    const std::string big = "sh -c \"head -c 41943040 /dev/zero | tr '\\\\0' x; echo; yes '" +
                            noise + "' | head -n 100000; echo 'MLUPS: 7'\"";
    const auto logs = dir.file("logs");
    auto peak_mib = [&](const std::string& label, const std::string& cmd) {
        const pid_t pid = ::fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            test::discard_output();
            // Under ASan, freed chunks would otherwise stay resident in its quarantine.
            const char* asan = std::getenv("ASAN_OPTIONS");
            const std::string opts = std::string(asan ? asan : "") + ":quarantine_size_mb=1";
            ::setenv("ASAN_OPTIONS", opts.c_str(), 1);
            // The real binary, exec'd: sanitizer options are read when a process starts, so an
            // exec-free child (a fork of this test binary) would keep the default 256 MiB
            // quarantine and the test process's heap, and measure neither perfsweep nor its
            // output (it failed in CI that way: +57 MiB under ASan only).
            ::setenv("PERFSWEEP_TEST_EXEC", "1", 1);
            test::exec_perfsweep({"run", "--runtime", "none", "--env-probe", "none", "--label",
                                  label, "--test", cmd, "--logs", logs});
        }
        int status = 0;
        rusage usage{};
        REQUIRE(::wait4(pid, &status, 0, &usage) == pid);
        CHECK(WIFEXITED(status));
        CHECK(WEXITSTATUS(status) == 0);
        return static_cast<double>(usage.ru_maxrss) / 1024;
    };
    const double small = peak_mib("small", "echo 'MLUPS: 7'");
    const double large = peak_mib("big", big);
    const auto log = logs + "/big/run-1.log";
    REQUIRE(std::filesystem::exists(log));
    const std::uintmax_t expected = 41943040 + 1 + 100000ull * (noise.size() + 1) + 9;
    // The log keeps the first and the last MiB (the size cap, $PERFSWEEP_LOG_LIMIT).
    CHECK(std::filesystem::file_size(log) <= (2u << 20) + 200);
    const std::string text = test::read_file(log), end = noise + "\nMLUPS: 7\n";
    CHECK(text.find(std::to_string(expected - (2u << 20)) + " bytes of output left out here") !=
          std::string::npos);
    CHECK((text.size() >= end.size() &&
           text.compare(text.size() - end.size(), end.size(), end) == 0));
    INFO("peak RSS " << large << " MiB for " << expected / (1024 * 1024)
                     << " MiB of output; with one line of output " << small << " MiB");
    CHECK(large - small < 16);
}

TEST_CASE("the log never holds a known secret, even split across reads", "[runner][none]") {
    Fixture f;
    const std::string secret = "ghs_split_across_reads_0123456789";
    test::EnvGuard token("GITHUB_TOKEN", secret);
    // The secret is printed in two pieces with a pause between them (two pipe reads), after
    // 100 KiB of output (the masker holds back only a possible secret's start).
    const auto s = f.script(
        "leak.sh", "head -c 102400 /dev/zero | tr '\\0' y; echo\nprintf 'token=ghs_split_acr'\n"
                   "sleep 0.3\nprintf 'oss_reads_0123456789 end\\n'\necho 'MLUPS: 3'\n");
    auto m = f.run(f.config("bash " + s));
    CHECK(m.status == core::Status::ok);
    const auto log = test::read_file(m.log);
    CHECK(log.find("ghs_split") == std::string::npos);
    CHECK(log.find("token=*** end") != std::string::npos);
    CHECK(log.size() == 102400 + 1 + std::string("token=*** end\nMLUPS: 3\n").size());
}

TEST_CASE("a command that is not a benchmark run: no metric, no run line, its output",
          "[runner][none][probe]") {
    Fixture f;
    auto c = f.config("bash " + f.script("probe.sh", "echo \"jax=abc1234 $PERFSWEEP_REPEAT\"\n"
                                                     "exit ${FAIL:-0}\n"));
    adapters::ProcessRunner runner(c, f.progress, f.clock);
    ports::PointRequest req;
    req.label = "2023-08-24";
    const auto ok = runner.run_command(req, "commits-probe");
    CHECK(ok.ok);
    CHECK(ok.reason.empty());
    CHECK(ok.output == "jax=abc1234 commits-probe\n");
    CHECK_THAT(ok.log, Catch::EndsWith("/2023-08-24/commits-probe.log"));
    CHECK(f.progress.lines.empty()); // no "run 1/1 failed: no line of the output matches MLUPS"
    c.env["FAIL"] = "3";
    adapters::ProcessRunner failing(c, f.progress, f.clock);
    const auto bad = failing.run_command(req, "commits-probe");
    CHECK_FALSE(bad.ok);
    CHECK_THAT(bad.reason, Catch::Contains("exit code 3"));
    CHECK(bad.output == "jax=abc1234 commits-probe\n");
    CHECK(f.progress.lines.empty());
}

TEST_CASE("cgroup v2 location from mountinfo and /proc/self/cgroup", "[runner][cgroup]") {
    using adapters::locate_cgroup2;
    const std::string hybrid =
        "31 30 0:28 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
        "40 30 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";
    CHECK(locate_cgroup2(hybrid, "4:memory:/x\n0::/\n").dir == "/sys/fs/cgroup/unified");
    const std::string unified =
        "25 1 0:22 / /sys/fs/cgroup rw,nosuid shared:9 - cgroup2 cgroup2 rw,nsdelegate\n";
    CHECK(locate_cgroup2(unified, "0::/system.slice/runner.service\n").dir ==
          "/sys/fs/cgroup/system.slice/runner.service");
    // A container's cgroup namespace mounts its own part of the tree at the root.
    const std::string ns = "700 600 0:30 /docker/abc /sys/fs/cgroup ro - cgroup2 cgroup2 rw\n";
    CHECK(locate_cgroup2(ns, "0::/docker/abc/sub\n").dir == "/sys/fs/cgroup/sub");
    const auto v1 =
        locate_cgroup2("31 30 0:28 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n", "4:cpu:/\n");
    CHECK(v1.dir.empty());
    CHECK_THAT(v1.why_not, Catch::Contains("no cgroup v2"));
    const auto none = locate_cgroup2(hybrid.substr(0, hybrid.find('\n') + 1), "0::/a\n");
    CHECK(none.dir.empty());
    CHECK_THAT(none.why_not, Catch::Contains("no cgroup2 mount"));
}

TEST_CASE("a process that leaves the group and clears its environment dies with a timed-out run "
          "where cgroups are usable",
          "[runner][none][cgroup]") {
    const auto where = adapters::containment();
    Fixture f;
    const auto pidfile = f.dir.file("escaped.pid");
    const auto s =
        f.script("escape.sh", "setsid env -i sh -c 'trap \"\" TERM; echo $$ > " + pidfile +
                                  "; exec sleep 300' &\n"
                                  "echo \"cgroup=$PERFSWEEP_CGROUP\"\n"
                                  "sleep 300\n");
    auto m = f.run_to_timeout(s, 1, 0.2);
    const long escaped = wait_for_pid(pidfile);
    const auto log = test::read_file(m.log);
    if (where.cgroup_base.empty()) {
        // The fallback: the group and the cookie cannot reach it. Said, and cleaned up here.
        CHECK_THAT(log, Catch::Contains("cgroup=\n"));
        WARN("SKIPPED (no usable cgroup v2 here: " << where.why_not << ")");
        ::kill(static_cast<pid_t>(escaped), SIGKILL);
        return;
    }
    CHECK_THAT(log, Catch::Contains("cgroup=" + where.cgroup_base + "/perfsweep-"));
    check_gone(escaped);
}

TEST_CASE("PERFSWEEP_CGROUPS=off falls back to the process group and the cookie, and says so",
          "[runner][none][cgroup]") {
    // One exec: the setting is read once per process. (With cgroups on, the test above checks
    // PERFSWEEP_CGROUP in the run's environment in this process.)
    test::TempDir dir{"perfsweep-cgroups-off"};
    const auto logs = dir.file("logs");
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        test::discard_output();
        ::setenv("PERFSWEEP_CGROUPS", "off", 1);
        test::exec_perfsweep_binary(
            {"run", "--runtime", "none", "--env-probe", "none", "--label", "off", "--test",
             "sh -c 'echo cgroup=$PERFSWEEP_CGROUP; echo MLUPS: 1'", "--logs", logs});
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    CHECK_THAT(test::read_file(logs + "/off/run-1.log"), Catch::StartsWith("cgroup=\n"));
}

TEST_CASE(
    "a run claimed by a process that died mid-way is ended by the next scan, a zombie is dead",
    "[runner][containment]") {
    // A perfsweep and its guard killed together: the guard may have claimed the run (renamed its
    // registry entry) before it died, and in a container whose init does not reap, it is a
    // zombie. The next perfsweep must treat it as dead and end the run itself.
    const auto where = adapters::containment();
    REQUIRE_FALSE(where.registry.empty());
    const std::string cookie = "claim-test-" + std::to_string(::getpid());
    const pid_t run = ::fork(); // the run: sleeps with the cookie in its environment
    REQUIRE(run >= 0);
    if (run == 0) {
        ::setenv("PERFSWEEP_RUN_COOKIE", cookie.c_str(), 1);
        ::execlp("sleep", "sleep", "300", static_cast<char*>(nullptr));
        ::_exit(127);
    }
    const pid_t owner = ::fork(); // its perfsweep: gone (exited and reaped)
    REQUIRE(owner >= 0);
    if (owner == 0)
        ::_exit(0);
    const auto owner_start = start_time(owner);
    ::waitpid(owner, nullptr, 0);
    const pid_t claimer = ::fork(); // its guard: a zombie (exited, not reaped yet)
    REQUIRE(claimer >= 0);
    if (claimer == 0)
        ::_exit(0);
    const auto claimer_start = start_time(claimer);
    // Up to 10 s for the child to exit: on a loaded machine 1 s was not always enough (the
    // claimer still ran, so the scan rightly left the run alone and the test failed).
    for (int i = 0; i < 1000 && !process_gone(claimer); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    REQUIRE(process_gone(claimer));
    std::string boot = test::read_file("/proc/sys/kernel/random/boot_id");
    boot = boot.substr(0, boot.find('\n')) + "@" + fs_read_link("/proc/self/ns/pid");
    const std::string id = std::to_string(owner) + "-" + owner_start + "-1";
    const std::string entry = std::string("perfsweep-run-1") + '\0' + boot + '\0' +
                              std::to_string(owner) + '\0' + owner_start + '\0' + cookie + '\0' +
                              "" + '\0';
    const std::string claimed = where.registry + "/.claimed-" + std::to_string(claimer) + "-" +
                                claimer_start + "-run-" + id;
    std::ofstream(claimed, std::ios::binary) << entry;
    const auto t0 = std::chrono::steady_clock::now();
    const auto report = adapters::end_orphaned_runs();
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ::waitpid(claimer, nullptr, 0);
    CHECK(report.runs >= 1);
    CHECK(took < 10);
    CHECK_FALSE(std::filesystem::exists(claimed));
    int status = 0;
    bool ended = false;
    for (int i = 0; i < 200 && !ended; ++i) {
        ended = ::waitpid(run, &status, WNOHANG) == run;
        if (!ended)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    CHECK(ended);
    if (!ended) {
        ::kill(run, SIGKILL);
        ::waitpid(run, &status, 0);
    } else
        CHECK((WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL));
}

TEST_CASE("a chatty run's log keeps its first and last MiB, and the metric is still read",
          "[runner][none][limits]") {
    // Before: no cap (a 3 MB run filled a small disk until the journal write failed).
    Fixture f;
    const auto s = f.script("chatty.sh", "echo first line\n"
                                         "head -c 3000000 /dev/zero | tr '\\0' 'x'\n"
                                         "echo\necho 'MLUPS: 5'\n");
    auto m = f.run(f.config("bash " + s));
    REQUIRE(m.status == core::Status::ok);
    CHECK(m.values == std::vector<double>{5});
    const auto log = test::read_file(m.log);
    // (Booleans: a failure must not print megabytes.)
    CHECK(log.size() <= (2u << 20) + 200);
    CHECK(log.rfind("first line\n", 0) == 0);
    CHECK(log.find("bytes of output left out here") != std::string::npos);
    const std::string end = "xx\nMLUPS: 5\n";
    CHECK((log.size() >= end.size() && log.compare(log.size() - end.size(), end.size(), end) == 0));
}

TEST_CASE("a metric printed a million times fails the run; the console and the record stay small",
          "[runner][none][limits]") {
    // Before: 10^6 values were recorded (a 4 MB history line) and printed on one 8 MB progress
    // line.
    Fixture f;
    auto m = f.run(f.config("sh -c \"yes 'MLUPS: 1' | head -n 1000000\""));
    CHECK(m.status == core::Status::failed);
    CHECK_THAT(m.reason, Catch::Contains("more than 10000 values"));
    CHECK(m.values.empty());
    for (const auto& line : f.progress.lines)
        CHECK(line.size() < 2000);
    Fixture g;
    auto many = g.run(g.config("sh -c \"yes 'MLUPS: 1' | head -n 200\""));
    CHECK(many.values.size() == 200);
    for (const auto& line : g.progress.lines)
        CHECK(line.size() < 400);
}

TEST_CASE("a run registry another user created first is not used: the runs are recorded in the "
          "user's cache instead, and a benchmark that left its group dies with a killed perfsweep",
          "[runner][containment]") {
    // Before: the registry and the guard were silently off, and a setsid benchmark survived a
    // SIGKILL of perfsweep and the next run. (The registry is chosen once a process: the binary.)
    if (::geteuid() != 0) {
        WARN("SKIPPED: making a directory of another user needs root");
        return;
    }
    test::TempDir dir{"perfsweep-foreign-registry"};
    const auto xdg = dir.file("xdg"), home = dir.file("home");
    std::filesystem::create_directories(xdg + "/perfsweep-runs");
    std::filesystem::create_directories(home);
    REQUIRE(::chown((xdg + "/perfsweep-runs").c_str(), 65534, 65534) == 0);
    REQUIRE(::chmod((xdg + "/perfsweep-runs").c_str(), 0700) == 0);
    const auto pidfile = dir.file("escaped.pid"), err = dir.file("err");
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        const int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        ::dup2(e, 2);
        ::unsetenv("PERFSWEEP_RUN_DIR");
        ::unsetenv("XDG_CACHE_HOME");
        ::setenv("XDG_RUNTIME_DIR", xdg.c_str(), 1);
        ::setenv("HOME", home.c_str(), 1);
        test::exec_perfsweep_binary(
            {"run", "--runtime", "none", "--env-probe", "none", "--label", "x", "--logs",
             dir.file("logs"), "--test",
             "sh -c 'setsid sleep 300 & echo $! > " + pidfile + "; sleep 300'"});
    }
    const long escaped = wait_for_pid(pidfile, 500);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    check_gone(escaped, 250);
    const auto said = test::read_file(err);
    CHECK_THAT(said,
               Catch::Contains("belongs to uid 65534") &&
                   Catch::Contains("recorded in " + home + "/.cache/perfsweep/runs-0 instead"));
}

TEST_CASE("a root benchmark that moves itself to the root cgroup, then leaves its group and "
          "clears its environment, still dies with a timed-out run",
          "[runner][none][cgroup]") {
    // Before: it wrote its pid to the root cgroup's cgroup.procs (root may), left the run's
    // cgroup, and survived the timeout and perfsweep. Now the benchmark runs in a cgroup
    // namespace rooted at the run's cgroup (the move fails where the hierarchy delegates by
    // namespace), and perfsweep adopts orphans (a child subreaper) and ends those that left its
    // session at the timeout.
    const auto where = adapters::containment();
    if (where.cgroup_base.empty() || ::geteuid() != 0) {
        WARN("SKIPPED (needs root and a usable cgroup v2: " << where.why_not << ")");
        return;
    }
    std::string root;
    for (const auto& line : perfsweep::util::split(test::read_file("/proc/self/mountinfo"), '\n'))
        if (line.find(" - cgroup2 ") != std::string::npos) {
            std::istringstream in(line);
            std::string field;
            for (int i = 0; i < 5 && in >> field; ++i) {
            }
            if (where.cgroup_base.rfind(field, 0) == 0)
                root = field;
        }
    REQUIRE_FALSE(root.empty());
    Fixture f;
    const auto pidfile = f.dir.file("escaped.pid"), moved = f.dir.file("moved");
    const auto s =
        f.script("escape-root.sh", "( if echo $BASHPID > " + root +
                                       "/cgroup.procs 2>/dev/null; then touch " + moved +
                                       "; fi\n"
                                       "  exec setsid env -i sh -c 'trap \"\" TERM; echo $$ > " +
                                       pidfile +
                                       "; exec sleep 300' ) &\n"
                                       "sleep 300\n");
    f.run_to_timeout(s, 1, 0.2);
    const long escaped = wait_for_pid(pidfile);
    // Where cgroup2 is mounted with nsdelegate (systemd's default) the move itself fails; without
    // it the process leaves the cgroup, and dies as an orphan perfsweep adopted.
    INFO((std::filesystem::exists(moved) ? "it left the run's cgroup" : "the move failed"));
    check_gone(escaped);
}

TEST_CASE("a benchmark starts with no blocked signal, SIGPIPE at its default, in its own group "
          "and working directory",
          "[runner][none]") {
    // The child starts in this process's memory with every signal blocked (clone(CLONE_VM)):
    // it must leave that state, and this thread's mask and ignored SIGPIPE, behind at the exec.
    // `cat` reports its own state (a shell would clear its mask itself).
    test::TempDir dir{"perfsweep-child-state"};
    test::write_file(dir.file("here"), "Here:\t1\n");
    struct sigaction ign {
    }, old_pipe{};
    ign.sa_handler = SIG_IGN;
    ::sigaction(SIGPIPE, &ign, &old_pipe);
    sigset_t some, old_mask;
    ::sigemptyset(&some);
    ::sigaddset(&some, SIGUSR1);
    ::pthread_sigmask(SIG_BLOCK, &some, &old_mask);
    adapters::ProcessSpec spec;
    spec.argv = {"cat", "/proc/self/status", "here"};
    spec.workdir = dir.path();
    const auto c = adapters::capture_process(spec);
    ::pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
    ::sigaction(SIGPIPE, &old_pipe, nullptr);
    REQUIRE(c.result.exit_code == 0);
    std::map<std::string, std::string> status;
    for (const auto& line : util::split(c.output, '\n'))
        if (const auto colon = line.find(':'); colon != std::string::npos)
            status[line.substr(0, colon)] = std::string(util::trim(line.substr(colon + 1)));
    CHECK(status["Here"] == "1");
    CHECK(status["SigBlk"] == "0000000000000000");
    CHECK((std::stoull(status["SigIgn"], nullptr, 16) & (1ull << (SIGPIPE - 1))) == 0);
    CHECK(status["NSpgid"] == status["Pid"]);
}
