#pragma once
// Files, Clock and Progress on the local machine.

#include "ports/clock.hpp"
#include "ports/files.hpp"
#include "ports/progress.hpp"

#include <cstdio>

namespace perfsweep::adapters {

/// POSIX file access with atomic replace.
class LocalFiles final : public ports::Files {
public:
    /// Read `path` ("-" = stdin).
    std::string read_text(const std::string& path) override;
    /// Write via temp file, fsync and rename.
    void write_atomic(const std::string& path, const std::string& content) override;
    /// True if `path` exists.
    bool exists(const std::string& path) override;
    /// mkdir -p.
    void make_dirs(const std::string& path) override;
    /// rm -rf.
    void remove_tree(const std::string& path) override;
    /// symlink to a temp name, then rename over `link`.
    void point_link(const std::string& link, const std::string& target) override;
    /// expand_result_files (adapters/system/result_files.hpp).
    std::vector<std::string> result_files(const std::string& path) override;
    /// flock of `dir` itself (adapters/system/path_lock.hpp).
    std::unique_ptr<ports::DirLock> lock_dir(const std::string& dir,
                                             const std::string& what) override;
};

/// The system clock.
class SystemClock final : public ports::Clock {
public:
    /// Seconds since the epoch.
    double now() override;
    /// Sleep for `seconds`.
    void sleep(double seconds) override;
};

/// Progress to a stream (stderr). Inside GitHub Actions, untrusted blocks are folded in
/// ::group:: and fenced with ::stop-commands:: so their text cannot run workflow commands.
class StreamProgress final : public ports::Progress {
public:
    /// Write to `out`; `in_actions` enables workflow-command folding.
    StreamProgress(std::FILE* out, bool in_actions) : m_out(out), m_in_actions(in_actions) {}
    /// Print one line.
    void line(std::string_view text) override;
    /// Print `text` under `title`, neutralised for workflow commands.
    void untrusted_block(std::string_view title, std::string_view text) override;

private:
    std::FILE* m_out;
    bool m_in_actions;
};

} // namespace perfsweep::adapters
