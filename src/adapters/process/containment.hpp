#pragma once
// What keeps a benchmark from outliving its run or its perfsweep:
// - every run is recorded while it is in flight in a registry of files (its owner — perfsweep's
//   pid, start time and boot — its environment cookie, its cgroup, and the command that removes
//   what it started outside this machine's process tree, e.g. `docker rm -f NAME`);
// - a guard process (`perfsweep-guard`, forked once, in its own session) ends the runs of its
//   perfsweep the moment that perfsweep dies, however it dies (SIGKILL, OOM kill, a second
//   Ctrl-C);
// - every perfsweep ends, before it measures anything, what runs of dead perfsweep processes
//   left behind (a guard killed together with its perfsweep);
// - where a writable cgroup v2 hierarchy allows it, every run gets its own cgroup, so even a
//   process that left the process group and cleared its environment is killed with the run;
// - perfsweep is a child subreaper: a run's process whose parent died is re-parented to it, and
//   at a timeout or interruption those that left its session are killed too (a root process can
//   leave its cgroup; docs/run.md, "Containment", says what remains).
// The code that ends runs is async-signal-safe: the guard is a fork of a multi-threaded process.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace perfsweep::adapters {

/// Where this process's runs are contained, decided once.
struct Containment {
    std::string cgroup_base;      ///< run cgroups are created below it; "" = cgroups not used
    std::string why_not;          ///< why cgroups are not used ("" when they are)
    std::string registry;         ///< directory of the runs-in-flight registry; "" = none
    std::string registry_why_not; ///< why there is no registry
    std::string registry_note;    ///< why the registry is not where it would be ("" = it is)
};

/// The containment of this process (first call: detection). Thread-safe.
Containment containment();

/// Where the cgroup v2 directory of a process is, from its /proc/self/mountinfo and
/// /proc/self/cgroup texts (pure): `dir`, or `why_not` ("no cgroup2 mount", ...).
struct CgroupLocation {
    std::string dir;
    std::string why_not;
};
/// See CgroupLocation.
CgroupLocation locate_cgroup2(std::string_view mountinfo, std::string_view self_cgroup);

/// Processes (other than this one) whose PERFSWEEP_RUN_COOKIE list holds `cookie`, sent `sig`;
/// returns how many there were. Async-signal-safe.
int signal_cookie_holders(const char* cookie, int sig);

/// One run while it is in flight: its registry entry and its cgroup (when cgroups are used).
/// Create it before the child starts; destroying it ends the record (the run is over).
class RunContainment {
public:
    /// Record a run with `cookie` ("" = none); `cleanup` (argv[0] an absolute path, may be empty)
    /// removes what it started outside this machine's process tree; `own_cgroup`: make it a
    /// cgroup (when cgroups are usable). Starts the guard on first use. A kept container is
    /// recorded the same way, with no cookie and no cgroup, for as long as it exists.
    RunContainment(std::string cookie, std::vector<std::string> cleanup, bool own_cgroup = true);
    ~RunContainment();
    RunContainment(const RunContainment&) = delete;
    RunContainment& operator=(const RunContainment&) = delete;
    /// File descriptor of the run cgroup's cgroup.procs for the child to join (write "0"), or -1.
    int join_fd() const { return m_procs_fd; }
    /// The run's cgroup directory ("" when none).
    const std::string& cgroup() const { return m_cgroup; }
    /// The child could not join the cgroup (errno `err`): cgroups are off from now on.
    void join_failed(int err);
    /// Send `sig` to every process of the run: its cookie holders and its cgroup's members.
    void signal_all(int sig);
    /// Kill everything of the run (cgroup.kill, cookie holders) and wait until it is gone (at
    /// most `wait_s`).
    void kill_all(double wait_s);
    /// The run ended by itself: what it left running (a build server) is moved out of the run's
    /// cgroup to perfsweep's own and keeps running; the run cgroup is removed.
    void release();

private:
    std::string m_cookie;
    std::string m_entry; ///< registry file, "" when not recorded
    std::string m_cgroup;
    int m_procs_fd = -1;
    unsigned long long m_started = 0; ///< clock ticks after boot when the run was recorded
};

/// What ending leftovers found.
struct LeftoverReport {
    int runs = 0;                     ///< registry entries of dead perfsweep processes ended
    int processes = 0;                ///< processes killed
    int cleanups = 0;                 ///< cleanup commands run (container removals)
    std::vector<std::string> details; ///< one line per run: owner pid, cookie, cleanup
    double waited_s = 0; ///< time spent waiting for a dead perfsweep's guard to end its runs
};

/// End every run in the registry whose perfsweep is dead (killed together with its guard):
/// SIGKILL its cookie holders, kill its cgroup, run its cleanup command, remove the entry.
/// Then waits (at most 150 s) while another live process (a dead perfsweep's guard) is still
/// ending such runs. Returns what was ended. Thread-safe; runs of live perfsweep processes are
/// left alone.
LeftoverReport end_orphaned_runs();

} // namespace perfsweep::adapters
