#pragma once
// For tests of git-branch histories that push: a store on a remote, through the fetch/commit/push
// path with its own private cache (as a second job on another machine would be).

#include "adapters/history/git_branch_store.hpp"

#include <string>

namespace perfsweep::test {

/// A history on `branch` of the repository at `remote_url` (e.g. "file:///tmp/x/data.git"), its
/// private bare cache at `cache_dir`, sending `token` (if any) to the remote.
inline adapters::GitBranchStore remote_history(const std::string& remote_url,
                                               const std::string& branch,
                                               const std::string& cache_dir,
                                               const std::string& token = {}) {
    adapters::GitHistorySpec spec;
    spec.branch = branch;
    spec.remote_url = remote_url;
    adapters::GitStoreOptions opt;
    opt.cache_dir = cache_dir;
    opt.token = token;
    return adapters::GitBranchStore(spec, opt);
}

} // namespace perfsweep::test
