#include "adapters/process/containment.hpp"

#include "util/strings.hpp"

#include <climits>

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>

extern char** environ;

namespace perfsweep::adapters {

namespace {

// =============================================================================================
// Async-signal-safe helpers: no allocation, no locks, no exceptions, stack buffers only. The
// guard runs them after a fork of a multi-threaded process, and worker threads run them at once.

constexpr std::size_t k_path = PATH_MAX;
constexpr const char* k_cookie_name = "PERFSWEEP_RUN_COOKIE=";
constexpr const char* k_entry_magic = "perfsweep-run-1";

std::size_t cstr_len(const char* s) {
    std::size_t n = 0;
    while (s[n] != '\0')
        ++n;
    return n;
}

bool cstr_eq(const char* a, const char* b) {
    while (*a != '\0' && *a == *b) {
        ++a;
        ++b;
    }
    return *a == *b;
}

bool starts_with(const char* s, const char* prefix) {
    while (*prefix != '\0')
        if (*s++ != *prefix++)
            return false;
    return true;
}

/// A bounded string builder over a caller's buffer; `ok` turns false when it would overflow.
struct Text {
    char* buf;
    std::size_t cap;
    std::size_t n = 0;
    bool ok = true;
    Text(char* b, std::size_t c) : buf(b), cap(c) { buf[0] = '\0'; }
    Text& add(const char* s) {
        for (; *s != '\0'; ++s) {
            if (n + 1 >= cap) {
                ok = false;
                break;
            }
            buf[n++] = *s;
        }
        buf[n] = '\0';
        return *this;
    }
    Text& num(unsigned long long v) {
        char digits[24];
        int k = 0;
        do {
            digits[k++] = static_cast<char>('0' + v % 10);
            v /= 10;
        } while (v != 0);
        char one[2] = {0, 0};
        while (k > 0) {
            one[0] = digits[--k];
            add(one);
        }
        return *this;
    }
};

/// Read up to cap-1 bytes of `path` into `buf`, NUL-terminated; -1 when it cannot be read.
long read_small(const char* path, char* buf, std::size_t cap) {
    const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    std::size_t n = 0;
    while (n + 1 < cap) {
        const ssize_t r = ::read(fd, buf + n, cap - 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        n += static_cast<std::size_t>(r);
    }
    ::close(fd);
    buf[n] = '\0';
    return static_cast<long>(n);
}

bool write_small(const char* path, const char* text) {
    const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    const std::size_t len = cstr_len(text);
    const ssize_t w = ::write(fd, text, len);
    ::close(fd);
    return w == static_cast<ssize_t>(len);
}

void sleep_ms(long ms) {
    timespec t{ms / 1000, (ms % 1000) * 1000000L};
    while (::nanosleep(&t, &t) != 0 && errno == EINTR) {
    }
}

/// Parse an unsigned decimal at `p`, moving `p` past it.
bool parse_ull(const char*& p, unsigned long long& v) {
    if (*p < '0' || *p > '9')
        return false;
    v = 0;
    while (*p >= '0' && *p <= '9')
        v = v * 10 + static_cast<unsigned long long>(*p++ - '0');
    return true;
}

/// Whether the "(comm)" of a /proc/PID/stat text `buf` (its last ')' at `close`) is `name`.
bool comm_is(const char* buf, const char* close, const char* name) {
    const char* open = buf;
    while (open < close && *open != '(')
        ++open;
    const std::size_t n = std::strlen(name);
    return open < close && static_cast<std::size_t>(close - open - 1) == n &&
           std::strncmp(open + 1, name, n) == 0;
}

/// Fields of /proc/PID/stat that end_adopted and process_start need.
struct ProcStat {
    bool guard = false; ///< its name is perfsweep-guard (set before it leaves the session)
    long ppid = 0;
    long session = 0;
    char state = '\0';
    unsigned long long start = 0;
};

bool read_proc_stat(long pid, ProcStat& out) {
    char path[64];
    Text(path, sizeof path).add("/proc/").num(static_cast<unsigned long long>(pid)).add("/stat");
    char buf[1024];
    if (read_small(path, buf, sizeof buf) <= 0)
        return false;
    const char* close = nullptr;
    for (const char* q = buf; *q != '\0'; ++q)
        if (*q == ')')
            close = q;
    if (!close || close[1] != ' ')
        return false;
    out.guard = comm_is(buf, close, "perfsweep-guard");
    out.state = close[2];
    const char* p = close + 3;
    unsigned long long v = 0;
    for (int field = 4; field <= 22; ++field) {
        while (*p == ' ')
            ++p;
        const char* f = p;
        if (field == 4 || field == 6 || field == 22) {
            if (!parse_ull(f, v))
                return false;
            if (field == 4)
                out.ppid = static_cast<long>(v);
            else if (field == 6)
                out.session = static_cast<long>(v);
            else
                out.start = v;
        }
        while (*p != ' ' && *p != '\0')
            ++p;
    }
    return true;
}

/// Start time (clock ticks after boot, /proc/PID/stat field 22) of process `pid`; `state` gets
/// its state letter (field 3; 'Z': a zombie, dead but not reaped).
bool process_start(long pid, unsigned long long& start, char* state = nullptr) {
    ProcStat st;
    if (!read_proc_stat(pid, st))
        return false;
    start = st.start;
    if (state != nullptr)
        *state = st.state;
    return true;
}

/// "<boot id>@<pid namespace>" (/proc/sys/kernel/random/boot_id, /proc/self/ns/pid): a pid
/// means the same process only on the same boot and in the same pid namespace.
void read_boot_id(char* out, std::size_t cap) {
    if (read_small("/proc/sys/kernel/random/boot_id", out, cap) < 0)
        out[0] = '\0';
    std::size_t n = 0;
    while (out[n] != '\0' && out[n] != '\n')
        ++n;
    out[n] = '\0';
    char ns[64];
    const ssize_t len = ::readlink("/proc/self/ns/pid", ns, sizeof ns - 1);
    ns[len > 0 ? len : 0] = '\0';
    Text t(out + n, cap - n);
    t.add("@").add(ns);
}

/// Who owns a run: a perfsweep process, identified across pid reuse and reboots.
struct OwnerId {
    long pid = 0;
    unsigned long long start = 0;
    char boot[96] = {};
};

/// Whether `a` and `b` agree up to their '@' (before == true) or after it.
bool same_part(const char* a, const char* b, bool before) {
    auto part = [before](const char* s) {
        const char* at = s;
        while (*at != '\0' && *at != '@')
            ++at;
        return before ? s : (*at == '@' ? at + 1 : at);
    };
    const char* x = part(a);
    const char* y = part(b);
    while (*x != '\0' && *x == *y && !(before && *x == '@')) {
        ++x;
        ++y;
    }
    if (before)
        return (*x == '\0' || *x == '@') && (*y == '\0' || *y == '@');
    return *x == *y;
}

/// False when the owner is gone (another boot, or no such process with that start time). An
/// owner in another pid namespace counts as alive: its pid means nothing here.
bool owner_alive(const OwnerId& o) {
    char here[96];
    read_boot_id(here, sizeof here);
    if (!same_part(here, o.boot, true))
        return false;
    if (!same_part(here, o.boot, false))
        return true;
    unsigned long long start = 0;
    char state = '\0';
    // A zombie is dead: a killed perfsweep (or guard) whose parent does not reap it stays one.
    return process_start(o.pid, start, &state) && start == o.start && state != 'Z' && state != 'X';
}

struct Dirent64 {
    ino64_t d_ino;
    off64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[1];
};

/// Call `f(name)` for each entry of the directory open at `fd`.
template <class F> void each_entry(int fd, F&& f) {
    alignas(8) char buf[8192];
    for (;;) {
        const long n = ::syscall(SYS_getdents64, fd, buf, sizeof buf);
        if (n <= 0)
            return;
        for (long off = 0; off < n;) {
            auto* d = reinterpret_cast<Dirent64*>(buf + off);
            off += d->d_reclen;
            if (!f(static_cast<const char*>(d->d_name)))
                return;
        }
    }
}

/// Whether the environment block of /proc/PID/environ lists `cookie` in PERFSWEEP_RUN_COOKIE
/// (the first such entry; a comma-separated list, nested runs append theirs).
bool environ_holds(const char* environ_path, const char* cookie) {
    const int fd = ::open(environ_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false; // gone, or another user's process
    const std::size_t name_len = cstr_len(k_cookie_name), cookie_len = cstr_len(cookie);
    enum class S { start, name, skip, value } s = S::start;
    std::size_t k = 0, tok = 0;
    bool tok_ok = true, found = false, done = false;
    char buf[4096];
    while (!done) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        for (ssize_t i = 0; i < n && !done; ++i) {
            const char c = buf[i];
            switch (s) {
            case S::start:
            case S::name:
                if (s == S::start)
                    k = 0;
                if (c == k_cookie_name[k]) {
                    s = ++k == name_len ? S::value : S::name;
                    tok = 0;
                    tok_ok = true;
                } else
                    s = c == '\0' ? S::start : S::skip;
                break;
            case S::skip:
                if (c == '\0')
                    s = S::start;
                break;
            case S::value:
                if (c == ',' || c == '\0') {
                    if (tok_ok && tok == cookie_len)
                        found = true;
                    tok = 0;
                    tok_ok = true;
                    done = found || c == '\0';
                } else if (tok < cookie_len && cookie[tok] == c)
                    ++tok;
                else
                    tok_ok = false;
                break;
            }
        }
    }
    if (!done && s == S::value && tok_ok && tok == cookie_len) // no NUL after the last entry
        found = true;
    ::close(fd);
    return found;
}

/// Kill every process listed in a cgroup's cgroup.procs with `sig`; returns how many there were.
int signal_cgroup_members(const char* cgroup, int sig) {
    char path[k_path];
    Text t(path, sizeof path);
    t.add(cgroup).add("/cgroup.procs");
    if (!t.ok)
        return 0;
    char buf[16384];
    if (read_small(path, buf, sizeof buf) <= 0)
        return 0;
    int n = 0;
    for (const char* p = buf; *p != '\0';) {
        unsigned long long pid = 0;
        if (parse_ull(p, pid) && pid > 0 && static_cast<pid_t>(pid) != ::getpid()) {
            ::kill(static_cast<pid_t>(pid), sig);
            ++n;
        }
        while (*p != '\0' && (*p < '0' || *p > '9'))
            ++p;
    }
    return n;
}

/// Whether a cgroup still holds a process (cgroup.events "populated 1"); false when it is gone.
bool cgroup_populated(const char* cgroup) {
    char path[k_path];
    Text t(path, sizeof path);
    t.add(cgroup).add("/cgroup.events");
    char buf[256];
    if (!t.ok || read_small(path, buf, sizeof buf) <= 0)
        return false;
    for (const char* p = buf; *p != '\0'; ++p)
        if (starts_with(p, "populated "))
            return p[10] == '1';
    return false;
}

/// Kill everything in `cgroup` (cgroup.kill, else SIGKILL to each member), wait until it is
/// empty (at most `wait_ms`) and remove it. Returns how many members were signalled.
int kill_cgroup(const char* cgroup, long wait_ms) {
    char path[k_path];
    Text t(path, sizeof path);
    t.add(cgroup).add("/cgroup.kill");
    if (!t.ok)
        return 0;
    int n = 0;
    for (long waited = 0;; waited += 5) {
        const int members = signal_cgroup_members(cgroup, 0); // count
        n = members > n ? members : n;
        if (!write_small(path, "1")) // no cgroup.kill before Linux 5.14
            signal_cgroup_members(cgroup, SIGKILL);
        if (!cgroup_populated(cgroup) || waited >= wait_ms)
            break;
        sleep_ms(5);
    }
    for (int i = 0; i < 200 && ::rmdir(cgroup) != 0 && errno == EBUSY; ++i)
        sleep_ms(5);
    return n;
}

/// Whether an environment entry NAME=VALUE looks like a credential (name ends in TOKEN, SECRET,
/// PASSWORD or _KEY, any case): a cleanup command does not inherit it.
bool secret_entry(const char* kv) {
    const char* eq = kv;
    while (*eq != '\0' && *eq != '=')
        ++eq;
    auto ends = [&](const char* suffix) {
        const std::size_t n = static_cast<std::size_t>(eq - kv), m = cstr_len(suffix);
        if (n < m)
            return false;
        for (std::size_t i = 0; i < m; ++i) {
            char c = kv[n - m + i];
            if (c >= 'a' && c <= 'z')
                c = static_cast<char>(c - 'a' + 'A');
            if (c != suffix[i])
                return false;
        }
        return true;
    };
    return ends("TOKEN") || ends("SECRET") || ends("PASSWORD") || ends("_KEY");
}

/// Run `argv` (argv[0] an absolute path) with stdio on /dev/null and this environment minus
/// credentials; wait at most `timeout_ms`. True when it exited 0.
bool run_and_wait(char* const* argv, long timeout_ms) {
    char* envp[512];
    std::size_t k = 0;
    for (char** e = environ; e && *e && k + 1 < sizeof envp / sizeof envp[0]; ++e)
        if (!secret_entry(*e))
            envp[k++] = *e;
    envp[k] = nullptr;
    const pid_t pid = ::fork();
    if (pid < 0)
        return false;
    if (pid == 0) {
        const int null = ::open("/dev/null", O_RDWR);
        if (null >= 0) {
            ::dup2(null, 0);
            ::dup2(null, 1);
            ::dup2(null, 2);
        }
        ::execve(argv[0], argv, envp);
        ::_exit(127);
    }
    int status = 0;
    for (long waited = 0;; waited += 10) {
        const pid_t w = ::waitpid(pid, &status, WNOHANG);
        if (w == pid)
            return WIFEXITED(status) && WEXITSTATUS(status) == 0;
        if (w < 0 && errno != EINTR)
            return false;
        if (waited >= timeout_ms) {
            ::kill(pid, SIGKILL);
            while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
            }
            return false;
        }
        sleep_ms(10);
    }
}

/// A registry entry, parsed in place: fields point into the caller's buffer.
struct Entry {
    OwnerId owner;
    const char* cookie = "";
    const char* cgroup = "";
    char* argv[128] = {};
};

/// Parse the NUL-separated entry `buf` of `len` bytes.
bool parse_entry(char* buf, long len, Entry& e) {
    char* fields[6 + 128];
    int nf = 0;
    for (long i = 0, start = 0; i < len && nf < static_cast<int>(sizeof fields / sizeof *fields);
         ++i)
        if (buf[i] == '\0') {
            fields[nf++] = buf + start;
            start = i + 1;
        }
    if (nf < 6 || !cstr_eq(fields[0], k_entry_magic))
        return false;
    std::size_t b = 0;
    for (; fields[1][b] != '\0' && b + 1 < sizeof e.owner.boot; ++b)
        e.owner.boot[b] = fields[1][b];
    e.owner.boot[b] = '\0';
    unsigned long long pid = 0, start = 0;
    const char* p = fields[2];
    const char* q = fields[3];
    if (!parse_ull(p, pid) || !parse_ull(q, start))
        return false;
    e.owner.pid = static_cast<long>(pid);
    e.owner.start = start;
    e.cookie = fields[4];
    e.cgroup = fields[5];
    int a = 0;
    for (int i = 6; i < nf && a + 1 < static_cast<int>(sizeof e.argv / sizeof *e.argv); ++i)
        e.argv[a++] = fields[i];
    e.argv[a] = nullptr;
    return true;
}

/// What ending one entry did.
struct Ended {
    int processes = 0;
    bool cleanup_ran = false;
};

/// Kill what entry `e` names and run its cleanup command.
Ended end_entry(const Entry& e) {
    Ended r;
    if (e.cookie[0] != '\0')
        for (int round = 0; round < 100; ++round) {
            const int n = signal_cookie_holders(e.cookie, SIGKILL);
            if (round == 0)
                r.processes += n; // later rounds see the same processes dying
            if (n == 0)
                break;
            sleep_ms(10);
        }
    if (e.cgroup[0] != '\0')
        r.processes += kill_cgroup(e.cgroup, 2000);
    if (e.argv[0] != nullptr) {
        (void)run_and_wait(e.argv, 120000);
        r.cleanup_ran = true;
    }
    return r;
}

using Selector = bool (*)(const OwnerId& owner, const void* ctx);
using Visitor = void (*)(const Entry& e, const Ended& ended, void* ctx);

/// For every entry of registry `dir` whose owner `select` accepts: claim it (rename, so one
/// process ends it), end it, remove it. Claims and temp files of dead processes are taken over.
/// `me` is the claiming process.
void end_runs(const char* dir, Selector select, const void* select_ctx, const OwnerId& me,
              Visitor visit, void* visit_ctx) {
    const int fd = ::open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return;
    // Names are collected first: renaming while reading the directory could show an entry twice.
    char names[64][96];
    int count = 0;
    bool more = true;
    while (more) {
        count = 0;
        ::lseek(fd, 0, SEEK_SET);
        each_entry(fd, [&](const char* name) {
            if ((starts_with(name, "run-") || starts_with(name, ".claimed-") ||
                 starts_with(name, ".tmp-")) &&
                cstr_len(name) < sizeof names[0]) {
                if (count == 64)
                    return false;
                Text(names[count++], sizeof names[0]).add(name);
            }
            return true;
        });
        more = count == 64;
        int ended = 0;
        for (int i = 0; i < count; ++i) {
            const char* name = names[i];
            char path[k_path], claimed[k_path];
            Text(path, sizeof path).add(dir).add("/").add(name);
            // The owner (or claimer) named in the file name: "<kind>-PID-START-...".
            const char* p = name + (starts_with(name, "run-")    ? 4
                                    : starts_with(name, ".tmp-") ? 5
                                                                 : 9);
            unsigned long long pid = 0, start = 0;
            if (!parse_ull(p, pid) || *p++ != '-' || !parse_ull(p, start))
                continue;
            OwnerId named;
            named.pid = static_cast<long>(pid);
            named.start = start;
            read_boot_id(named.boot, sizeof named.boot); // names are only compared on this boot
            if (starts_with(name, ".tmp-")) {
                if (!owner_alive(named))
                    ::unlink(path); // a half-written entry of a dead process
                continue;
            }
            const char* original = name;
            if (starts_with(name, ".claimed-")) {
                if (owner_alive(named) || (static_cast<long>(pid) == me.pid && start == me.start))
                    continue;     // being ended by a live process
                original = p + 1; // "...-run-..." after the claimer's id
            }
            Text c(claimed, sizeof claimed);
            c.add(dir).add("/.claimed-").num(static_cast<unsigned long long>(me.pid)).add("-");
            c.num(me.start).add("-").add(original);
            char buf[65536];
            const long len = read_small(path, buf, sizeof buf);
            Entry e;
            if (len <= 0 || !parse_entry(buf, len, e))
                continue;
            if (!select(e.owner, select_ctx))
                continue;
            if (!c.ok || ::rename(path, claimed) != 0)
                continue; // another process claimed it first
            const Ended r = end_entry(e);
            ::unlink(claimed);
            ++ended;
            if (visit)
                visit(e, r, visit_ctx);
        }
        if (more && ended == 0)
            break; // a full page of entries none of which could be ended: stop
    }
    ::close(fd);
}

// =============================================================================================
// Normal code (this process, not the guard).

std::once_flag g_detect_once;
std::mutex g_mutex; ///< guards g_state's mutable parts and the registry sequence
struct State {
    Containment c;
    OwnerId self;
    std::atomic<unsigned long> seq{0};
} g_state;

OwnerId self_id() {
    OwnerId o;
    o.pid = ::getpid();
    process_start(o.pid, o.start);
    read_boot_id(o.boot, sizeof o.boot);
    return o;
}

std::string read_text(const char* path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// Why `dir` cannot be this user's registry ("" when it can): it must be a directory (not a
/// link), owned by this user, writable by no one else. Created (0700) when missing.
std::string registry_problem(const std::string& dir) {
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(dir).parent_path(), ec);
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
        return "cannot create " + dir + ": " + std::strerror(errno);
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0)
        return "cannot stat " + dir + ": " + std::strerror(errno);
    if (!S_ISDIR(st.st_mode))
        return dir + " is not a directory (a link or a file put there)";
    if (st.st_uid != ::geteuid())
        return dir + " belongs to uid " + std::to_string(st.st_uid) + ", not to this user (" +
               std::to_string(::geteuid()) + ")";
    if ((st.st_mode & 022) != 0)
        return dir + " is writable by others (mode " + std::to_string(st.st_mode & 0777) + ")";
    return "";
}

/// The registry directory: $PERFSWEEP_RUN_DIR, else $XDG_RUNTIME_DIR/perfsweep-runs, else
/// /tmp/perfsweep-runs-UID; private to this user (0700, owned, no symlink). When the /tmp one
/// was taken by another user (anyone may create it first), the registry moves to this user's
/// cache directory ($XDG_CACHE_HOME or ~/.cache, perfsweep/runs-UID), which no one else can
/// pre-create, and says so; every perfsweep of this user makes the same choice, so the next one
/// still finds what a killed one left.
void detect_registry(Containment& c) {
    std::string dir;
    const bool chosen = std::getenv("PERFSWEEP_RUN_DIR") && *std::getenv("PERFSWEEP_RUN_DIR");
    if (chosen)
        dir = std::getenv("PERFSWEEP_RUN_DIR");
    else if (const char* x = std::getenv("XDG_RUNTIME_DIR");
             x && *x && std::filesystem::is_directory(x))
        dir = std::string(x) + "/perfsweep-runs";
    else
        dir = "/tmp/perfsweep-runs-" + std::to_string(::geteuid());
    const std::string why = registry_problem(dir);
    if (why.empty()) {
        c.registry = dir;
        return;
    }
    c.registry_why_not = why;
    if (chosen)
        return; // the user's own choice is not second-guessed
    std::string cache;
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x && x[0] == '/')
        cache = x;
    else if (const char* h = std::getenv("HOME"); h && *h && h[0] == '/')
        cache = std::string(h) + "/.cache";
    if (cache.empty())
        return;
    const std::string fallback = cache + "/perfsweep/runs-" + std::to_string(::geteuid());
    if (const std::string also = registry_problem(fallback); !also.empty()) {
        c.registry_why_not += "; and " + also;
        return;
    }
    c.registry = fallback;
    c.registry_note = why + "; the runs in flight are recorded in " + fallback + " instead";
    c.registry_why_not.clear();
}

