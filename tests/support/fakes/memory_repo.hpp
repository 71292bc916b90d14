#pragma once
// In-memory source repos behind ports::SourceRepos: one first-parent line of commits per repo,
// with the errors of the libgit2 adapter for an unknown name, path or ref.

#include "ports/source_repo.hpp"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace perfsweep::fakes {

/// One repo's history: a straight line of commits, oldest first.
struct CommitLine {
    std::string name;
    std::string path;
    std::vector<core::CommitInfo> commits; ///< oldest first; shas are 40 hex digits
    std::string remote;                    ///< URL of "origin" ("" = no remote)
    /// The sha of commit `i`.
    const std::string& sha(std::size_t i) const { return commits.at(i).sha; }
    /// Index of the newest commit at or before `t` (commit 0 when none is).
    std::size_t at_time(util::UnixSeconds t) const;
    /// Index of `sha`; throws when it is not in the line.
    std::size_t index_of(const std::string& sha) const;
};

/// `count` commits of repo `name` at `path`, one every `every` seconds from `start`; shas are
/// 40 hex digits derived from the name and index.
CommitLine make_line(const std::string& name, const std::string& path, util::UnixSeconds start,
                     int count, util::UnixSeconds every);

/// Opens the registered lines; anything else is "not a git repository", like the real adapter.
class MemoryRepos final : public ports::SourceRepos {
public:
    /// A clone of `line` (its own HEAD; every open starts at the newest commit).
    std::unique_ptr<ports::SourceRepo> open(const std::string& name,
                                            const std::string& path) override;
    /// Make `line` openable at line.path.
    void add(CommitLine line) { m_lines[line.path] = std::move(line); }
    std::vector<std::string> checkouts; ///< "name@sha" of every checkout, in order
    int opened = 0;                     ///< open calls that succeeded

private:
    std::map<std::string, CommitLine> m_lines; ///< by path
};

} // namespace perfsweep::fakes
