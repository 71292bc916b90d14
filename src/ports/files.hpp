#pragma once
// Port: plain file access used by the application layer.

#include <memory>
#include <string>
#include <vector>

namespace perfsweep::ports {

/// An exclusive hold on a directory (Files::lock_dir), released when destroyed.
class DirLock {
public:
    virtual ~DirLock() = default;
};

/// File operations; errors are thrown as perfsweep::Error naming the path.
class Files {
public:
    virtual ~Files() = default;
    /// Whole content of `path`; "-" reads standard input. Throws a usage error naming the path.
    virtual std::string read_text(const std::string& path) = 0;
    /// Replace `path` by `content` atomically (temp file + fsync + rename); creates parent dirs.
    virtual void write_atomic(const std::string& path, const std::string& content) = 0;
    /// True when `path` exists.
    virtual bool exists(const std::string& path) = 0;
    /// Create `path` and its parents if missing.
    virtual void make_dirs(const std::string& path) = 0;
    /// Remove `path` and everything below it (nothing when it does not exist). Throws an
    /// infrastructure error naming the path when something cannot be removed.
    virtual void remove_tree(const std::string& path) = 0;
    /// Make `link` a symbolic link to `target` (relative to the link's directory), replacing an
    /// existing link atomically.
    virtual void point_link(const std::string& link, const std::string& target) = 0;
    /// `path` itself when it is a file; when a directory, every *.json / *.jsonl file under it
    /// (recursively, sorted): the inputs of `merge`. Throws a usage error when it does not exist.
    virtual std::vector<std::string> result_files(const std::string& path) = 0;
    /// Hold `dir` (created if missing) for this process alone until the returned object is
    /// destroyed: a lock of the directory that another perfsweep cannot take meanwhile (never
    /// waits).
    /// Throws an infrastructure error naming `what` (e.g. "--state DIR") and the holder (pid,
    /// since when) when another process holds it. Holding it twice in one process is allowed.
    virtual std::unique_ptr<DirLock> lock_dir(const std::string& dir, const std::string& what) = 0;
};

} // namespace perfsweep::ports