void detect_cgroups(Containment& c) {
    if (const char* off = std::getenv("PERFSWEEP_CGROUPS"); off && std::string(off) == "off") {
        c.why_not = "disabled by PERFSWEEP_CGROUPS=off";
        return;
    }
    const auto where =
        locate_cgroup2(read_text("/proc/self/mountinfo"), read_text("/proc/self/cgroup"));
    if (where.dir.empty()) {
        c.why_not = where.why_not;
        return;
    }
    if (::access(where.dir.c_str(), W_OK) != 0) {
        c.why_not = "the cgroup " + where.dir + " is not writable (" + std::strerror(errno) +
                    "; no delegated cgroup v2)";
        return;
    }
    c.cgroup_base = where.dir;
}

std::mutex g_self_mutex;
std::atomic<pid_t> g_self_pid{0}; ///< the process g_state.self and the subreaper setting are for

void detect() {
    std::call_once(g_detect_once, [] {
        detect_registry(g_state.c);
        detect_cgroups(g_state.c);
    });
    // Per process, not once: a process forked without exec (a test standing in for a killed
    // perfsweep) owns its runs itself, else its guard would never end them. The registry and
    // cgroup choices above stay those of the process it was forked from.
    const pid_t pid = ::getpid();
    if (g_self_pid.load(std::memory_order_acquire) == pid)
        return;
    std::lock_guard<std::mutex> lock(g_self_mutex);
    if (g_self_pid.load(std::memory_order_relaxed) == pid)
        return;
    g_state.self = self_id();
    // Orphans of the runs are re-parented to this process instead of init: a process that
    // left its run's cgroup (root may), process group and environment is still found as a
    // child of perfsweep that lives in another session (end_adopted below). (Not inherited by
    // a fork.)
    (void)::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    g_self_pid.store(pid, std::memory_order_release);
}

