#include "adapters/system/local_files.hpp"

#include "adapters/system/path_lock.hpp"
#include "adapters/system/result_files.hpp"
#include "util/crash_point.hpp"
#include "util/error.hpp"
#include "util/workflow_text.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>

namespace perfsweep::adapters {

namespace fs = std::filesystem;

std::string LocalFiles::read_text(const std::string& path) {
    if (path == "-") {
        std::ostringstream ss;
        ss << std::cin.rdbuf();
        return ss.str();
    }
    std::error_code ec;
    if (fs::is_directory(path, ec))
        throw_usage("cannot read '" + path + "': it is a directory, expected a file");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw_usage("cannot read '" + path + "': " + std::strerror(errno));
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void LocalFiles::write_atomic(const std::string& path, const std::string& content) {
    fs::path p(path);
    if (p.has_parent_path())
        make_dirs(p.parent_path().string());
    std::random_device rd;
    const std::string tmp =
        path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(rd());
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        throw_infra("cannot create '" + tmp + "': " + std::strerror(errno));
    util::crash_point("files.after_create"); // an empty temp file left behind
    auto write_range = [&](size_t off, size_t end) {
        while (off < end) {
            ssize_t n = ::write(fd, content.data() + off, end - off);
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0) {
                int e = errno;
                ::close(fd);
                ::unlink(tmp.c_str());
                throw_infra("cannot write '" + tmp + "': " + std::strerror(e));
            }
            off += static_cast<size_t>(n);
        }
    };
    // Two halves: the crash point between them leaves a half-written temp file.
    write_range(0, content.size() / 2);
    util::crash_point("files.mid_write");
    write_range(content.size() / 2, content.size());
    if (::fsync(fd) != 0 || ::close(fd) != 0) {
        int e = errno;
        ::unlink(tmp.c_str());
        throw_infra("cannot flush '" + tmp + "': " + std::strerror(e));
    }
    util::crash_point("files.before_rename");
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        int e = errno;
        ::unlink(tmp.c_str());
        throw_infra("cannot rename '" + tmp + "' to '" + path + "': " + std::strerror(e));
    }
}

bool LocalFiles::exists(const std::string& path) {
    std::error_code ec;
    return fs::exists(path, ec);
}

void LocalFiles::make_dirs(const std::string& path) {
    std::error_code ec;
    fs::create_directories(path, ec);
    if (ec)
        throw_infra("cannot create directory '" + path + "': " + ec.message());
}

void LocalFiles::remove_tree(const std::string& path) {
    std::error_code ec;
    fs::remove_all(path, ec);
    if (ec)
        throw_infra("cannot remove '" + path + "': " + ec.message());
}

void LocalFiles::point_link(const std::string& link, const std::string& target) {
    std::random_device rd;
    const std::string tmp =
        link + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(rd());
    if (::symlink(target.c_str(), tmp.c_str()) != 0)
        throw_infra("cannot create link '" + tmp + "': " + std::strerror(errno));
    if (::rename(tmp.c_str(), link.c_str()) != 0) {
        const int err = errno;
        ::unlink(tmp.c_str());
        throw_infra("cannot replace '" + link + "': " + std::strerror(err));
    }
}

std::vector<std::string> LocalFiles::result_files(const std::string& path) {
    return expand_result_files(path);
}

namespace {
struct DirHold final : ports::DirLock {
    std::unique_ptr<PathLock> lock;
};
} // namespace

std::unique_ptr<ports::DirLock> LocalFiles::lock_dir(const std::string& dir,
                                                     const std::string& what) {
    auto hold = std::make_unique<DirHold>();
    hold->lock = hold_dir_lock(dir, what,
                               "wait for it to finish, or give this run another directory "
                               "(two runs on one directory would measure every point twice "
                               "and overwrite each other's records)");
    return hold;
}

void StreamProgress::line(std::string_view text) {
    // A progress line built from untrusted labels never starts a workflow command (the runner
    // trims leading whitespace and reads "##[" anywhere), and never spans two lines.
    const std::string s = m_in_actions ? util::inert_line(text) : std::string(text);
    std::fprintf(m_out, "%s\n", s.c_str());
    std::fflush(m_out);
}

void StreamProgress::untrusted_block(std::string_view title, std::string_view text) {
    std::string t = util::inert_line(title);
    if (!m_in_actions) {
        std::fprintf(m_out, "--- %s\n%.*s\n", t.c_str(), static_cast<int>(text.size()),
                     text.data());
        std::fflush(m_out);
        return;
    }
    // A fresh random token per block: output cannot guess it to resume command processing.
    std::random_device rd;
    std::ostringstream token;
    token << "perfsweep-" << std::hex << rd() << rd() << rd();
    std::fprintf(m_out, "::group::%s\n::stop-commands::%s\n", t.c_str(), token.str().c_str());
    std::fwrite(text.data(), 1, text.size(), m_out);
    if (!text.empty() && text.back() != '\n')
        std::fputc('\n', m_out);
    std::fprintf(m_out, "::%s::\n::endgroup::\n", token.str().c_str());
    std::fflush(m_out);
}

} // namespace perfsweep::adapters
