#include "support/temp_dir.hpp"

#include "main.hpp"

#if defined(__SANITIZE_ADDRESS__) || defined(PERFSWEEP_TEST_ASAN_RUNTIME)
#include <sanitizer/lsan_interface.h>
#endif

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio_ext.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

extern char** environ;

namespace perfsweep::test {

TempDir::TempDir(const std::string& prefix) {
    std::random_device rd;
    for (int i = 0; i < 100; ++i) {
        auto p = std::filesystem::temp_directory_path() /
                 (prefix + "-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
        if (std::filesystem::create_directory(p)) {
            m_path = p;
            return;
        }
    }
    throw std::runtime_error("cannot create a temp dir");
}

TempDir::~TempDir() {
    if (std::getenv("PERFSWEEP_KEEP_TEST_DIRS"))
        return;
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec);
}

void write_file(const std::string& path, const std::string& content) {
    std::filesystem::path p(path);
    if (p.has_parent_path())
        std::filesystem::create_directories(p.parent_path());
    std::ofstream out(path, std::ios::binary);
    out << content;
    if (!out)
        throw std::runtime_error("cannot write " + path);
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw std::runtime_error("cannot read " + path);
    // One bulk copy: a character iterator costs ~30 instructions a byte in this -O0 test code.
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

namespace {
std::string drain(int fd) {
    std::string s;
    char buf[65536];
    for (;;) {
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n <= 0)
            break;
        s.append(buf, static_cast<size_t>(n));
    }
    ::close(fd);
    return s;
}
} // namespace

namespace {

// Exec semantics for a child that does not exec: handled signals back to their defaults, nothing
// blocked, no alternate signal stack (Catch installs handlers and a sigaltstack in the test
// process).
void reset_signals_as_exec_would() {
    for (int sig = 1; sig < NSIG; ++sig) {
        struct sigaction sa {};
        if (::sigaction(sig, nullptr, &sa) == 0 && sa.sa_handler != SIG_DFL &&
            sa.sa_handler != SIG_IGN)
            ::signal(sig, SIG_DFL);
    }
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    stack_t ss{};
    ss.ss_flags = SS_DISABLE;
    ::sigaltstack(&ss, nullptr);
}

std::vector<char*> c_argv(const std::vector<std::string>& argv) {
    std::vector<char*> args;
    for (const auto& a : argv)
        args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    return args;
}

// Fork; in the child wire stdin/stdout/stderr to pipes, add `env` and call `child` (which never
// returns); in the parent feed `input`, collect both streams and wait.
// `spawn` (when given) starts the child without fork: posix_spawnp of `argv` with the pipes as
// its standard streams and `env` over this process's environment. A fork copies the page tables
// of this large sanitized test process and makes every page it writes afterwards fault once more
// (fork + exec of git from a 300 MB ASan process: 57 ms of CPU; posix_spawn: 10 ms).
template <typename Child>
CommandResult run_child(const std::vector<std::string>& env, const std::string& input, Child child,
                        const std::vector<std::string>* spawn = nullptr) {
    int in_pipe[2], out_pipe[2], err_pipe[2];
    if (::pipe(in_pipe) || ::pipe(out_pipe) || ::pipe(err_pipe))
        throw std::runtime_error("pipe failed");
    // Buffered test output must not be flushed a second time by a child that does not exec.
    std::fflush(nullptr);
    std::cout.flush();
    std::cerr.flush();
    pid_t pid = -1;
    bool spawn_failed = false;
    if (spawn) {
        posix_spawn_file_actions_t fa;
        ::posix_spawn_file_actions_init(&fa);
        ::posix_spawn_file_actions_adddup2(&fa, in_pipe[0], 0);
        ::posix_spawn_file_actions_adddup2(&fa, out_pipe[1], 1);
        ::posix_spawn_file_actions_adddup2(&fa, err_pipe[1], 2);
        for (int fd : {in_pipe[0], in_pipe[1], out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]})
            ::posix_spawn_file_actions_addclose(&fa, fd);
        // What putenv of each "K=V" in the child did: K replaced or added.
        std::vector<std::string> envs;
        for (char** e = environ; *e; ++e) {
            const std::string kv = *e;
            const auto eq = kv.find('=');
            const auto key = kv.substr(0, eq == std::string::npos ? kv.size() : eq + 1);
            bool replaced = false;
            for (const auto& x : env)
                replaced = replaced || x.rfind(key, 0) == 0;
            if (!replaced)
                envs.push_back(kv);
        }
        envs.insert(envs.end(), env.begin(), env.end());
        auto cenv = c_argv(envs);
        auto args = c_argv(*spawn);
        // Signals: a forked child kept the mask and the ignored signals too.
        spawn_failed = ::posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), cenv.data()) != 0;
        ::posix_spawn_file_actions_destroy(&fa);
    } else {
        pid = ::fork();
        if (pid < 0)
            throw std::runtime_error("fork failed");
    }
    if (pid == 0 && !spawn) {
        ::dup2(in_pipe[0], 0);
        ::dup2(out_pipe[1], 1);
        ::dup2(err_pipe[1], 2);
        for (int fd : {in_pipe[0], in_pipe[1], out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]})
            ::close(fd);
        for (const auto& kv : env)
            ::putenv(const_cast<char*>(kv.c_str()));
        child();
    }
    if (spawn_failed) { // what the forked child's failed execvp reported: exit status 127
        for (int fd : {in_pipe[0], in_pipe[1], out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]})
            ::close(fd);
        CommandResult r;
        r.exit_code = 127;
        return r;
    }
    ::close(in_pipe[0]);
    ::close(out_pipe[1]);
    ::close(err_pipe[1]);
    std::thread writer([&] {
        size_t off = 0;
        while (off < input.size()) {
            ssize_t n = ::write(in_pipe[1], input.data() + off, input.size() - off);
            if (n <= 0)
                break;
            off += static_cast<size_t>(n);
        }
        ::close(in_pipe[1]);
    });
    CommandResult r;
    std::thread err_reader([&] { r.err = drain(err_pipe[0]); });
    r.out = drain(out_pipe[0]);
    err_reader.join();
    writer.join();
    int status = 0;
    ::waitpid(pid, &status, 0);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return r;
}

} // namespace

