#include "core/source_states.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

using namespace perfsweep;
using namespace perfsweep::core;

namespace {

CommitInfo c(const std::string& sha, util::UnixSeconds t, std::vector<std::string> parents = {}) {
    CommitInfo x;
    x.sha = sha;
    x.time = t;
    x.parents = std::move(parents);
    return x;
}

std::vector<std::string> shas(const std::vector<CommitInfo>& v) {
    std::vector<std::string> out;
    for (const auto& x : v)
        out.push_back(x.sha);
    return out;
}

} // namespace

TEST_CASE("grid runs from --from to --to and always ends at --to", "[core][states]") {
    CHECK(make_grid(0, 7200, 3600) == std::vector<util::UnixSeconds>{0, 3600, 7200});
    CHECK(make_grid(0, 5000, 3600) == std::vector<util::UnixSeconds>{0, 3600, 5000});
    CHECK(make_grid(10, 10, 3600) == std::vector<util::UnixSeconds>{10});
    // The points inside are whole steps of the UTC day, as the upstream method's hours: a window
    // from a nightly's newest commit at 13:06:09 runs 13:06:09, 14:00, 15:00, ... (not 14:06:09).
    const util::UnixSeconds day = 1692835200; // 2023-08-24T00:00:00Z
    const util::UnixSeconds at = day + 13 * 3600 + 6 * 60 + 9;
    CHECK(make_grid(at, day + 16 * 3600 + 30, 3600) ==
          std::vector<util::UnixSeconds>{at, day + 14 * 3600, day + 15 * 3600, day + 16 * 3600,
                                         day + 16 * 3600 + 30});
    CHECK(make_grid(at, day + 14 * 3600, 3600) ==
          std::vector<util::UnixSeconds>{at, day + 14 * 3600});
    CHECK(make_grid(at, day + 14 * 3600, 30 * 60) ==
          std::vector<util::UnixSeconds>{at, day + 13 * 3600 + 1800, day + 14 * 3600});
    CHECK(make_grid(-3599, 1, 3600) == std::vector<util::UnixSeconds>{-3599, 0, 1});
    CHECK_THROWS_AS(make_grid(10, 0, 3600), Error);
    CHECK_THROWS_AS(make_grid(0, 10, 0), Error);
}

TEST_CASE("grid refuses more points than the limit, naming the window and the step",
          "[core][states]") {
    // 2023 to 2033 every minute: 5.26 million points (4.2 GB and two minutes to plan before).
    const util::UnixSeconds from = 1672531200, to = 1988150400;
    try {
        make_grid(from, to, 60);
        FAIL("a 5-million-point grid was accepted");
    } catch (const Error& e) {
        const std::string m = e.what();
        CHECK(m.find("--from 2023-01-01T00:00:00Z --to 2033-01-01T00:00:00Z --step 1m") !=
              std::string::npos);
        CHECK(m.find("5260321 grid points, more than the limit of 50000") != std::string::npos);
    }
    CHECK(make_grid(0, (k_max_grid_points - 1) * 60, 60).size() ==
          static_cast<std::size_t>(k_max_grid_points));
    CHECK_THROWS_AS(make_grid(0, k_max_grid_points * 60, 60), Error);
    // A step larger than the window, and one near the largest integer, do not overflow.
    CHECK(make_grid(0, 10, std::int64_t{1} << 62) == std::vector<util::UnixSeconds>{0, 10});
}

TEST_CASE("states take the first commit in walk order at or before T, in one pass",
          "[core][states]") {
    // Walk order (newest first along first parents); c3 has a skewed, older committer time.
    RepoLine line{"jax", {c("c4", 400), c("c3", 150), c("c2", 200), c("c1", 100)}};
    const std::vector<util::UnixSeconds> grid{50, 100, 160, 199, 200, 399, 400, 1000};
    auto idx = resolve_indices({line}, grid);
    CHECK_FALSE(idx[0][0]); // nothing at 50
    CHECK(*idx[1][0] == 3); // c1 (c3 is newer than 100, c2 too)
    CHECK(*idx[2][0] == 1); // c3 at 150 comes first in walk order
    CHECK(*idx[3][0] == 1);
    CHECK(*idx[4][0] == 1); // c3 still first in walk order (150 <= 200)
    CHECK(*idx[6][0] == 0);
    CHECK(*idx[7][0] == 0);
    // Same as a naive scan per point.
    for (std::size_t g = 0; g < grid.size(); ++g) {
        std::optional<std::size_t> naive;
        for (std::size_t i = 0; i < line.commits.size() && !naive; ++i)
            if (line.commits[i].time <= grid[g])
                naive = i;
        CHECK(idx[g][0] == naive);
    }
}

