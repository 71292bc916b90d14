#pragma once
// Child processes without a shell: own process group (and cgroup where one can be made), output
// streamed through this process (secrets masked) to a log file, timeout with SIGTERM then SIGKILL
// to the whole group, exit code or signal recorded; a child dies with perfsweep
// (adapters/process/containment).

#include "adapters/process/secrets.hpp" // callers mask what children print

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace perfsweep::adapters {

/// A run's log keeps at most this much of its output: 2 MiB, the first and the last 1 MiB
/// (ProcessRunner: $PERFSWEEP_LOG_LIMIT bytes, 0 = no cap).
inline constexpr std::size_t k_default_log_limit = 2u << 20;

/// What to run and how.
struct ProcessSpec {
    std::vector<std::string> argv;          ///< argv[0] is looked up on PATH unless it has a '/'
    std::map<std::string, std::string> env; ///< set on top of this process's environment
    std::string workdir;                    ///< empty: the current directory
    std::string log_path;                   ///< stdout+stderr (truncated first); empty: /dev/null
    /// Most bytes the log keeps (the first and the last half of a longer output, with a line
    /// saying how much is left out between them); 0 = no cap.
    std::size_t log_limit = k_default_log_limit;
    double timeout_s = 0;          ///< 0: no limit
    double grace_s = 5;            ///< SIGTERM → SIGKILL delay after a timeout
    bool ignore_interrupt = false; ///< keep running after SIGINT (cleanup commands)
    /// In a run cgroup, give the child a cgroup namespace rooted there (root only; needs
    /// CAP_SYS_ADMIN): it cannot move itself to a cgroup outside the run's by writing a
    /// cgroup.procs file (docs/reliability.md says what it can still do). Off for container
    /// engines' clients, which place their containers' cgroups themselves.
    bool cgroup_namespace = false;
    /// Receives the output as it arrives (secrets masked), in order, in chunks of any size.
    std::function<void(std::string_view)> on_output;
    /// Removes what the run starts outside this machine's process tree (e.g. `docker rm -f
    /// NAME`); run by the guard or the next perfsweep if perfsweep dies while the run is going.
    std::vector<std::string> cleanup;
};

/// How a child ended.
struct ProcessResult {
    bool started = false;        ///< false: `error` says why it could not start
    std::string error;           ///< e.g. "'foo' not found on PATH"
    int exit_code = -1;          ///< exit status when it exited normally
    int signal = 0;              ///< terminating signal, 0 if none
    bool timed_out = false;      ///< killed after the timeout
    bool interrupted = false;    ///< killed because perfsweep got SIGINT/SIGTERM
    double elapsed_s = 0;        ///< wall time
    bool log_incomplete = false; ///< writing the log failed (disk full); the output was still read
};

/// Run `spec` to completion. The child leads its own process group (and its own cgroup v2 where
/// perfsweep may make one); when it ends (or times out) every process left in that group is
/// killed, so no helper it spawned survives it. Its output is read here as it comes: memory use
/// does not grow with it. If perfsweep dies, the child dies too (parent-death signal, guard).
ProcessResult run_process(const ProcessSpec& spec);

/// A finished child and everything it printed (stdout and stderr interleaved).
struct Captured {
    ProcessResult result;
    std::string output;
};

/// Run `spec` (its log_path is ignored) and return its output (the first 16 MiB); for short
/// helper commands.
Captured capture_process(ProcessSpec spec);

/// `name` looked up on `path_var` (':'-separated) like execvp does; "" when not found. A name
/// with a '/' is returned as is.
std::string find_executable(const std::string& name, const std::string& path_var);

/// "exit code 3", "killed by signal 11 (SIGSEGV)", "timed out after 30s", ...
std::string describe(const ProcessResult& r, double timeout_s);

/// Install (once) SIGINT/SIGTERM handlers: the first signal forwards SIGTERM to every running
/// child group and makes `interrupted()` true, so callers can clean up (remove containers) before
/// exiting; a second one SIGKILLs every running group and terminates at once (the guard then ends
/// what is left: escaped processes, cgroups, containers).
void install_interrupt_handlers();

/// The signal perfsweep received (SIGINT/SIGTERM), 0 if none.
int interrupted();

} // namespace perfsweep::adapters