CommandResult run_command(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                          const std::string& input) {
    return run_child(
        env, input, [] {}, &argv);
}

bool perfsweep_runs_exec() {
    const char* v = std::getenv("PERFSWEEP_TEST_EXEC");
    return v && std::string(v) == "1";
}

[[noreturn]] void exec_perfsweep_binary(const std::vector<std::string>& args) {
    std::vector<std::string> argv{PERFSWEEP_EXE};
    argv.insert(argv.end(), args.begin(), args.end());
    auto cargs = c_argv(argv);
    ::execv(cargs[0], cargs.data());
    ::_exit(127);
}

[[noreturn]] void become_perfsweep(const std::vector<std::string>& args) {
    // `demo` records its own executable (/proc/self/exe) in the world and state it writes, which
    // later commands name as PERFSWEEP_EXE: it runs as the real binary.
    if (perfsweep_runs_exec() || (!args.empty() && args[0] == "demo"))
        exec_perfsweep_binary(args);
    std::vector<std::string> argv{PERFSWEEP_EXE};
    argv.insert(argv.end(), args.begin(), args.end());
    auto cargs = c_argv(argv);
    // Output the test process wrote but had not flushed when the caller forked (Catch's
    // "Filters:" line, when stdout is a pipe) would come out of this child too: exec drops it.
    ::__fpurge(stdout);
    ::__fpurge(stderr);
    reset_signals_as_exec_would();
    // The process name exec would give (/proc/PID/comm): tests find perfsweep by it.
    const std::string exe = PERFSWEEP_EXE;
    ::prctl(PR_SET_NAME, exe.substr(exe.rfind('/') + 1).c_str(), 0, 0, 0);
    // A program this process starts as /proc/self/exe (the demo's benchmark) runs as perfsweep.
    ::setenv("PERFSWEEP_TEST_BINARY_RUNS_CLI", "1", 1);
    int rc = perfsweep_main(static_cast<int>(argv.size()), cargs.data());
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
#if defined(__SANITIZE_ADDRESS__) || defined(PERFSWEEP_TEST_ASAN_RUNTIME)
    // What exit() of the real binary does under ASan: a leak check, exit status 23 on a leak
    // (LeakSanitizer's default). Opt-in (PERFSWEEP_TEST_CHILD_LEAK_CHECK=1) until it has been run
    // against the whole suite: the child also holds the test process's heap. Leaks stay checked
    // at the exit of every test binary and of the real binary (demo, PERFSWEEP_TEST_EXEC=1).
    if (const char* check = std::getenv("PERFSWEEP_TEST_CHILD_LEAK_CHECK");
        check && std::string(check) == "1" && __lsan_do_recoverable_leak_check() != 0)
        rc = 23;
#endif
    ::_exit(rc);
}

CommandResult run_perfsweep(const std::vector<std::string>& args,
                            const std::vector<std::string>& env, const std::string& input) {
    return run_child(env, input, [&] { become_perfsweep(args); });
}

} // namespace perfsweep::test