TEST_CASE("states dedupe points where no repo changed and record which changed", "[core][states]") {
    RepoLine jax{"jax", {c("j2", 250), c("j1", 0)}};
    RepoLine xla{"xla", {c("x3", 320), c("x2", 150), c("x1", 0)}};
    auto states = resolve_states({jax, xla}, {100, 200, 300, 400});
    REQUIRE(states.size() == 4);
    CHECK(states[0].commits.at("jax") == "j1");
    CHECK(states[0].commits.at("xla") == "x1");
    CHECK_FALSE(states[0].duplicate);
    CHECK(states[1].changed == std::vector<std::string>{"xla"});
    CHECK(states[2].changed == std::vector<std::string>{"jax"});
    CHECK(states[3].changed == std::vector<std::string>{"xla"});
    auto dup = resolve_states({jax, xla}, {100, 120, 140});
    CHECK_FALSE(dup[0].duplicate);
    CHECK(dup[1].duplicate);
    CHECK(dup[2].duplicate);
    CHECK(dup[2].changed.empty());
    CHECK_THROWS_WITH(resolve_states({jax}, {-5}), Catch::Contains("jax"));
}

TEST_CASE("rev-list order takes the newest queued commit, equal dates first-in first-out",
          "[core][states]") {
    // m merges p (a PR commit, committed early) into main; main: m -> b -> a.
    std::vector<CommitInfo> all{c("a", 100), c("b", 300, {"a"}), c("p", 200, {"a"}),
                                c("m", 400, {"b", "p"})};
    CHECK(shas(rev_list_order(all, "m")) == std::vector<std::string>{"m", "b", "p", "a"});
    // Ties: parents queued in parent order behind equal dates.
    std::vector<CommitInfo> tie{c("r", 10), c("x", 50, {"r"}), c("y", 50, {"r"}),
                                c("t", 60, {"x", "y"})};
    CHECK(shas(rev_list_order(tie, "t")) == std::vector<std::string>{"t", "x", "y", "r"});
    CHECK(rev_list_order(tie, "nope").empty());
}

TEST_CASE("merged timeline moves one repo by one commit in time order", "[core][states]") {
    RepoLine jax{"jax", {c("j3", 500), c("j2", 300), c("j1", 100)}};
    RepoLine xla{"xla", {c("x3", 400), c("x2", 300), c("x1", 50)}};
    auto steps =
        merged_timeline({jax, xla}, {{"jax", "j1"}, {"xla", "x1"}}, {{"jax", "j3"}, {"xla", "x3"}});
    std::vector<std::string> got;
    for (const auto& s : steps)
        got.push_back(s.repo + ":" + s.commit.sha);
    CHECK(got == std::vector<std::string>{"jax:j2", "xla:x2", "xla:x3", "jax:j3"});
    CHECK_THROWS_WITH(merged_timeline({jax}, {{"jax", "j3"}}, {{"jax", "j1"}}),
                      Catch::Contains("older"));
    CHECK_THROWS_WITH(merged_timeline({jax}, {{"jax", "zz"}}, {{"jax", "j3"}}),
                      Catch::Contains("not on the first-parent"));
}

TEST_CASE("commits between two states are those reachable from bad but not good",
          "[core][states]") {
    RepoLine chain{"jax", {c("d", 4, {"c"}), c("c", 3, {"b", "pr"}), c("b", 2, {"a"}), c("a", 1)}};
    CHECK(shas(commits_between(chain, "b", "d")) == std::vector<std::string>{"d", "c"});
    CHECK(commits_between(chain, "d", "d").empty());
}

TEST_CASE("compare URLs come from GitHub remotes only", "[core][states]") {
    CHECK(compare_url("https://github.com/jax-ml/jax.git", "a1", "b2") ==
          "https://github.com/jax-ml/jax/compare/a1...b2");
    CHECK(compare_url("git@github.com:openxla/xla.git", "a", "b") ==
          "https://github.com/openxla/xla/compare/a...b");
    CHECK(compare_url("ssh://git@github.com/openxla/xla", "a", "b") ==
          "https://github.com/openxla/xla/compare/a...b");
    CHECK(compare_url("https://gitlab.com/x/y.git", "a", "b").empty());
    CHECK(compare_url("/tmp/repo", "a", "b").empty());
    CHECK(compare_url("https://github.com/onlyowner", "a", "b").empty());
}
