#include "adapters/history/jsonl_store.hpp"

#include "adapters/json/json_parse.hpp"
#include "adapters/json/measurement_json.hpp"
#include "util/crash_point.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

#include <rapidjson/document.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string_view>
#include <unordered_map>

namespace perfsweep::adapters {

namespace {

namespace fs = std::filesystem;

constexpr std::size_t k_chunk = 1 << 20; ///< bytes read at a time

/// True when `line` is the beginning of a JSON document cut short (what a crash mid-write leaves):
/// the parser runs out of input rather than meeting a wrong character.
bool is_truncated_json(std::string_view line) {
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
    Fd() = default;
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd() { reset(); }
    void reset() {
        if (fd >= 0)
            ::close(fd);
        fd = -1;
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

/// pread of up to `n` bytes at `at` (short only at the end of the file).
std::string read_at(int fd, off_t at, std::size_t n, const std::string& path) {
    std::string out(n, '\0');
    std::size_t got = 0;
    while (got < n) {
        const ssize_t r = ::pread(fd, out.data() + got, n - got, at + static_cast<off_t>(got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            throw_infra("cannot read history '" + path + "': " + std::strerror(errno));
        if (r == 0)
            break;
        got += static_cast<std::size_t>(r);
    }
    out.resize(got);
    return out;
}

/// 64-bit FNV-1a of `data`: tells a complete batch from one a crash cut short. Its basis is not
/// FNV's (a digit short); it stays, as the pending markers already written were summed with it.
std::uint64_t checksum(std::string_view data) {
    return util::fnv1a64(data, 1469598103934665603ULL);
}

/// What kind of file `st` is, for a message.
std::string kind_of(const struct stat& st) {
    if (S_ISDIR(st.st_mode))
        return "a directory";
    if (S_ISCHR(st.st_mode))
        return "a character device";
    if (S_ISBLK(st.st_mode))
        return "a block device";
    if (S_ISFIFO(st.st_mode))
        return "a named pipe";
    if (S_ISSOCK(st.st_mode))
        return "a socket";
    return "not a regular file";
}

/// Open the history at `path` with `flags` (never blocking on a FIFO) and check that it is a
/// regular file; -1 with errno ENOENT when it does not exist and `flags` has no O_CREAT.
int open_history(const std::string& path, int flags, const std::string& shown) {
    const int fd = ::open(path.c_str(), flags | O_CLOEXEC | O_NONBLOCK, 0644);
    if (fd < 0) {
        if (errno == ENOENT && !(flags & O_CREAT))
            return -1;
        if (errno == EISDIR)
            throw_usage("history '" + shown + "' is a directory; expected a JSON Lines file");
        throw_infra("cannot open history '" + shown + "': " + std::strerror(errno));
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        const int e = errno;
        ::close(fd);
        throw_infra("cannot stat history '" + shown + "': " + std::strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        ::close(fd);
        throw_usage("history '" + shown + "' is " + kind_of(st) +
                    "; expected a JSON Lines file (a regular file, which perfsweep appends to)");
    }
    return fd;
}

void lock(int fd, int how, const std::string& shown) {
    while (::flock(fd, how) != 0)
        if (errno != EINTR)
            throw_infra("cannot lock history '" + shown + "': " + std::strerror(errno));
}

/// The marker of an append in progress, next to the history file it belongs to (symbolic links
/// resolved: two names of one history share it).
std::string pending_path(const std::string& path) {
    std::error_code ec;
    const fs::path target = fs::weakly_canonical(fs::path(path), ec);
    return (ec ? path : target.string()) + ".perfsweep-pending";
}

/// An append that was under way: the history's size before it, the batch's length and checksum.
struct Pending {
    bool present = false;
    bool readable = false;
    std::uint64_t size = 0;
    std::uint64_t length = 0;
    std::uint64_t sum = 0;
};

Pending read_pending(const std::string& marker) {
    Pending p;
    const int fd = ::open(marker.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0)
        return p;
    p.present = true;
    char buf[128] = {0};
    const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
    ::close(fd);
    unsigned long long size = 0, length = 0, sum = 0;
    if (n > 0 && std::sscanf(buf, "perfsweep-pending %llu %llu %llx", &size, &length, &sum) == 3) {
        p.readable = true;
        p.size = size;
        p.length = length;
        p.sum = sum;
    }
    return p;
}

/// How many bytes of the file at `fd` (of `size` bytes) are committed: all, unless `p` describes
/// an append whose batch is not completely there (then the size before it).
std::uint64_t committed_size(int fd, std::uint64_t size, const Pending& p,
                             const std::string& shown) {
    if (!p.present || !p.readable || size < p.size)
        return size; // no append in progress, or a marker written before any byte of the batch
    if (size >= p.size + p.length &&
        checksum(read_at(fd, static_cast<off_t>(p.size), p.length, shown)) == p.sum)
        return size; // the batch is whole: it was committed just before its marker went away
    return p.size;
}

/// Splits the first `limit` bytes of `fd` into lines, read 1 MiB at a time; `take(line, line_no,
/// terminated)` gets each one ('\r' of a CRLF removed).
template <typename Take>
void for_each_line(int fd, std::uint64_t limit, const std::string& shown, Take&& take) {
    std::string carry;
    std::size_t line_no = 0;
    for (std::uint64_t at = 0; at < limit;) {
        const std::size_t want =
            static_cast<std::size_t>(std::min<std::uint64_t>(k_chunk, limit - at));
        std::string chunk = read_at(fd, static_cast<off_t>(at), want, shown);
        if (chunk.empty())
            break; // the file shrank under us (not by a perfsweep writer: we hold the lock)
        at += chunk.size();
        std::size_t start = 0;
        for (;;) {
            const auto nl = chunk.find('\n', start);
            if (nl == std::string::npos)
                break;
            std::string_view line(chunk.data() + start, nl - start);
            if (!carry.empty()) {
                carry.append(line);
                line = carry;
            }
            if (!line.empty() && line.back() == '\r')
                line.remove_suffix(1);
            take(line, ++line_no, true);
            carry.clear();
            start = nl + 1;
        }
        carry.append(chunk, start, std::string::npos);
    }
    if (!carry.empty()) {
        std::string_view line(carry);
        if (line.back() == '\r')
            line.remove_suffix(1);
        take(line, ++line_no, false);
    }
}

/// Decode one line into `out` (skipping blank lines); a torn record becomes a warning, any other
/// bad line an error naming file:line. Returns false when nothing was decoded.
bool decode_line(std::string_view line, std::size_t line_no, bool terminated,
                 const std::string& file, core::Measurement& out,
                 std::vector<std::string>& warnings) {
    if (line.find_first_not_of(" \t") == std::string_view::npos)
        return false;
    const std::string where = file + ":" + std::to_string(line_no);
    try {
        out = measurement_from_json(line, where);
        return true;
    } catch (const Error& e) {
        if (is_truncated_json(line) || !terminated) {
            warnings.push_back(
                where +
                ": skipped a torn record (a write cut short, e.g. by a crash): " + e.what());
            return false;
        }
        throw;
    }
}

/// `"text"` when `text` needs no JSON escape (then every record holding it holds these bytes
/// unless its line has a backslash), else "" (no shortcut).
std::string plain_json_string(const std::string& text) {
    for (unsigned char c : text)
        if (c < 0x20 || c == '"' || c == '\\' || c == 0x7f)
            return "";
    return '"' + text + '"';
}

/// True when `line` looks like one JSON object: first and last non-blank characters are braces.
bool object_shaped(std::string_view line) {
    const auto a = line.find_first_not_of(" \t");
    const auto b = line.find_last_not_of(" \t");
    return a != std::string_view::npos && line[a] == '{' && line[b] == '}';
}

/// The open, shared-locked history and its committed size, for reading; fd -1 when missing.
struct HistoryReader {
    Fd f;
    std::uint64_t committed = 0;
};

void open_for_reading(const std::string& path, HistoryReader& r) {
    r.f.fd = open_history(path, O_RDONLY, path);
    if (r.f.fd < 0)
        return;
    // A shared lock: an append in progress is never mistaken for a torn line.
    lock(r.f.fd, LOCK_SH, path);
    struct stat st {};
    if (::fstat(r.f.fd, &st) != 0)
        throw_infra("cannot stat history '" + path + "': " + std::strerror(errno));
    r.committed = committed_size(r.f.fd, static_cast<std::uint64_t>(st.st_size),
                                 read_pending(pending_path(path)), path);
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
        std::string_view line(text.data() + start, end - start);
        start = end + 1;
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        core::Measurement m;
        if (decode_line(line, ++line_no, terminated, file, m, out.warnings))
            out.records.push_back(std::move(m));
    }
    return out;
}

std::string read_history_text(const std::string& path) {
    HistoryReader r;
    open_for_reading(path, r);
    if (r.f.fd < 0)
        return "";
    return read_at(r.f.fd, 0, static_cast<std::size_t>(r.committed), path);
}

std::vector<std::string> JsonlHistoryStore::scan(const ports::RecordVisitor& visit) {
    return scan_series("", {}, visit);
}

ports::HistoryLoad JsonlHistoryStore::load() {
    ports::HistoryLoad out;
    out.warnings = scan([&](core::Measurement&& m) { out.records.push_back(std::move(m)); });
    return out;
}

std::vector<std::string> JsonlHistoryStore::scan_series(const std::string& metric,
                                                        const ports::KeyFilter& keep,
                                                        const ports::RecordVisitor& visit) {
    std::vector<std::string> warnings;
    HistoryReader r;
    open_for_reading(m_path, r);
    if (r.f.fd < 0)
        return warnings;
    // A record of the metric holds its name as a JSON string: a line without it (and without a
    // backslash, which could spell it otherwise) is of another metric and is only checked for
    // its shape, not decoded. (Boyer-Moore-Horspool: the needle begins with '"', at which
    // find() would stop every few bytes.) Of the metric's lines, those whose key `keep` refuses
    // are only read for their key (and so checked to be well-formed JSON).
    const std::string needle = metric.empty() ? "" : plain_json_string(metric);
    const std::boyer_moore_horspool_searcher search(needle.begin(), needle.end());
    auto take = [&](core::Measurement&& m) {
        if (!metric.empty() && m.metric != metric)
            return;
        if (!keep || keep(core::series_key(m), m.stage))
            visit(std::move(m));
    };
    for_each_line(
        r.f.fd, r.committed, m_path, [&](std::string_view line, std::size_t no, bool terminated) {
            const bool plain =
                terminated && object_shaped(line) && line.find('\\') == std::string_view::npos;
            if (plain && !needle.empty() &&
                std::search(line.begin(), line.end(), search) == line.end())
                return;
            core::Measurement m;
            if (keep && terminated)
                if (const auto k = record_key_from_json(line)) {
                    if ((metric.empty() || k->key.metric == metric) && keep(k->key, k->stage) &&
                        decode_line(line, no, terminated, m_path, m, warnings))
                        visit(std::move(m));
                    return;
                }
            if (decode_line(line, no, terminated, m_path, m, warnings))
                take(std::move(m));
        });
    return warnings;
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
    std::error_code ec;
    const fs::path p(m_path);
    if (p.has_parent_path())
        fs::create_directories(p.parent_path(), ec);

    // The exclusive lock on the history file (as `record` always took it). An older perfsweep
    // replaced the file by rename: a writer that waited on a file meanwhile replaced locks the
    // new one.
    Fd f;
    for (;;) {
        f.fd = open_history(m_path, O_RDWR | O_APPEND | O_CREAT, m_path);
        lock(f.fd, LOCK_EX, m_path);
        struct stat mine {
        }, now{};
        if (::fstat(f.fd, &mine) == 0 && ::stat(m_path.c_str(), &now) == 0 &&
            now.st_dev == mine.st_dev && now.st_ino == mine.st_ino)
            break;
        f.reset();
    }
    const std::string marker = pending_path(m_path);
    const fs::path dir = fs::path(marker).parent_path();
    auto fail = [&](const std::string& what) {
        throw_infra("cannot append to history '" + m_path + "': " + what + ": " +
                    std::strerror(errno) + "; nothing was appended");
    };
    auto sync_dir = [&] {
        Fd d;
        d.fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (d.fd < 0 || ::fsync(d.fd) != 0)
            fail("fsync of its directory");
    };

    // 1. An append that a kill or a crash cut short: remove what it wrote (nobody read it).
    struct stat st {};
    if (::fstat(f.fd, &st) != 0)
        fail("fstat");
    std::uint64_t size = static_cast<std::uint64_t>(st.st_size);
    if (const Pending old = read_pending(marker); old.present) {
        const std::uint64_t keep = committed_size(f.fd, size, old, m_path);
        if (keep < size) {
            if (::ftruncate(f.fd, static_cast<off_t>(keep)) != 0 || ::fsync(f.fd) != 0)
                fail("removing the part of an append cut short");
            size = keep;
        }
        ::unlink(marker.c_str());
    }

    // 2. The batch: new lines only (append_missing: those not stored yet, compared under the
    //    lock by content; the file is streamed, only the batch is kept in memory).
    std::vector<std::string> lines;
    lines.reserve(records.size());
    for (const auto& m : records)
        lines.push_back(measurement_to_json(m));
    std::vector<bool> keep(lines.size(), true);
    if (only_missing) {
        // k identical lines in the batch against j stored ones append k - j.
        std::unordered_map<std::string_view, std::vector<std::size_t>> todo;
        for (std::size_t i = 0; i < lines.size(); ++i)
            todo[lines[i]].push_back(i);
        for_each_line(f.fd, size, m_path, [&](std::string_view line, std::size_t, bool) {
            if (auto it = todo.find(line); it != todo.end() && !it->second.empty()) {
                keep[it->second.back()] = false;
                it->second.pop_back();
            }
        });
    }
    std::string batch;
    std::size_t appended = 0;
    for (std::size_t i = 0; i < lines.size(); ++i)
        if (keep[i]) {
            batch += lines[i];
            batch += '\n';
            ++appended;
        }
    if (appended == 0)
        return 0;
    // A torn last line of another writer stays (skipped with a warning); ours start a new line.
    if (size > 0 && read_at(f.fd, static_cast<off_t>(size - 1), 1, m_path) != "\n")
        batch.insert(batch.begin(), '\n');

    // 3. The marker first (durably: a power loss must not leave half a batch without it), then
    //    the batch at the end of the file, on disk before the marker goes.
    {
        Fd m;
        m.fd = ::open(marker.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
        char text[128];
        const int n = std::snprintf(text, sizeof text, "perfsweep-pending %llu %llu %llx\n",
                                    static_cast<unsigned long long>(size),
                                    static_cast<unsigned long long>(batch.size()),
                                    static_cast<unsigned long long>(checksum(batch)));
        if (m.fd < 0 || !write_all(m.fd, std::string_view(text, static_cast<std::size_t>(n))) ||
            ::fsync(m.fd) != 0)
            fail("writing " + marker);
    }
    sync_dir();
    auto roll_back = [&](const std::string& what) {
        const int e = errno;
        if (::ftruncate(f.fd, static_cast<off_t>(size)) == 0 && ::fsync(f.fd) == 0)
            ::unlink(marker.c_str());
        errno = e;
        fail(what);
    };
    const std::size_t half = batch.size() / 2;
    if (!write_all(f.fd, std::string_view(batch).substr(0, half)))
        roll_back("write");
    util::crash_point("history.mid_append");
    if (!write_all(f.fd, std::string_view(batch).substr(half)))
        roll_back("write");
    util::crash_point("history.before_fsync");
    if (::fdatasync(f.fd) != 0)
        roll_back("fsync");
    util::crash_point("history.before_commit"); // the batch is on disk, the marker still there
    if (::unlink(marker.c_str()) != 0)
        throw_infra("cannot remove '" + marker + "' after appending to history '" + m_path +
                    "': " + std::strerror(errno) + " (the records were appended)");
    return appended;
}

} // namespace perfsweep::adapters
