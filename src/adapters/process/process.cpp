#include "adapters/process/process.hpp"

#include "adapters/process/secrets.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <set>
#include <thread>

extern char** environ;

namespace perfsweep::adapters {

namespace {

constexpr int k_slots = 512;
std::array<std::atomic<pid_t>, k_slots> g_groups{};
std::atomic<int> g_interrupted{0};

extern "C" void on_interrupt(int sig) {
    if (g_interrupted.exchange(sig) != 0) { // a second Ctrl-C: stop now, without cleanup
        ::signal(sig, SIG_DFL);
        ::raise(sig);
        return;
    }
    for (auto& slot : g_groups) {
        pid_t p = slot.load();
        if (p > 0)
            ::kill(-p, SIGTERM);
    }
}

int register_group(pid_t pid) {
    for (int i = 0; i < k_slots; ++i) {
        pid_t expected = 0;
        if (g_groups[static_cast<size_t>(i)].compare_exchange_strong(expected, pid))
            return i;
    }
    return -1;
}

// Every child gets a unique cookie in its environment (as Jenkins' process-tree killer does with
// BUILD_ID): a descendant that left the process group (setsid, a double-forked daemon) still
// inherits it, so a /proc scan finds it when the run must die (timeout, interruption). Nested
// perfsweep runs append their own cookie to the list.
constexpr const char* k_cookie_name = "PERFSWEEP_RUN_COOKIE";
std::atomic<unsigned long> g_cookie_counter{0};

std::string new_cookie() {
    return std::to_string(::getpid()) + "." + std::to_string(++g_cookie_counter) + "." +
           std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
}

// Processes (other than this one) whose environment's cookie list holds `cookie`.
std::vector<pid_t> cookie_holders(const std::string& cookie) {
    std::vector<pid_t> out;
    const std::string prefix = std::string(k_cookie_name) + "=";
    std::error_code ec;
    for (std::filesystem::directory_iterator it("/proc", ec), end; !ec && it != end;
         it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos)
            continue;
        const pid_t pid = static_cast<pid_t>(std::stol(name));
        if (pid == ::getpid())
            continue;
        std::ifstream in(it->path() / "environ", std::ios::binary);
        if (!in) // gone, or another user's process
            continue;
        std::string entry;
        while (std::getline(in, entry, '\0')) {
            if (entry.compare(0, prefix.size(), prefix) != 0)
                continue;
            for (const auto& c : util::split(entry.substr(prefix.size()), ','))
                if (c == cookie)
                    out.push_back(pid);
            break;
        }
    }
    return out;
}

// Send `sig` to every holder of `cookie`; true when there was one.
bool signal_cookie_holders(const std::string& cookie, int sig) {
    const auto pids = cookie_holders(cookie);
    for (pid_t p : pids)
        ::kill(p, sig);
    return !pids.empty();
}

void unregister_group(int slot) {
    if (slot >= 0)
        g_groups[static_cast<size_t>(slot)].store(0);
}

std::string find_program(const std::string& name, const std::string& path_var) {
    if (name.find('/') != std::string::npos)
        return name;
    size_t start = 0;
    while (start <= path_var.size()) {
        size_t end = path_var.find(':', start);
        if (end == std::string::npos)
            end = path_var.size();
        std::string dir = path_var.substr(start, end - start);
        if (dir.empty())
            dir = ".";
        std::string full = dir + "/" + name;
        if (::access(full.c_str(), X_OK) == 0 && !std::filesystem::is_directory(full))
            return full;
        start = end + 1;
    }
    return {};
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

ProcessResult run_process(const ProcessSpec& spec) {
    ProcessResult r;
    const auto t0 = std::chrono::steady_clock::now();
    if (spec.argv.empty()) {
        r.error = "empty command";
        return r;
    }
    std::map<std::string, std::string> env;
    const auto secrets = protected_env_names();
    for (char** e = environ; e && *e; ++e) {
        std::string kv(*e);
        size_t eq = kv.find('=');
        // Credentials are never inherited: a benchmark or build cannot read (or echo) the token.
        if (eq != std::string::npos && !secrets.count(kv.substr(0, eq)))
            env[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    for (const auto& [k, v] : spec.env)
        env[k] = v;
    const std::string cookie = new_cookie();
    {
        auto& list = env[k_cookie_name];
        list = list.empty() ? cookie : list + "," + cookie;
    }
    const std::string program = find_program(spec.argv[0], env.count("PATH") ? env["PATH"] : "");
    if (program.empty()) {
        r.error = "'" + spec.argv[0] + "' not found on PATH";
        return r;
    }
    std::vector<std::string> env_strings;
    for (const auto& [k, v] : env)
        env_strings.push_back(k + "=" + v);
    std::vector<char*> envp, argv;
    for (auto& s : env_strings)
        envp.push_back(s.data());
    envp.push_back(nullptr);
    std::vector<std::string> args = spec.argv;
    for (auto& a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);

    const std::string log = spec.log_path.empty() ? "/dev/null" : spec.log_path;
    int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (log_fd < 0) {
        r.error = "cannot open log file '" + log + "': " + std::strerror(errno);
        return r;
    }
    int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    int err_pipe[2];
    if (null_fd < 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0) {
        r.error = std::string("cannot create pipe: ") + std::strerror(errno);
        ::close(log_fd);
        if (null_fd >= 0)
            ::close(null_fd);
        return r;
    }
    const char* workdir = spec.workdir.empty() ? nullptr : spec.workdir.c_str();
    pid_t pid = ::fork();
    if (pid < 0) {
        r.error = std::string("fork failed: ") + std::strerror(errno);
        for (int fd : {log_fd, null_fd, err_pipe[0], err_pipe[1]})
            ::close(fd);
        return r;
    }
    if (pid == 0) {
        // Child: async-signal-safe calls only.
        ::setpgid(0, 0);
        struct sigaction dfl {};
        dfl.sa_handler = SIG_DFL;
        ::sigaction(SIGINT, &dfl, nullptr);
        ::sigaction(SIGTERM, &dfl, nullptr);
        ::sigaction(SIGPIPE, &dfl, nullptr);
        sigset_t none;
        ::sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        ::dup2(null_fd, 0);
        ::dup2(log_fd, 1);
        ::dup2(log_fd, 2);
        int step = 0;
        if (workdir && ::chdir(workdir) != 0)
            step = 1;
        else
            ::execve(program.c_str(), argv.data(), envp.data());
        int code[2] = {step, errno};
        ssize_t ignored = ::write(err_pipe[1], code, sizeof code);
        (void)ignored;
        ::_exit(127);
    }
    ::setpgid(pid, pid);
    const int slot = spec.ignore_interrupt ? -1 : register_group(pid);
    for (int fd : {log_fd, null_fd, err_pipe[1]})
        ::close(fd);
    int code[2] = {0, 0};
    ssize_t n;
    do
        n = ::read(err_pipe[0], code, sizeof code);
    while (n < 0 && errno == EINTR);
    ::close(err_pipe[0]);
    r.started = n <= 0;
    if (!r.started)
        r.error = code[0] == 1 ? "cannot enter working directory '" + spec.workdir +
                                     "': " + std::strerror(code[1])
                               : "cannot execute '" + program + "': " + std::strerror(code[1]);

    // Wait without reaping (WNOWAIT keeps the pid, hence the group id, reserved), killing the
    // group on timeout or interruption.
    bool term_sent = false;
    double term_at = 0;
    int sleep_ms = 1;
    // A pidfd (Linux >= 5.3) becomes readable when the child exits: no polling latency for the
    // many short runs. Without it (older kernels, seccomp), sleep with backoff.
#ifdef SYS_pidfd_open
    const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
#else
    const int pidfd = -1;
#endif
    siginfo_t info{};
    for (;;) {
        info.si_pid = 0;
        int w = ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT);
        if (w == 0 && info.si_pid == pid)
            break;
        if (w < 0 && errno != EINTR)
            break;
        const double el = seconds_since(t0);
        if (!term_sent && ((!spec.ignore_interrupt && g_interrupted.load() != 0) ||
                           (spec.timeout_s > 0 && el > spec.timeout_s))) {
            r.interrupted = !spec.ignore_interrupt && g_interrupted.load() != 0;
            r.timed_out = !r.interrupted;
            ::kill(-pid, SIGTERM);
            signal_cookie_holders(cookie, SIGTERM); // those that left the group too
            term_sent = true;
            term_at = el;
        } else if (term_sent && el - term_at > spec.grace_s) {
            ::kill(-pid, SIGKILL);
            signal_cookie_holders(cookie, SIGKILL);
        }
        if (pidfd >= 0) {
            pollfd pfd{pidfd, POLLIN, 0};
            ::poll(&pfd, 1, 20); // a signal (SIGINT/SIGTERM) interrupts it at once
        } else {
            std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms));
            sleep_ms = std::min(sleep_ms * 2, 20);
        }
    }
    if (pidfd >= 0)
        ::close(pidfd);
    ::kill(-pid, SIGKILL); // whatever the leader left behind in its group dies with it
    // The forwarded SIGTERM may end the child before this loop sees the flag: it was still
    // interrupted (the caller must clean up, e.g. remove the run's container).
    if (!spec.ignore_interrupt && g_interrupted.load() != 0 && !r.timed_out)
        r.interrupted = true;
    // A run that had to die (timeout, interruption) takes its escaped descendants with it; a run
    // that ended by itself keeps them (a build tool's server, e.g. Bazel's, may serve the next).
    if (term_sent || r.interrupted)
        for (int round = 0; round < 5 && signal_cookie_holders(cookie, SIGKILL); ++round)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    unregister_group(slot);
    r.elapsed_s = seconds_since(t0);
    if (WIFEXITED(status))
        r.exit_code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
        r.signal = WTERMSIG(status);
    return r;
}

Captured capture_process(ProcessSpec spec) {
    // In $TMPDIR (the runner's scratch space), else /tmp; removed before returning.
    const char* tmpdir = std::getenv("TMPDIR");
    std::string path =
        std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/perfsweep-capture-XXXXXX";
    std::vector<char> tmpl(path.begin(), path.end());
    tmpl.push_back('\0');
    int fd = ::mkstemp(tmpl.data());
    Captured c;
    if (fd < 0) {
        c.result.error = std::string("cannot create a temporary file: ") + std::strerror(errno);
        return c;
    }
    ::close(fd);
    spec.log_path = tmpl.data();
    c.result = run_process(spec);
    std::ifstream in(tmpl.data(), std::ios::binary);
    c.output.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    ::unlink(tmpl.data());
    return c;
}

std::string describe(const ProcessResult& r, double timeout_s) {
    if (!r.started)
        return r.error;
    if (r.interrupted)
        return "interrupted";
    if (r.timed_out)
        return "timed out after " + util::format_duration(timeout_s);
    if (r.signal != 0) {
        const char* name = ::sigabbrev_np(r.signal);
        return "killed by signal " + std::to_string(r.signal) +
               (name ? std::string(" (SIG") + name + ")" : std::string());
    }
    return "exit code " + std::to_string(r.exit_code);
}

void install_interrupt_handlers() {
    static std::atomic<bool> installed{false};
    if (installed.exchange(true))
        return;
    struct sigaction sa {};
    sa.sa_handler = on_interrupt;
    ::sigemptyset(&sa.sa_mask);
    ::sigaction(SIGINT, &sa, nullptr);
    ::sigaction(SIGTERM, &sa, nullptr);
}

int interrupted() {
    return g_interrupted.load();
}

} // namespace perfsweep::adapters