std::atomic<long> g_guard_pid{0};

/// Clock ticks since boot now (the unit of /proc/PID/stat's start time).
unsigned long long ticks_now() {
    timespec ts{};
    ::clock_gettime(CLOCK_BOOTTIME, &ts);
    const long hz = ::sysconf(_SC_CLK_TCK);
    return static_cast<unsigned long long>(ts.tv_sec) * static_cast<unsigned long long>(hz) +
           static_cast<unsigned long long>(ts.tv_nsec) /
               (1000000000ULL / static_cast<unsigned long long>(hz));
}

/// The processes re-parented to this process after leaving its session (what a run left when it
/// called setsid and its parent died), other than the guard: zombies among them are reaped;
/// with `kill`, those started at or after `since` (clock ticks after boot) are SIGKILLed with
/// every descendant and reaped. Returns how many were killed.
int end_adopted(bool kill, unsigned long long since) {
    const int fd = ::open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    const long self = ::getpid();
    ProcStat me;
    if (!read_proc_stat(self, me)) {
        ::close(fd);
        return 0;
    }
    std::vector<std::pair<long, ProcStat>> all;
    each_entry(fd, [&](const char* name) {
        const char* p = name;
        unsigned long long pid = 0;
        ProcStat st;
        if (parse_ull(p, pid) && *p == '\0' && read_proc_stat(static_cast<long>(pid), st))
            all.emplace_back(static_cast<long>(pid), st);
        return true;
    });
    ::close(fd);
    std::vector<long> doomed, adopted;
    for (const auto& [pid, st] : all) {
        if (st.ppid != self || st.session == me.session || st.guard || pid == g_guard_pid.load())
            continue; // not adopted: perfsweep's own children stay in its session
        adopted.push_back(pid);
        if (kill && st.state != 'Z' && st.start + 1 >= since)
            doomed.push_back(pid);
    }
    // Their descendants (in any session) die with them.
    for (std::size_t i = 0; i < doomed.size(); ++i)
        for (const auto& [pid, st] : all)
            if (st.ppid == doomed[i] &&
                std::find(doomed.begin(), doomed.end(), pid) == doomed.end())
                doomed.push_back(pid);
    for (long pid : doomed)
        ::kill(static_cast<pid_t>(pid), SIGKILL);
    for (long pid : adopted) { // reap: wait briefly for the killed ones, at once for zombies
        const bool killed = std::find(doomed.begin(), doomed.end(), pid) != doomed.end();
        for (int i = 0; i < (killed ? 100 : 1); ++i) {
            if (::waitpid(static_cast<pid_t>(pid), nullptr, WNOHANG) != 0)
                break;
            sleep_ms(10);
        }
    }
    return static_cast<int>(doomed.size());
}

