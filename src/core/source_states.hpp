#pragma once
// Source states over time for several repos (pure): which commit every repo was at for every point
// of a time grid, resolved in one pass; deduplication; the merged commit timeline; candidates.

#include "util/time.hpp"

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace perfsweep::core {

/// One commit as the planners see it.
struct CommitInfo {
    std::string sha;
    util::UnixSeconds time = 0; ///< committer time
    std::string author;         ///< "Name <email>"
    std::string subject;        ///< first line of the message
    std::vector<std::string> parents;
};

/// The commits of one repo in walk order from its ref: the first-parent chain (newest first), or
/// for --any-parent the order in which `git rev-list REF` lists every reachable commit.
struct RepoLine {
    std::string name;
    std::vector<CommitInfo> commits;
};

/// Order `reachable` (every commit reachable from `tip`, any order, with parents) the way
/// `git rev-list tip` lists them: a walk that always takes the newest queued commit by committer
/// date, queueing parents in parent order behind queued commits of equal date. Commits whose
/// parents are missing from `reachable` are treated as roots.
std::vector<CommitInfo> rev_list_order(std::vector<CommitInfo> reachable, const std::string& tip);

/// Most grid points make_grid accepts (50,000: 5.7 years at 1h, 34 days at 1m; `hourly --plan` of
/// that many states took 1.4 s and 52 MB on the 2-core development VM).
inline constexpr std::int64_t k_max_grid_points = 50000;

/// Time points from `from` to `to`: `from`, every whole `step` after it counted from the UTC
/// midnight of its day (13:06:09 → 14:00, 15:00, ... with 1h), and `to` as the last point.
/// Throws a usage error when `to` < `from`, `step` <= 0 or the grid would have more than
/// k_max_grid_points points (the message names the window, the step and the count).
std::vector<util::UnixSeconds> make_grid(util::UnixSeconds from, util::UnixSeconds to,
                                         std::int64_t step);

/// For every grid time (ascending) and every line, the index in `line.commits` of the first commit
/// in walk order whose committer time is <= T (what `git rev-list -1 --before=T` prints), or
/// nullopt when there is none. One pass over each line for the whole grid. result[g][r].
std::vector<std::vector<std::optional<std::size_t>>>
resolve_indices(const std::vector<RepoLine>& lines, const std::vector<util::UnixSeconds>& grid);

/// One point of the grid with the commit of every repo.
struct SourceState {
    util::UnixSeconds time = 0;
    std::map<std::string, std::string> commits;     ///< repo → sha
    std::map<std::string, util::UnixSeconds> times; ///< repo → committer time of that commit
    std::vector<std::string> changed; ///< repos whose commit differs from the previous
    bool duplicate = false;           ///< no repo changed since the previous point
};

/// Resolve `grid` for `lines` and dedupe. Throws a usage error naming the repo and time when a
/// repo has no commit at or before a grid time.
std::vector<SourceState> resolve_states(const std::vector<RepoLine>& lines,
                                        const std::vector<util::UnixSeconds>& grid);

/// One step of the merged commit timeline: repo `repo` moves to `commit`.
struct TimelineStep {
    std::string repo;
    CommitInfo commit;
};

/// Every main-line commit after `from` up to and including `to` of every repo, merged by committer
/// time (each repo keeps its own order; ties go to the earlier repo in `lines`). `lines` are
/// first-parent chains (newest first). Throws a usage error when a commit of `from`/`to` is not on
/// the repo's chain or `to` is older than `from` on it.
std::vector<TimelineStep> merged_timeline(const std::vector<RepoLine>& lines,
                                          const std::map<std::string, std::string>& from,
                                          const std::map<std::string, std::string>& to);

/// The commits of `line` reachable from `bad` but not from `good` (`git rev-list good..bad`), in
/// walk order of `line`. `line` must hold every commit needed (a chain or all reachable).
std::vector<CommitInfo> commits_between(const RepoLine& line, const std::string& good,
                                        const std::string& bad);

/// A GitHub compare URL for `remote_url` (https, ssh or scp-like GitHub remotes) from `a` to `b`;
/// empty when the remote is not on GitHub.
std::string compare_url(const std::string& remote_url, const std::string& a, const std::string& b);

} // namespace perfsweep::core
