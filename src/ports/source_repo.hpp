#pragma once
// Port: one source repository (a local clone with a worktree) for the hourly and commit stages.

#include "core/source_states.hpp"
#include "util/time.hpp"

#include <memory>
#include <string>
#include <vector>

namespace perfsweep::ports {

/// A local clone. Errors are thrown as perfsweep::Error naming the repo, its path and the ref.
class SourceRepo {
public:
    virtual ~SourceRepo() = default;
    /// The name given with --repo NAME=PATH.
    virtual const std::string& name() const = 0;
    /// The clone's directory.
    virtual const std::string& path() const = 0;
    /// True for a shallow clone (the stages need full history).
    virtual bool is_shallow() = 0;
    /// The commit sha that `ref` (branch, remote branch, tag, sha) names. Throws if unknown.
    virtual std::string resolve(const std::string& ref) = 0;
    /// Commits reachable from `ref`, newest first along first parents, down to and including the
    /// first one whose committer time is <= `since` (all of them when none is).
    virtual std::vector<core::CommitInfo> first_parent_history(const std::string& ref,
                                                               util::UnixSeconds since) = 0;
    /// Every commit reachable from `ref` through any parent, in no particular order.
    virtual std::vector<core::CommitInfo> reachable(const std::string& ref) = 0;
    /// Sha, committer time, author, subject and parents of `sha`.
    virtual core::CommitInfo commit(const std::string& sha) = 0;
    /// The commit HEAD points at (empty for an unborn HEAD).
    virtual std::string head() = 0;
    /// Check out `sha` detached and forced, writing only the files that differ from the worktree.
    virtual void checkout(const std::string& sha) = 0;
    /// URL of the remote `remote` ("origin"), empty when there is none.
    virtual std::string remote_url(const std::string& remote) = 0;
    /// Fetch `remote`; HTTPS authentication uses the token in environment variable `token_env`
    /// (if set); the token is never printed.
    virtual void fetch(const std::string& remote, const std::string& token_env) = 0;
};

/// Opens source repo clones.
class SourceRepos {
public:
    virtual ~SourceRepos() = default;
    /// The clone at `path` under `name`. Throws when it is not a git repository with a worktree.
    virtual std::unique_ptr<SourceRepo> open(const std::string& name, const std::string& path) = 0;
};

} // namespace perfsweep::ports
