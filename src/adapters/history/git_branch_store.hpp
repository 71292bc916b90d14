#pragma once
// HistoryStore kept as a JSON Lines file in a git branch, written with libgit2 directly (no
// worktree, no index, no checkout), shared between ephemeral runners by pushing.

#include "ports/history_store.hpp"

#include <functional>
#include <memory>
#include <string>

namespace perfsweep::adapters {

/// Where a git history lives, parsed from a --history spec.
struct GitHistorySpec {
    std::string branch;                 ///< e.g. "perfsweep-data"
    std::string remote_url;             ///< "" for the current repo ("git:BRANCH")
    std::string repo_path;              ///< the current repo's start path (for "git:BRANCH")
    std::string file = "history.jsonl"; ///< path of the JSONL file inside the branch
};

/// True when `spec` names a git history ("git:BRANCH", "git+https://…#BRANCH",
/// "git+file:///…#BRANCH").
bool is_git_history_spec(const std::string& spec);

/// Parse a git history spec; `start_dir` is where "git:BRANCH" looks for the repository
/// (GITHUB_WORKSPACE or the working directory). Throws a usage error naming the spec.
GitHistorySpec parse_git_history_spec(const std::string& spec, const std::string& start_dir);

/// Options of the store.
struct GitStoreOptions {
    std::string cache_dir; ///< where private bare caches of remotes live
    std::string token;     ///< push/fetch token for https remotes (never printed)
    int max_attempts = 30; ///< bounded retries when another writer pushed first
    /// Test hook: called with the attempt number (1-based) after the tip was read and the new
    /// commit built, just before the compare-and-swap (or push) that publishes it.
    std::function<void(int attempt)> before_swap;
};

/// A history in a git branch. Appends create one commit on the branch tip, published by a
/// compare-and-swap of the branch ref (under its lock) or a non-forced push; when another writer
/// moved the branch first, the records are re-applied on a fresh read of the tip and retried.
class GitBranchStore final : public ports::HistoryStore {
public:
    /// Open (or create the cache for) `spec`. Throws infra errors from libgit2, token-free.
    GitBranchStore(GitHistorySpec spec, GitStoreOptions options);
    ~GitBranchStore() override;
    GitBranchStore(const GitBranchStore&) = delete;
    GitBranchStore& operator=(const GitBranchStore&) = delete;
    /// Read every record from the branch tip (after a fetch for remotes).
    ports::HistoryLoad load() override;
    /// Append `records` as one commit and publish it; retries on concurrent pushes.
    void append(const std::vector<core::Measurement>& records) override;
    /// Append those of `records` whose line the tip lacks, compared on each attempt's fresh tip.
    std::size_t append_missing(const std::vector<core::Measurement>& records) override;
    /// Write `files` next to the history file in one commit, published like an append.
    void write_beside(const std::vector<ports::SideFile>& files) override;
    /// The files under `folder` next to the history file at the branch tip.
    std::vector<ports::SideFile> read_beside(const std::string& folder) override;
    /// "git:BRANCH" or "git+URL#BRANCH" without credentials.
    std::string describe() const override;
    /// How many times an append was re-applied because another writer moved the branch first.
    int reapplied() const { return m_reapplied; }

    struct Impl;

private:
    /// append (`only_missing` false) or append_missing; returns the records written.
    std::size_t write_batch(const std::vector<core::Measurement>& records, bool only_missing);
    std::unique_ptr<Impl> m_impl;
    int m_reapplied = 0;
};

} // namespace perfsweep::adapters
