#include "core/source_states.hpp"

#include "util/error.hpp"

#include <algorithm>
#include <queue>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

namespace perfsweep::core {

std::vector<CommitInfo> rev_list_order(std::vector<CommitInfo> reachable, const std::string& tip) {
    std::unordered_map<std::string, std::size_t> by_sha;
    by_sha.reserve(reachable.size());
    for (std::size_t i = 0; i < reachable.size(); ++i)
        by_sha.emplace(reachable[i].sha, i);
    std::vector<CommitInfo> out;
    auto it = by_sha.find(tip);
    if (it == by_sha.end())
        return out;
    out.reserve(reachable.size());
    // git keeps a list sorted by date, inserting a commit after every queued commit of equal or
    // newer date: a max-heap on (date, -insertion sequence) reproduces that order exactly.
    using Entry = std::tuple<util::UnixSeconds, std::int64_t, std::size_t>; // time, -seq, index
    std::priority_queue<Entry> queue;
    std::vector<bool> seen(reachable.size(), false);
    std::int64_t seq = 0;
    seen[it->second] = true;
    queue.emplace(reachable[it->second].time, -seq++, it->second);
    while (!queue.empty()) {
        auto [t, s, idx] = queue.top();
        (void)t;
        (void)s;
        queue.pop();
        for (const auto& p : reachable[idx].parents) {
            auto pit = by_sha.find(p);
            if (pit == by_sha.end() || seen[pit->second])
                continue;
            seen[pit->second] = true;
            queue.emplace(reachable[pit->second].time, -seq++, pit->second);
        }
        out.push_back(std::move(reachable[idx]));
    }
    return out;
}

namespace {

/// A step as the flag takes it: "2h", "30m" or "90s".
std::string step_text(std::int64_t step) {
    if (step % 3600 == 0)
        return std::to_string(step / 3600) + "h";
    if (step % 60 == 0)
        return std::to_string(step / 60) + "m";
    return std::to_string(step) + "s";
}

} // namespace

std::vector<util::UnixSeconds> make_grid(util::UnixSeconds from, util::UnixSeconds to,
                                         std::int64_t step) {
    if (step <= 0)
        throw_usage("--step: expected a positive duration such as 1h or 30m");
    if (to < from)
        throw_usage("--from " + util::format_iso8601(from) + " is after --to " +
                    util::format_iso8601(to) + ": expected --from <= --to");
    if (from == to)
        return {to};
    // The first whole step after `from`, counted from the UTC midnight of its day (14:00 after
    // 13:06:09 with 1h), like the hours of the upstream method; no sum that could overflow.
    auto floor_div = [](std::int64_t a, std::int64_t b) { return a / b - (a % b < 0 ? 1 : 0); };
    const std::int64_t midnight = floor_div(from, 86400) * 86400;
    std::int64_t first = to, inner = 0;
    if (step <= to - midnight) { // else no whole step lies inside (and none is computed)
        first = midnight + (floor_div(from - midnight, step) + 1) * step;
        inner = first >= to ? 0 : (to - 1 - first) / step + 1;
    }
    const std::int64_t points = inner + 2;
    if (points > k_max_grid_points)
        throw_usage("--from " + util::format_iso8601(from) + " --to " + util::format_iso8601(to) +
                    " --step " + step_text(step) + ": " + std::to_string(points) +
                    " grid points, more than the limit of " + std::to_string(k_max_grid_points) +
                    "; expected a shorter window or a larger --step");
    std::vector<util::UnixSeconds> grid;
    grid.reserve(static_cast<std::size_t>(points));
    grid.push_back(from);
    for (std::int64_t i = 0; i < inner; ++i)
        grid.push_back(first + i * step);
    grid.push_back(to);
    return grid;
}

std::vector<std::vector<std::optional<std::size_t>>>
resolve_indices(const std::vector<RepoLine>& lines, const std::vector<util::UnixSeconds>& grid) {
    std::vector<std::vector<std::optional<std::size_t>>> out(
        grid.size(), std::vector<std::optional<std::size_t>>(lines.size()));
    for (std::size_t r = 0; r < lines.size(); ++r) {
        const auto& commits = lines[r].commits;
        // The answer for T is the first walk index whose running minimum of committer times is
        // <= T; that index only grows as T falls, so one sweep serves the whole (sorted) grid.
        std::size_t i = 0;
        util::UnixSeconds running_min = commits.empty() ? 0 : commits[0].time;
        for (std::size_t g = grid.size(); g-- > 0;) {
            const auto t = grid[g];
            while (i < commits.size() && running_min > t) {
                ++i;
                if (i < commits.size())
                    running_min = std::min(running_min, commits[i].time);
            }
            if (i < commits.size())
                out[g][r] = i;
        }
    }
    return out;
}

std::vector<SourceState> resolve_states(const std::vector<RepoLine>& lines,
                                        const std::vector<util::UnixSeconds>& grid) {
    if (!std::is_sorted(grid.begin(), grid.end()))
        throw_usage("time grid: expected ascending times");
    auto idx = resolve_indices(lines, grid);
    std::vector<SourceState> states;
    states.reserve(grid.size());
    for (std::size_t g = 0; g < grid.size(); ++g) {
        SourceState s;
        s.time = grid[g];
        for (std::size_t r = 0; r < lines.size(); ++r) {
            if (!idx[g][r])
                throw_usage("repo '" + lines[r].name + "' has no commit at or before " +
                            util::format_iso8601(grid[g]) +
                            " on its ref: expected history reaching back to --from");
            const auto& c = lines[r].commits[*idx[g][r]];
            s.commits[lines[r].name] = c.sha;
            s.times[lines[r].name] = c.time;
            if (!states.empty() && states.back().commits[lines[r].name] != c.sha)
                s.changed.push_back(lines[r].name);
        }
        s.duplicate = !states.empty() && s.changed.empty();
        states.push_back(std::move(s));
    }
    return states;
}

namespace {

std::size_t chain_index(const RepoLine& line, const std::string& sha, const char* what) {
    for (std::size_t i = 0; i < line.commits.size(); ++i)
        if (line.commits[i].sha == sha)
            return i;
    throw_usage("repo '" + line.name + "': " + what + " commit " + sha +
                " is not on the first-parent main line of its ref");
}

} // namespace

std::vector<TimelineStep> merged_timeline(const std::vector<RepoLine>& lines,
                                          const std::map<std::string, std::string>& from,
                                          const std::map<std::string, std::string>& to) {
    // Per repo: the chain segment after `from` up to `to`, oldest first.
    std::vector<std::vector<const CommitInfo*>> segs(lines.size());
    for (std::size_t r = 0; r < lines.size(); ++r) {
        const auto& line = lines[r];
        auto f = from.find(line.name);
        auto t = to.find(line.name);
        if (f == from.end() || t == to.end())
            throw_usage("repo '" + line.name + "': no commit given for the window ends");
        const auto fi = chain_index(line, f->second, "last good");
        const auto ti = chain_index(line, t->second, "first bad");
        if (ti > fi)
            throw_usage("repo '" + line.name + "': first bad commit " + t->second +
                        " is older than last good commit " + f->second + " on the main line");
        for (std::size_t i = fi; i-- > ti;)
            segs[r].push_back(&line.commits[i]);
    }
    std::vector<TimelineStep> out;
    std::vector<std::size_t> pos(lines.size(), 0);
    for (;;) {
        std::optional<std::size_t> best;
        for (std::size_t r = 0; r < lines.size(); ++r) {
            if (pos[r] >= segs[r].size())
                continue;
            if (!best || segs[r][pos[r]]->time < segs[*best][pos[*best]]->time)
                best = r;
        }
        if (!best)
            break;
        out.push_back({lines[*best].name, *segs[*best][pos[*best]]});
        ++pos[*best];
    }
    return out;
}

std::vector<CommitInfo> commits_between(const RepoLine& line, const std::string& good,
                                        const std::string& bad) {
    std::unordered_map<std::string, const CommitInfo*> by_sha;
    for (const auto& c : line.commits)
        by_sha.emplace(c.sha, &c);
    auto reach = [&](const std::string& start) {
        std::unordered_set<std::string> seen;
        std::vector<std::string> stack{start};
        while (!stack.empty()) {
            auto s = stack.back();
            stack.pop_back();
            if (!seen.insert(s).second)
                continue;
            auto it = by_sha.find(s);
            if (it == by_sha.end())
                continue;
            for (const auto& p : it->second->parents)
                if (by_sha.count(p))
                    stack.push_back(p);
        }
        return seen;
    };
    const auto from_bad = reach(bad);
    const auto from_good = reach(good);
    std::vector<CommitInfo> out;
    for (const auto& c : line.commits)
        if (from_bad.count(c.sha) && !from_good.count(c.sha))
            out.push_back(c);
    return out;
}

std::string compare_url(const std::string& remote_url, const std::string& a, const std::string& b) {
    std::string path;
    for (const std::string prefix :
         {"https://github.com/", "http://github.com/", "ssh://git@github.com/",
          "git@github.com:", "git://github.com/", "https://www.github.com/"}) {
        if (remote_url.rfind(prefix, 0) == 0) {
            path = remote_url.substr(prefix.size());
            break;
        }
    }
    if (path.empty())
        return "";
    while (!path.empty() && path.back() == '/')
        path.pop_back();
    if (path.size() > 4 && path.compare(path.size() - 4, 4, ".git") == 0)
        path.resize(path.size() - 4);
    const auto slash = path.find('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 >= path.size() ||
        path.find('/', slash + 1) != std::string::npos)
        return "";
    return "https://github.com/" + path + "/compare/" + a + "..." + b;
}

} // namespace perfsweep::core