void disable_cgroups(const std::string& why) {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (!g_state.c.cgroup_base.empty()) {
        g_state.c.cgroup_base.clear();
        g_state.c.why_not = why;
    }
}

// ------------------------------------------------------------------------------------ guard

std::mutex g_guard_mutex;
pid_t g_guard_for = 0; ///< the process whose guard runs (a fork without exec starts its own)
int g_guard_ctl = -1;  ///< the write end of that guard's pipe
char g_guard_registry[k_path];
OwnerId g_guard_owner;

bool select_owner(const OwnerId& owner, const void* ctx) {
    const auto& want = *static_cast<const OwnerId*>(ctx);
    return owner.pid == want.pid && owner.start == want.start && cstr_eq(owner.boot, want.boot);
}

bool select_dead(const OwnerId& owner, const void*) {
    return !owner_alive(owner);
}

/// The guard: waits for its perfsweep to die (end of file on the pipe only it holds the write
/// end of), then ends that perfsweep's runs. Async-signal-safe code only from the fork on.
[[noreturn]] void guard_main(int ctl) {
    ::prctl(PR_SET_NAME, "perfsweep-guard", 0, 0, 0);
    ::setsid(); // out of perfsweep's process group and terminal: group signals miss it
    struct sigaction ign {};
    ign.sa_handler = SIG_IGN;
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT})
        ::sigaction(sig, &ign, nullptr);
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    ::sigaction(SIGCHLD, &dfl, nullptr);
    sigset_t none;
    ::sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    const int null = ::open("/dev/null", O_RDWR);
    if (null >= 0) {
        ::dup2(null, 0);
        ::dup2(null, 1);
        ::dup2(null, 2);
    }
    // Keep only the pipe: a copy of a log file or socket must not outlive perfsweep here.
    const int keep = ::fcntl(ctl, F_DUPFD, 3);
    if (keep > 3)
        ::dup2(keep, 3);
