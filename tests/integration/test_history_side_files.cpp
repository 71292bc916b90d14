// Files kept beside a history (investigation results, a published dashboard): next to a JSON
// Lines file, or committed into the git branch next to the history file, never touching the
// history itself, with the same path rules for both stores.
#include "adapters/history/git_branch_store.hpp"
#include "adapters/history/jsonl_store.hpp"
#include "support/git_history.hpp"
#include "support/temp_dir.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

using namespace perfsweep;

namespace {

core::Measurement side_record(int i) {
    core::Measurement m;
    m.benchmark = "bench";
    m.metric = "MLUPS";
    m.values = {500.0 + i};
    m.label = "2024-05-0" + std::to_string(i);
    m.timestamp = "2024-05-01T00:00:00Z";
    return m;
}

std::vector<std::string> side_paths(const std::vector<ports::SideFile>& files) {
    std::vector<std::string> out;
    for (const auto& f : files)
        out.push_back(f.path);
    return out;
}

/// The path rules every store applies.
void refuses_bad_paths(ports::HistoryStore& store) {
    for (const std::string bad : {"../escape.json", "/etc/x", "a//b", "a/./b",
                                  "investigations/x y.json", "", "history.jsonl"}) {
        INFO(bad);
        CHECK_THROWS_AS(store.write_beside({{bad, "x"}}), Error);
    }
    CHECK_THROWS_AS(store.read_beside(".."), Error);
}

} // namespace

TEST_CASE("a JSON Lines history keeps files in its own directory, beside the history file",
          "[adapters][history][side_files]") {
    test::TempDir dir;
    adapters::JsonlHistoryStore store(dir.file("data/history.jsonl"));
    store.append({side_record(1)});
    CHECK(store.read_beside("investigations").empty()); // no folder yet
    store.write_beside({{"investigations/b.json", "{\"b\":1}"}, {"investigations/a.json", "{}"}});
    store.write_beside({{"investigations/b.json", "{\"b\":2}"}, {"site/series/x.html", "<p>"}});
    CHECK(test::read_file(dir.file("data/investigations/b.json")) == "{\"b\":2}");
    CHECK(test::read_file(dir.file("data/site/series/x.html")) == "<p>");
    const auto kept = store.read_beside("investigations");
    CHECK(side_paths(kept) ==
          std::vector<std::string>{"investigations/a.json", "investigations/b.json"});
    CHECK(kept[1].content == "{\"b\":2}");
    // A write in progress (its temporary file) and a link are never read back.
    test::write_file(dir.file("data/investigations/c.json.tmp.123.456"), "half");
    std::filesystem::create_symlink("/etc/passwd", dir.file("data/investigations/d.json"));
    CHECK(side_paths(store.read_beside("investigations")).size() == 2);
    CHECK(store.load().records.size() == 1); // the history is untouched
    refuses_bad_paths(store);
}

TEST_CASE("a git-branch history commits files next to the history file in one commit",
          "[adapters][history][side_files][git_history]") {
    test::TempDir dir;
    const std::string repo = dir.file("work");
    REQUIRE(test::run_command({"git", "init", "-q", repo}).exit_code == 0);
    adapters::GitStoreOptions opt;
    adapters::GitBranchStore store(adapters::parse_git_history_spec("git:perfsweep-data", repo),
                                   opt);
    CHECK(store.read_beside("investigations").empty()); // no branch yet
    store.append({side_record(1)});
    store.write_beside({{"investigations/a.json", "{\"a\":1}"},
                        {"investigations/deep/b.json", "{\"b\":1}"},
                        {"site/index.html", "<html>"}});
    store.append({side_record(2)});
    store.write_beside({{"investigations/a.json", "{\"a\":2}"}});
    // The history file keeps every record; the side files sit beside it in the branch's tree.
    CHECK(store.load().records.size() == 2);
    auto ls =
        test::run_command({"git", "-C", repo, "ls-tree", "-r", "--name-only", "perfsweep-data"});
    CHECK(ls.out ==
          "history.jsonl\ninvestigations/a.json\ninvestigations/deep/b.json\nsite/index.html\n");
    auto log = test::run_command({"git", "-C", repo, "log", "--format=%s", "perfsweep-data"});
    CHECK(log.out == "perfsweep: write 1 file (investigations/a.json)\n"
                     "perfsweep: append 1 record\n"
                     "perfsweep: write 3 files (investigations/a.json, ...)\n"
                     "perfsweep: append 1 record\n");
    const auto kept = store.read_beside("investigations");
    CHECK(side_paths(kept) ==
          std::vector<std::string>{"investigations/a.json", "investigations/deep/b.json"});
    CHECK(kept[0].content == "{\"a\":2}");
    CHECK(store.read_beside("nothing-here").empty());
    // The worktree and index are not touched.
    CHECK(test::run_command({"git", "-C", repo, "status", "--porcelain"}).out.empty());
    refuses_bad_paths(store);
}

TEST_CASE("files beside a pushed history go through the remote like an append",
          "[adapters][history][side_files][git_history]") {
    test::TempDir dir;
    const std::string bare = dir.file("data.git");
    REQUIRE(test::run_command({"git", "init", "-q", "--bare", bare}).exit_code == 0);
    auto a = test::remote_history("file://" + bare, "gh-pages", dir.file("cache-a"));
    auto b = test::remote_history("file://" + bare, "gh-pages", dir.file("cache-b"));
    a.write_beside({{"index.html", "one"}});    // creates the branch
    b.write_beside({{"series/x.html", "two"}}); // on a's commit, fetched first
    a.write_beside({{"index.html", "three"}});
    CHECK(test::run_command({"git", "-C", bare, "show", "gh-pages:index.html"}).out == "three");
    CHECK(test::run_command({"git", "-C", bare, "show", "gh-pages:series/x.html"}).out == "two");
    CHECK(test::run_command({"git", "-C", bare, "rev-list", "--count", "gh-pages"}).out == "3\n");
    CHECK(side_paths(b.read_beside("series")) == std::vector<std::string>{"series/x.html"});
}
