#include "adapters/system/path_lock.hpp"

#include "util/error.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

namespace perfsweep::adapters {

namespace {

/// The lock of one directory, open in this process (closing the descriptor releases the flock).
struct Held {
    int fd = -1;
    ~Held() {
        if (fd >= 0)
            ::close(fd);
    }
};

std::mutex g_held_mutex;
std::map<std::string, std::weak_ptr<Held>> g_held; ///< directory → this process's lock

class Hold final : public PathLock {
public:
    explicit Hold(std::shared_ptr<Held> held) : m_held(std::move(held)) {}
    ~Hold() override {
        std::lock_guard<std::mutex> lock(g_held_mutex);
        m_held.reset(); // the last hold closes the fd under the mutex: no race with a new hold
    }

private:
    std::shared_ptr<Held> m_held;
};

/// The content of a /proc file ("" when it cannot be read). A process that ends between the
/// open and the read makes the read fail (ESRCH), which libstdc++'s filebuf throws as
/// std::ios_base::failure: that too is "cannot be read", not an error of the command.
std::string read_proc(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    try {
        return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    } catch (const std::ios_base::failure&) {
        return "";
    }
}

/// The pid holding a flock of the file `st` is, from /proc/locks; 0 when none is listed.
long flock_holder(const struct stat& st) {
    std::istringstream locks(read_proc("/proc/locks"));
    char want[64];
    std::snprintf(want, sizeof want, "%02x:%02x:%lu", major(st.st_dev), minor(st.st_dev),
                  static_cast<unsigned long>(st.st_ino));
    std::string line;
    while (std::getline(locks, line)) {
        // "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF" ("->" marks a waiter)
        std::istringstream f(line);
        std::string id, kind, mode, rw, pid, dev;
        f >> id >> kind;
        if (kind == "->")
            continue;
        f >> mode >> rw >> pid >> dev;
        if (kind == "FLOCK" && dev == want)
            return std::atol(pid.c_str());
    }
    return 0;
}

/// "perfsweep (pid N, running since T)" or "process (pid N: comm)" for the holder `pid`.
std::string describe_holder(long pid) {
    if (pid <= 0)
        return "perfsweep";
    const std::string comm(util::trim(read_proc("/proc/" + std::to_string(pid) + "/comm")));
    std::string since;
    const std::string stat = read_proc("/proc/" + std::to_string(pid) + "/stat");
    const auto close = stat.rfind(')');
    if (close != std::string::npos && close + 2 < stat.size()) {
        std::istringstream rest(stat.substr(close + 2)); // field 3 on
        std::string field;
        for (int i = 3; i <= 22 && rest >> field; ++i) {
        }
        std::istringstream boot(read_proc("/proc/stat"));
        std::string key;
        long long btime = 0;
        while (boot >> key)
            if (key == "btime") {
                boot >> btime;
                break;
            }
        const long hz = ::sysconf(_SC_CLK_TCK);
        if (btime > 0 && hz > 0 && !field.empty())
            since = util::format_iso8601(btime + std::atoll(field.c_str()) / hz);
    }
    if (comm.rfind("perfsweep", 0) != 0 && !comm.empty())
        return "process (pid " + std::to_string(pid) + ": " + comm + ")";
    return "perfsweep (pid " + std::to_string(pid) +
           (since.empty() ? std::string() : ", running since " + since) + ")";
}

} // namespace

std::unique_ptr<PathLock> hold_dir_lock(const std::string& dir, const std::string& what,
                                        const std::string& advice) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::create_directories(dir, ec);
    const fs::path canon = fs::weakly_canonical(fs::path(dir), ec);
    const std::string key = ec ? dir : canon.string();

    std::lock_guard<std::mutex> lock(g_held_mutex);
    if (auto it = g_held.find(key); it != g_held.end())
        if (auto held = it->second.lock())
            return std::make_unique<Hold>(std::move(held)); // this process holds it already

    auto held = std::make_shared<Held>();
    held->fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (held->fd < 0)
        throw_infra("cannot open " + what + " to lock it: " + std::strerror(errno));
    auto refuse = [&](int fd) {
        struct stat st {};
        const long pid = ::fstat(fd, &st) == 0 ? flock_holder(st) : 0;
        throw_infra("another " + describe_holder(pid) + " holds " + what + "; " + advice);
    };
    int rc;
    while ((rc = ::flock(held->fd, LOCK_EX | LOCK_NB)) != 0 && errno == EINTR) {
    }
    if (rc != 0 && errno == EWOULDBLOCK)
        refuse(held->fd);
    if (rc != 0) {
        // A directory this filesystem cannot flock (NFS): a lock file in it instead.
        const std::string file = dir + "/perfsweep.lock";
        ::close(held->fd);
        held->fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (held->fd < 0)
            throw_infra("cannot lock " + what + ": " + std::strerror(errno));
        while ((rc = ::flock(held->fd, LOCK_EX | LOCK_NB)) != 0 && errno == EINTR) {
        }
        if (rc != 0 && errno == EWOULDBLOCK)
            refuse(held->fd);
        if (rc != 0)
            throw_infra("cannot lock " + what + " (" + file + "): " + std::strerror(errno));
    }
    g_held[key] = held;
    return std::make_unique<Hold>(std::move(held));
}

} // namespace perfsweep::adapters