#ifdef SYS_close_range
    if (::syscall(SYS_close_range, 4u, ~0u, 0u) != 0)
#endif
        for (int fd = 4; fd < 65536; ++fd)
            ::close(fd);
    ::fcntl(3, F_SETFD, FD_CLOEXEC); // not for the cleanup commands it runs
    char byte;
    for (;;) {
        const ssize_t n = ::read(3, &byte, 1);
        if (n == 0 || (n < 0 && errno != EINTR))
            break;
    }
    OwnerId me;
    me.pid = ::getpid();
    process_start(me.pid, me.start);
    read_boot_id(me.boot, sizeof me.boot);
    end_runs(g_guard_registry, select_owner, &g_guard_owner, me, nullptr, nullptr);
    ::_exit(0);
}

void ensure_guard(const std::string& registry) {
    std::lock_guard<std::mutex> lock(g_guard_mutex);
    const pid_t self = ::getpid();
    if (g_guard_for == self)
        return;
    g_guard_for = self;
    if (g_guard_ctl >= 0) { // forked from a process with a guard: that guard waits for it alone
        ::close(g_guard_ctl);
        g_guard_ctl = -1;
    }
    Text(g_guard_registry, sizeof g_guard_registry).add(registry.c_str());
    g_guard_owner = g_state.self;
    int ctl[2];
    if (::pipe2(ctl, O_CLOEXEC) != 0)
        return; // no guard: the resume scan still ends leftovers later
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::close(ctl[1]);
        guard_main(ctl[0]);
    }
    g_guard_pid = pid;
    ::close(ctl[0]);
    if (pid < 0)
        ::close(ctl[1]);
    else
        g_guard_ctl = ctl[1];
    // ctl[1] stays open (close-on-exec) for the life of this process: its end is the signal.
}

} // namespace

