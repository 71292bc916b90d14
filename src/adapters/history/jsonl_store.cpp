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

void write_all(int fd, const std::string& data, const std::string& path) {
    std::size_t off = 0;
    while (off < data.size()) {
        const ssize_t n = ::write(fd, data.data() + off, data.size() - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            throw_infra("cannot append to history '" + path + "': " + std::strerror(errno));
        off += static_cast<std::size_t>(n);
    }
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
    std::string text;
    char buf[1 << 16];
    for (;;) {
        const ssize_t n = ::read(f.fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            throw_infra("cannot read history '" + m_path + "': " + std::strerror(errno));
        if (n == 0)
            break;
        text.append(buf, static_cast<std::size_t>(n));
    }
    return parse_history_jsonl(text, m_path);
}

void JsonlHistoryStore::append(const std::vector<core::Measurement>& records) {
    if (records.empty())
        return;
    std::string batch;
    for (const auto& m : records) {
        batch += measurement_to_json(m);
        batch += '\n';
    }
    const std::filesystem::path p(m_path);
    std::error_code ec;
    if (p.has_parent_path())
        std::filesystem::create_directories(p.parent_path(), ec);
    Fd f;
    f.fd = ::open(m_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (f.fd < 0)
        throw_infra("cannot open history '" + m_path + "' for appending: " + std::strerror(errno));
    while (::flock(f.fd, LOCK_EX) != 0) {
        if (errno != EINTR)
            throw_infra("cannot lock history '" + m_path + "': " + std::strerror(errno));
    }
    struct stat st {};
    if (::fstat(f.fd, &st) != 0)
        throw_infra("cannot stat history '" + m_path + "': " + std::strerror(errno));
    if (st.st_size > 0) {
        // A crash may have left a line without its newline: end it so our records stay whole
        // lines (the torn text stays, and load() reports it).
        Fd r;
        r.fd = ::open(m_path.c_str(), O_RDONLY | O_CLOEXEC);
        char last = '\n';
        if (r.fd < 0 || ::pread(r.fd, &last, 1, st.st_size - 1) != 1)
            throw_infra("cannot read the end of history '" + m_path + "': " + std::strerror(errno));
        if (last != '\n')
            batch.insert(batch.begin(), '\n');
    }
    // Two halves: the crash point between them leaves a torn last line (what a kill mid-append
    // leaves behind).
    const auto half = batch.size() / 2;
    write_all(f.fd, batch.substr(0, half), m_path);
    util::crash_point("history.mid_append");
    write_all(f.fd, batch.substr(half), m_path);
    util::crash_point("history.before_fsync");
    if (::fsync(f.fd) != 0)
        throw_infra("cannot fsync history '" + m_path + "': " + std::strerror(errno));
}

} // namespace perfsweep::adapters
