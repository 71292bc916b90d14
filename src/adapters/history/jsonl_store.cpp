#include "adapters/history/jsonl_store.hpp"

#include "adapters/json/json_parse.hpp"
#include "adapters/json/measurement_json.hpp"
#include "util/crash_point.hpp"
#include "util/error.hpp"

#include <rapidjson/document.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>
#include <string_view>

namespace perfsweep::adapters {

namespace {

/// True when `line` is the beginning of a JSON document cut short (what a crash mid-write leaves):
/// the parser runs out of input rather than meeting a wrong character.
bool is_truncated_json(const std::string& line) {
    if (line.empty() || line.front() != '{')
        return false;
    rapidjson::Document d;
    const auto err = parse_json(d, line);
    // Nesting beyond the limit is never a cut-short record (records nest 2 levels).
    return err && !err->too_deep && err->offset >= line.size();
}

/// Closes a file descriptor (and so releases its flock) on every path.
struct Fd {
    int fd = -1;
    ~Fd() {
        if (fd >= 0)
            ::close(fd);
    }
};

/// Write all of `data` to `fd`; false (errno set) on an error.
bool write_all(int fd, std::string_view data) {
    std::size_t off = 0;
    while (off < data.size()) {
        const ssize_t n = ::write(fd, data.data() + off, data.size() - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return false;
        off += static_cast<std::size_t>(n);
    }
    return true;
}

/// The whole file open at `fd`, from its start.
std::string read_all(int fd, const std::string& path) {
    std::string text;
    char buf[1 << 16];
    for (off_t at = 0;;) {
        const ssize_t n = ::pread(fd, buf, sizeof buf, at);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            throw_infra("cannot read history '" + path + "': " + std::strerror(errno));
        if (n == 0)
            break;
        text.append(buf, static_cast<std::size_t>(n));
        at += n;
    }
    return text;
}

} // namespace

ports::HistoryLoad parse_history_jsonl(const std::string& text, const std::string& file) {
    ports::HistoryLoad out;
    std::size_t start = 0, line_no = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        const bool terminated = end != std::string::npos;
        if (!terminated)
            end = text.size();
        ++line_no;
        std::string line = text.substr(start, end - start);
        start = end + 1;
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        if (line.find_first_not_of(" \t") == std::string::npos)
            continue;
        const std::string where = file + ":" + std::to_string(line_no);
        try {
            out.records.push_back(measurement_from_json(line, where));
        } catch (const Error& e) {
            const bool last = !terminated || start >= text.size();
            if (is_truncated_json(line) || (last && !terminated)) {
                out.warnings.push_back(where +
                                       ": skipped a torn record (a write cut short, e.g. "
                                       "by a crash): " +
                                       e.what());
                continue;
            }
            throw;
        }
    }
    return out;
}

ports::HistoryLoad JsonlHistoryStore::load() {
    std::error_code ec;
    if (!std::filesystem::exists(m_path, ec))
        return {};
    if (std::filesystem::is_directory(m_path, ec))
        throw_usage("history '" + m_path + "' is a directory; expected a JSON Lines file");
    // A shared lock: an append in progress is never mistaken for a torn line.
    Fd f;
    f.fd = ::open(m_path.c_str(), O_RDONLY | O_CLOEXEC);
    if (f.fd < 0)
        throw_infra("cannot read history '" + m_path + "': " + std::strerror(errno));
    while (::flock(f.fd, LOCK_SH) != 0) {
        if (errno != EINTR)
            throw_infra("cannot lock history '" + m_path + "': " + std::strerror(errno));
    }
    const std::string text = read_all(f.fd, m_path);
    return parse_history_jsonl(text, m_path);
}

void JsonlHistoryStore::append(const std::vector<core::Measurement>& records) {
    write_batch(records, false);
}

std::size_t JsonlHistoryStore::append_missing(const std::vector<core::Measurement>& records) {
    return write_batch(records, true);
}

std::size_t JsonlHistoryStore::write_batch(const std::vector<core::Measurement>& records,
                                           bool only_missing) {
    if (records.empty())
        return 0;
    namespace fs = std::filesystem;
    std::error_code ec;
    // The file itself is replaced: through a symlink, the target is.
    const fs::path target = fs::weakly_canonical(fs::path(m_path), ec);
    const std::string path = ec ? m_path : target.string();
    const fs::path dir = fs::path(path).has_parent_path() ? fs::path(path).parent_path() : ".";
    fs::create_directories(dir, ec);

    // The exclusive lock on the history file (as `record` always took it); a writer that waited
    // on a file another writer meanwhile replaced locks the new one.
    Fd f;
    struct stat st {};
    for (;;) {
        f.fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (f.fd < 0)
            throw_infra("cannot open history '" + m_path +
                        "' for appending: " + std::strerror(errno));
        while (::flock(f.fd, LOCK_EX) != 0) {
            if (errno != EINTR)
                throw_infra("cannot lock history '" + m_path + "': " + std::strerror(errno));
        }
        struct stat now {};
        if (::fstat(f.fd, &st) != 0)
            throw_infra("cannot stat history '" + m_path + "': " + std::strerror(errno));
        if (::stat(path.c_str(), &now) == 0 && now.st_dev == st.st_dev && now.st_ino == st.st_ino)
            break;
        ::close(f.fd); // replaced while we waited: lock the file that is there now
        f.fd = -1;
    }
    const std::string text = read_all(f.fd, m_path);

    // Never add to a history that readers refuse: a bad line in the middle is an error here too
    // (a torn line is not: it stays, skipped with a warning, and our records start a new line).
    try {
        (void)parse_history_jsonl(text, m_path);
    } catch (const Error& e) {
        throw_usage(std::string(e.what()) +
                    "; nothing was appended (repair or remove that line first)");
    }
    std::multiset<std::string_view> stored;
    if (only_missing)
        for (std::size_t start = 0; start < text.size();) {
            auto end = text.find('\n', start);
            if (end == std::string::npos)
                end = text.size();
            auto line = std::string_view(text).substr(start, end - start);
            if (!line.empty() && line.back() == '\r')
                line.remove_suffix(1);
            stored.insert(line);
            start = end + 1;
        }
    std::string batch;
    std::size_t appended = 0;
    for (const auto& m : records) {
        const std::string line = measurement_to_json(m);
        if (only_missing) {
            // An identical line already stored stands for this record (counted: k copies in the
            // batch against j stored append k - j).
            if (auto it = stored.find(line); it != stored.end()) {
                stored.erase(it);
                continue;
            }
        }
        batch += line;
        batch += '\n';
        ++appended;
    }
    if (appended == 0)
        return 0;

    // All or nothing: the old content and the batch go to a temporary file in the same directory
    // that replaces the history by rename(2) once it is complete and on disk. A kill at any point
    // leaves the old file or the new one, never part of the batch.
    const std::string base = fs::path(path).filename().string();
    for (const auto& e : fs::directory_iterator(dir, ec))
        if (e.path().filename().string().rfind(base + ".tmp.", 0) == 0)
            fs::remove(e.path(), ec); // left by a killed writer (we hold the lock: none is live)
    const std::string tmp = path + ".tmp." + std::to_string(::getpid());
    Fd t;
    t.fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, st.st_mode & 07777);
    if (t.fd < 0)
        throw_infra("cannot create '" + tmp + "' next to history '" + m_path +
                    "': " + std::strerror(errno));
    auto fail = [&](const std::string& what) {
        const std::string why = std::strerror(errno);
        ::unlink(tmp.c_str());
        throw_infra("cannot append to history '" + m_path + "': " + what + ": " + why +
                    "; nothing was appended");
    };
    if (::fchmod(t.fd, st.st_mode & 07777) != 0)
        fail("fchmod");
    std::string head = text;
    if (!head.empty() && head.back() != '\n')
        head += '\n';
    if (!write_all(t.fd, head) || !write_all(t.fd, batch.substr(0, batch.size() / 2)))
        fail("write");
    util::crash_point("history.mid_append");
    if (!write_all(t.fd, batch.substr(batch.size() / 2)))
        fail("write");
    util::crash_point("history.before_fsync");
    if (::fsync(t.fd) != 0)
        fail("fsync");
    util::crash_point("history.before_rename");
    if (::rename(tmp.c_str(), path.c_str()) != 0)
        fail("rename");
    // The rename itself is durable once the directory is synced.
    Fd d;
    d.fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (d.fd < 0 || ::fsync(d.fd) != 0)
        throw_infra("cannot fsync the directory of history '" + m_path +
                    "': " + std::strerror(errno) + " (the records were appended)");
    return appended;
}

} // namespace perfsweep::adapters