// =============================================================================================

CgroupLocation locate_cgroup2(std::string_view mountinfo, std::string_view self_cgroup) {
    CgroupLocation out;
    std::string path;
    for (const auto& line : util::split(self_cgroup, '\n'))
        if (line.rfind("0::", 0) == 0)
            path = line.substr(3);
    if (path.empty()) {
        out.why_not = "/proc/self/cgroup names no cgroup v2 (only cgroup v1 hierarchies)";
        return out;
    }
    if (path.find(" (deleted)") != std::string::npos) {
        out.why_not = "this process's cgroup " + path + " was deleted";
        return out;
    }
    for (const auto& line : util::split(mountinfo, '\n')) {
        // ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER
        const auto sep = line.find(" - ");
        if (sep == std::string::npos)
            continue;
        const auto tail = util::split(line.substr(sep + 3), ' ');
        if (tail.empty() || tail[0] != "cgroup2")
            continue;
        const auto head = util::split(line.substr(0, sep), ' ');
        if (head.size() < 6)
            continue;
        const std::string& root = head[3];
        const std::string& mount = head[4];
        std::string rel;
        if (root == "/")
            rel = path;
        else if (path == root || path.rfind(root + "/", 0) == 0)
            rel = path.substr(root.size());
        else
            continue; // a mount of another part of the hierarchy
        std::string dir = mount + (rel == "/" ? "" : rel);
        if (dir.find("\\") != std::string::npos) { // mountinfo escapes blanks as \040
            out.why_not = "the cgroup2 mount point " + dir + " needs unescaping";
            continue;
        }
        out.dir = dir;
        out.why_not.clear();
        return out;
    }
    if (out.why_not.empty())
        out.why_not = "no cgroup2 mount shows this process's cgroup " + path;
    return out;
}

