#include "adapters/process/process.hpp"

#include "adapters/process/containment.hpp"
#include "adapters/process/secrets.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

extern char** environ;

namespace perfsweep::adapters {

namespace {

constexpr int k_slots = 512;
std::array<std::atomic<pid_t>, k_slots> g_groups{};
std::atomic<int> g_interrupted{0};

extern "C" void on_interrupt(int sig) {
    if (g_interrupted.exchange(sig) != 0) {
        // A second Ctrl-C: stop now. Running groups get SIGKILL first (a benchmark that ignores
        // the SIGTERM of the first one must not outlive us); the guard ends the rest (escaped
        // processes, cgroups, containers) when this process is gone.
        for (auto& slot : g_groups) {
            const pid_t p = slot.load();
            if (p > 0)
                ::kill(-p, SIGKILL);
        }
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

void unregister_group(int slot) {
    if (slot >= 0)
        g_groups[static_cast<size_t>(slot)].store(0);
}

// Every child gets a unique cookie in its environment (as Jenkins' process-tree killer does with
// BUILD_ID): a descendant that left the process group (setsid, a double-forked daemon) still
// inherits it, so a /proc scan finds it when the run must die (timeout, interruption, perfsweep
// killed). Nested perfsweep runs append their own cookie to the list.
constexpr const char* k_cookie_variable = "PERFSWEEP_RUN_COOKIE";
std::atomic<unsigned long> g_cookie_counter{0};

std::string new_cookie() {
    return std::to_string(::getpid()) + "." + std::to_string(++g_cookie_counter) + "." +
           std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
}

std::string find_program_on(const std::string& name, const std::string& path_var) {
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

/// Where a run's output goes: masked, then to the log file and the caller's callback. The log
/// keeps the first and the last `limit / 2` bytes of a longer output, with a line between them
/// saying how much was left out (the callback sees everything).
class OutputSink {
public:
    OutputSink(int log_fd, const std::function<void(std::string_view)>& callback, std::size_t limit)
        : m_fd(log_fd), m_callback(callback), m_masker(secret_values()), m_head(limit / 2),
          m_tail(limit - limit / 2), m_limited(limit > 0) {}
    void take(std::string_view chunk) { emit(m_masker.feed(chunk)); }
    void finish() {
        emit(m_masker.finish());
        if (m_ring.empty())
            return;
        const std::size_t keep = std::min(m_ring.size(), m_tail);
        const std::size_t skipped = m_skipped + m_ring.size() - keep;
        if (skipped > 0)
            log("\n[perfsweep: " + std::to_string(skipped) +
                " bytes of output left out here; the log keeps the first and the last " +
                std::to_string(m_tail >> 10) + " KiB]\n");
        log(std::string_view(m_ring).substr(m_ring.size() - keep));
    }
    bool log_failed() const { return m_log_failed; }

private:
    void log(std::string_view text) {
        for (std::size_t done = 0; m_fd >= 0 && !m_log_failed && done < text.size();) {
            const ssize_t w = ::write(m_fd, text.data() + done, text.size() - done);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0)
                m_log_failed = true;
            else
                done += static_cast<std::size_t>(w);
        }
    }
    void emit(const std::string& text) {
        if (text.empty())
            return;
        std::string_view rest = text;
        if (!m_limited) {
            log(rest);
        } else {
            const std::size_t head = std::min(rest.size(), m_head - std::min(m_head, m_logged));
            log(rest.substr(0, head));
            m_logged += head;
            rest.remove_prefix(head);
            if (!rest.empty()) { // past the head: only the last m_tail bytes are kept
                m_ring.append(rest);
                if (m_ring.size() > 2 * m_tail) {
                    m_skipped += m_ring.size() - m_tail;
                    m_ring.erase(0, m_ring.size() - m_tail);
                }
            }
        }
        if (m_callback)
            m_callback(text);
    }
    int m_fd;
    const std::function<void(std::string_view)>& m_callback;
    SecretStream m_masker;
    std::size_t m_head, m_tail;
    bool m_limited;
    std::size_t m_logged = 0;  ///< bytes of the head written
    std::string m_ring;        ///< output after the head, its last m_tail..2*m_tail bytes
    std::size_t m_skipped = 0; ///< bytes dropped from m_ring
    bool m_log_failed = false;
};

/// Read what is in the pipe now (non-blocking), at most `max_reads` reads (a fast writer must
/// not starve the timeout check); false at end of file.
bool drain(int fd, OutputSink& sink, char* buf, std::size_t cap, int max_reads = 32) {
    for (int reads = 0; reads < max_reads; ++reads) {
        const ssize_t n = ::read(fd, buf, cap);
        if (n > 0) {
            sink.take(std::string_view(buf, static_cast<std::size_t>(n)));
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        return n < 0; // EAGAIN: open, nothing now; 0: end of file
    }
    return true;
}

/// What the child of run_process needs, all prepared before it exists (it must not allocate).
struct ChildSetup {
    pid_t parent;
    int join_fd;    ///< the run's cgroup.procs (-1: none)
    bool cgroup_ns; ///< unshare the cgroup namespace after joining
    int err_fd;     ///< {step, errno} records to the parent
    int null_fd, out_fd;
    const char* workdir; ///< nullptr: stay
    const char* program;
    char** argv;
    char** envp;
};

/// The child between clone and exec. It shares the parent's memory (CLONE_VM, the parent waits
/// until it execs or exits), so it makes system calls only: no allocation, no lock, nothing the
/// parent reads but `envp`'s order and errno. Not instrumented: ASan would poison redzones on
/// a stack that the parent frees after the exec.
__attribute__((no_sanitize("address"))) int child_main(void* arg) {
    const ChildSetup& c = *static_cast<const ChildSetup*>(arg);
    ::setpgid(0, 0);
    // Dies with perfsweep (SIGKILL when the thread that started it is gone).
    ::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (::getppid() != c.parent)
        ::_exit(127);
    if (c.join_fd >= 0 && ::write(c.join_fd, "0", 1) == 1) {
        if (c.cgroup_ns) // fails without CAP_SYS_ADMIN: then there is nothing to stop
            (void)::unshare(CLONE_NEWCGROUP);
    } else if (c.join_fd >= 0) {
        int code[2] = {2, errno};
        ssize_t ignored = ::write(c.err_fd, code, sizeof code);
        (void)ignored;
        for (char** e = c.envp; *e; ++e) // it runs without a cgroup: say so
            if (std::strncmp(*e, "PERFSWEEP_CGROUP=", 17) == 0) {
                for (char** m = e; *m; ++m)
                    m[0] = m[1];
                break;
            }
    }
    // The parent blocked every signal around the clone: a handler of the parent must not run
    // here, in its memory. Those it catches are reset (exec would reset them), then the mask is
    // emptied, as for any new benchmark.
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; ++sig) {
        struct sigaction old {};
        if (sig == SIGKILL || sig == SIGSTOP || ::sigaction(sig, nullptr, &old) != 0)
            continue;
        if (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN)
            ::sigaction(sig, &dfl, nullptr);
    }
    ::sigaction(SIGPIPE, &dfl, nullptr); // ignored by perfsweep, not by the benchmark
    sigset_t none;
    ::sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::dup2(c.null_fd, 0);
    ::dup2(c.out_fd, 1);
    ::dup2(c.out_fd, 2);
    int step = 0;
    if (c.workdir && ::chdir(c.workdir) != 0)
        step = 1;
    else
        ::execve(c.program, c.argv, c.envp);
    int code[2] = {step, errno};
    ssize_t ignored = ::write(c.err_fd, code, sizeof code);
    (void)ignored;
    ::_exit(127);
}

/// Start child_main(setup) in a new process; its pid, or -errno. clone(CLONE_VM | CLONE_VFORK)
/// as glibc's posix_spawn: the child borrows this process's memory until it execs, so nothing
/// is copied. A fork of a large process (a sanitized perfsweep, or a test process running the
/// CLI in a fork) copied its page tables and tore them down again at the exec.
pid_t spawn_child(ChildSetup& setup) {
    constexpr std::size_t k_stack = 256 * 1024;
    void* stack = ::mmap(nullptr, k_stack, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE, -1, 0);
    if (stack == MAP_FAILED)
        return -errno;
#if defined(__SANITIZE_ADDRESS__)
    // The child's stack must read as addressable to the interceptors of the calls it makes
    // (write(2) of a record on it), whatever an earlier mapping at this address left.
    ASAN_UNPOISON_MEMORY_REGION(stack, k_stack);
#endif
    sigset_t all, old;
    ::sigfillset(&all);
    ::pthread_sigmask(SIG_SETMASK, &all, &old);
    const pid_t pid = ::clone(child_main, static_cast<char*>(stack) + k_stack,
                              CLONE_VM | CLONE_VFORK | SIGCHLD, &setup);
    const int err = errno;
    ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
    ::munmap(stack, k_stack);
    return pid < 0 ? -err : pid;
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
        auto& list = env[k_cookie_variable];
        list = list.empty() ? cookie : list + "," + cookie;
    }
    const std::string path_var = env.count("PATH") ? env["PATH"] : "";
    const std::string program = find_program_on(spec.argv[0], path_var);
    if (program.empty()) {
        r.error = "'" + spec.argv[0] + "' not found on PATH";
        return r;
    }
    std::vector<std::string> cleanup = spec.cleanup;
    if (!cleanup.empty()) {
        cleanup[0] = find_program_on(cleanup[0], path_var);
        if (cleanup[0].empty())
            cleanup.clear();
        else
            cleanup[0] = std::filesystem::absolute(cleanup[0]).string();
    }
    // Recorded before the child exists: whatever kills perfsweep from now on, the guard (or the
    // next perfsweep) finds this run.
    RunContainment run(cookie, cleanup);
    if (!run.cgroup().empty())
        env["PERFSWEEP_CGROUP"] = run.cgroup();
    else
        env.erase("PERFSWEEP_CGROUP");
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

    // Output goes through a pipe to this process, which masks secrets and writes the log (and
    // hands it to on_output): nothing of it is held in memory here.
    const bool piped = !spec.log_path.empty() || static_cast<bool>(spec.on_output);
    int log_fd = -1;
    if (!spec.log_path.empty()) {
        log_fd = ::open(spec.log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (log_fd < 0) {
            r.error = "cannot open log file '" + spec.log_path + "': " + std::strerror(errno);
            return r;
        }
    }
    int out_pipe[2] = {-1, -1};
    int null_fd = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    int err_pipe[2] = {-1, -1};
    auto close_all = [&] {
        for (int fd : {log_fd, null_fd, err_pipe[0], err_pipe[1], out_pipe[0], out_pipe[1]})
            if (fd >= 0)
                ::close(fd);
    };
    if (null_fd < 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0 ||
        (piped && ::pipe2(out_pipe, O_CLOEXEC) != 0)) {
        r.error = std::string("cannot create pipe: ") + std::strerror(errno);
        close_all();
        return r;
    }
    if (piped)
        (void)::fcntl(out_pipe[0], F_SETPIPE_SZ, 1 << 20); // fewer wake-ups for chatty output
    const int out_fd = piped ? out_pipe[1] : null_fd;
    const int join_fd = run.join_fd();
    const bool cgroup_ns = spec.cgroup_namespace && ::geteuid() == 0;
    ChildSetup setup{::getpid(),
                     join_fd,
                     cgroup_ns,
                     err_pipe[1],
                     null_fd,
                     out_fd,
                     spec.workdir.empty() ? nullptr : spec.workdir.c_str(),
                     program.c_str(),
                     argv.data(),
                     envp.data()};
    const pid_t pid = spawn_child(setup);
    if (pid < 0) {
        r.error = std::string("cannot start a process: ") + std::strerror(-pid);
        close_all();
        return r;
    }
    ::setpgid(pid, pid);
    const int slot = spec.ignore_interrupt ? -1 : register_group(pid);
    ::close(err_pipe[1]);
    err_pipe[1] = -1;
    if (out_pipe[1] >= 0) {
        ::close(out_pipe[1]);
        out_pipe[1] = -1;
    }
    r.started = true;
    for (;;) { // records until exec closes the pipe: {2, errno} cgroup, {0|1, errno} no exec
        int code[2] = {0, 0};
        ssize_t n;
        do
            n = ::read(err_pipe[0], code, sizeof code);
        while (n < 0 && errno == EINTR);
        if (n != static_cast<ssize_t>(sizeof code))
            break;
        if (code[0] == 2) {
            run.join_failed(code[1]);
            continue;
        }
        r.started = false;
        r.error = code[0] == 1 ? "cannot enter working directory '" + spec.workdir +
                                     "': " + std::strerror(code[1])
                               : "cannot execute '" + program + "': " + std::strerror(code[1]);
    }
    ::close(err_pipe[0]);
    err_pipe[0] = -1;

    OutputSink sink(log_fd, spec.on_output, spec.log_limit);
    std::vector<char> buf(piped ? 64 * 1024 : 0);
    int out_rd = out_pipe[0];
    if (out_rd >= 0)
        (void)::fcntl(out_rd, F_SETFL, ::fcntl(out_rd, F_GETFL) | O_NONBLOCK);

    // Wait without reaping (WNOWAIT keeps the pid, hence the group id, reserved), reading the
    // output and killing the group on timeout or interruption.
    bool term_sent = false;
    double term_at = 0;
    // A pidfd (Linux >= 5.3) becomes readable when the child exits: no polling latency for the
    // many short runs. Without it (older kernels, seccomp), poll with a short timeout.
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
            run.signal_all(SIGTERM); // those that left the group too
            term_sent = true;
            term_at = el;
        } else if (term_sent && el - term_at > spec.grace_s) {
            ::kill(-pid, SIGKILL);
            run.signal_all(SIGKILL);
        }
        std::array<pollfd, 2> fds{};
        nfds_t nfds = 0;
        if (out_rd >= 0)
            fds[nfds++] = {out_rd, POLLIN, 0};
        if (pidfd >= 0)
            fds[nfds++] = {pidfd, POLLIN, 0};
        // A signal (SIGINT/SIGTERM) interrupts the poll at once; without a pidfd the timeout is
        // the exit-detection latency.
        ::poll(fds.data(), nfds, pidfd >= 0 ? 20 : 5);
        if (out_rd >= 0 && !drain(out_rd, sink, buf.data(), buf.size())) {
            ::close(out_rd); // the child closed its output; keep waiting for its exit
            out_rd = -1;
        }
    }
    if (pidfd >= 0)
        ::close(pidfd);
    if (out_rd >= 0 && !drain(out_rd, sink, buf.data(), buf.size())) {
        ::close(out_rd);
        out_rd = -1;
    }
    ::kill(-pid, SIGKILL); // whatever the leader left behind in its group dies with it
    // The forwarded SIGTERM may end the child before this loop sees the flag: it was still
    // interrupted (the caller must clean up, e.g. remove the run's container).
    if (!spec.ignore_interrupt && g_interrupted.load() != 0 && !r.timed_out)
        r.interrupted = true;
    // A run that had to die (timeout, interruption) takes its escaped descendants with it (its
    // cgroup, its cookie holders); a run that ended by itself keeps them (a build tool's server,
    // e.g. Bazel's, may serve the next).
    if (term_sent || r.interrupted)
        run.kill_all(1.0);
    else
        run.release();
    // Output still in the pipe, from the group just killed. A survivor that keeps the pipe open
    // (a server started by a run that ended by itself) is read for at most half a second; later
    // output of it is not logged.
    if (out_rd >= 0) {
        const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(500);
        while (std::chrono::steady_clock::now() < until) {
            pollfd pfd{out_rd, POLLIN, 0};
            if (::poll(&pfd, 1, 20) <= 0)
                break;
            if (!drain(out_rd, sink, buf.data(), buf.size()))
                break;
        }
        ::close(out_rd);
    }
    sink.finish();
    if (log_fd >= 0)
        ::close(log_fd);
    ::close(null_fd);
    r.log_incomplete = sink.log_failed();
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

std::string find_executable(const std::string& name, const std::string& path_var) {
    return find_program_on(name, path_var);
}

Captured capture_process(ProcessSpec spec) {
    constexpr std::size_t k_cap = 16 * 1024 * 1024;
    Captured c;
    spec.log_path.clear();
    spec.on_output = [&c](std::string_view text) {
        if (c.output.size() < k_cap)
            c.output.append(text.substr(0, k_cap - c.output.size()));
    };
    c.result = run_process(spec);
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