Containment containment() {
    detect();
    std::lock_guard<std::mutex> lock(g_mutex);
    return g_state.c;
}

int signal_cookie_holders(const char* cookie, int sig) {
    const int fd = ::open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    const pid_t self = ::getpid();
    int n = 0;
    each_entry(fd, [&](const char* name) {
        const char* p = name;
        unsigned long long pid = 0;
        if (!parse_ull(p, pid) || *p != '\0' || static_cast<pid_t>(pid) == self)
            return true;
        char path[64];
        Text(path, sizeof path).add("/proc/").add(name).add("/environ");
        if (environ_holds(path, cookie)) {
            ::kill(static_cast<pid_t>(pid), sig);
            ++n;
        }
        return true;
    });
    ::close(fd);
    return n;
}

RunContainment::RunContainment(std::string cookie, std::vector<std::string> cleanup,
                               bool own_cgroup)
    : m_cookie(std::move(cookie)), m_started(ticks_now()) {
    detect();
    std::string registry, base;
    unsigned long seq = 0;
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        registry = g_state.c.registry;
        if (own_cgroup)
            base = g_state.c.cgroup_base;
        seq = ++g_state.seq;
    }
    const auto& self = g_state.self;
    if (!base.empty()) {
        const std::string dir =
            base + "/perfsweep-" + std::to_string(self.pid) + "-" + std::to_string(seq);
        if (::mkdir(dir.c_str(), 0755) != 0)
            disable_cgroups("cannot create a cgroup under " + base + ": " + std::strerror(errno));
        else {
            m_procs_fd = ::open((dir + "/cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC);
            if (m_procs_fd < 0) {
                disable_cgroups("cannot open " + dir + "/cgroup.procs: " + std::strerror(errno));
                ::rmdir(dir.c_str());
            } else
                m_cgroup = dir;
        }
    }
    if (registry.empty())
        return;
    ensure_guard(registry);
    std::string content = std::string(k_entry_magic) + '\0' + self.boot + '\0' +
                          std::to_string(self.pid) + '\0' + std::to_string(self.start) + '\0' +
                          m_cookie + '\0' + m_cgroup + '\0';
    for (const auto& a : cleanup)
        content += a + '\0';
    const std::string id =
        std::to_string(self.pid) + "-" + std::to_string(self.start) + "-" + std::to_string(seq);
    const std::string tmp = registry + "/.tmp-" + id, entry = registry + "/run-" + id;
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return;
    const bool written =
        ::write(fd, content.data(), content.size()) == static_cast<ssize_t>(content.size());
    ::close(fd);
    if (written && ::rename(tmp.c_str(), entry.c_str()) == 0)
        m_entry = entry;
    else
        ::unlink(tmp.c_str());
}

RunContainment::~RunContainment() {
    if (m_procs_fd >= 0)
        ::close(m_procs_fd);
    if (!m_cgroup.empty())
        release();
    if (!m_entry.empty())
        ::unlink(m_entry.c_str());
}

void RunContainment::join_failed(int err) {
    disable_cgroups("cannot move a process into " + m_cgroup + ": " + std::strerror(err) +
                    " (the cgroup is not delegated to this user)");
    ::rmdir(m_cgroup.c_str());
    m_cgroup.clear();
}

void RunContainment::signal_all(int sig) {
    if (!m_cookie.empty())
        signal_cookie_holders(m_cookie.c_str(), sig);
    if (!m_cgroup.empty())
        signal_cgroup_members(m_cgroup.c_str(), sig);
}

void RunContainment::kill_all(double wait_s) {
    const long wait_ms = static_cast<long>(wait_s * 1000);
    if (!m_cgroup.empty()) {
        kill_cgroup(m_cgroup.c_str(), wait_ms);
        m_cgroup.clear();
    }
    for (long waited = 0; !m_cookie.empty() &&
                          signal_cookie_holders(m_cookie.c_str(), SIGKILL) > 0 && waited < wait_ms;
         waited += 10)
        sleep_ms(10);
    // What escaped all three (a root process that left the cgroup, the group and the cookie)
    // but was orphaned, and so adopted by this process.
    (void)end_adopted(true, m_started);
}

void RunContainment::release() {
    (void)end_adopted(false, 0); // reap what earlier runs left and has exited since
    if (m_cgroup.empty())
        return;
    const std::string dir = std::move(m_cgroup);
    m_cgroup.clear();
    const std::string parent = std::filesystem::path(dir).parent_path().string() + "/cgroup.procs";
    for (int round = 0; round < 20; ++round) {
        if (::rmdir(dir.c_str()) == 0 || errno != EBUSY)
            return;
        // Survivors (a build server the run started) move to perfsweep's own cgroup.
        for (const auto& pid : util::split(read_text((dir + "/cgroup.procs").c_str()), '\n'))
            if (!pid.empty()) {
                std::ofstream out(parent);
                out << pid << '\n';
            }
        sleep_ms(5);
    }
}

namespace {
void collect(const Entry& e, const Ended& r, void* ctx) {
    auto& rep = *static_cast<LeftoverReport*>(ctx);
    ++rep.runs;
    rep.processes += r.processes;
    rep.cleanups += r.cleanup_ran ? 1 : 0;
    std::string line = "run " + std::string(e.cookie) + " of perfsweep pid " +
                       std::to_string(e.owner.pid) + ": " + std::to_string(r.processes) +
                       " process(es) killed";
    if (e.cgroup[0] != '\0')
        line += ", cgroup " + std::string(e.cgroup) + " removed";
    if (e.argv[0] != nullptr) {
        line += ", ran";
        for (int i = 0; e.argv[i] != nullptr; ++i)
            line += " " + std::string(e.argv[i]);
    }
    rep.details.push_back(line);
}
} // namespace

LeftoverReport end_orphaned_runs() {
    detect();
    LeftoverReport rep;
    std::string registry;
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        registry = g_state.c.registry;
    }
    if (registry.empty())
        return rep;
    static std::mutex scan_mutex; // one scan at a time in this process
    std::lock_guard<std::mutex> lock(scan_mutex);
    // Runs a live process is ending right now (the guard of a perfsweep that just died) may still
    // be running, so wait until they are gone (the guard's cleanup commands take at most 120 s
    // each), scanning again meanwhile: a claimer that dies mid-way leaves its claim to us.
    const auto t0 = std::chrono::steady_clock::now();
    auto ending_elsewhere = [&] {
        std::error_code ec;
        for (std::filesystem::directory_iterator it(registry, ec), end; !ec && it != end;
             it.increment(ec)) {
            const std::string name = it->path().filename().string();
            if (name.rfind(".claimed-", 0) != 0)
                continue;
            const char* p = name.c_str() + 9;
            unsigned long long pid = 0, start = 0;
            if (!parse_ull(p, pid) || *p++ != '-' || !parse_ull(p, start))
                continue;
            OwnerId claimer;
            claimer.pid = static_cast<long>(pid);
            claimer.start = start;
            read_boot_id(claimer.boot, sizeof claimer.boot);
            if (owner_alive(claimer))
                return true;
        }
        return false;
    };
    for (;;) {
        end_runs(registry.c_str(), select_dead, nullptr, g_state.self, collect, &rep);
        if (!ending_elsewhere() ||
            std::chrono::steady_clock::now() - t0 > std::chrono::seconds(150))
            break;
        sleep_ms(20);
    }
    rep.waited_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (rep.waited_s < 0.05)
        rep.waited_s = 0;
    return rep;
}

} // namespace perfsweep::adapters
