#include "adapters/history/git_branch_store.hpp"
#include "support/git_history.hpp"
#include "support/temp_dir.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

using namespace perfsweep;
using namespace perfsweep::test;

namespace {
std::atomic<int> g_fsyncs{0};
} // namespace

// Every fsync(2) of this test binary, libgit2's included (the executable's definition interposes
// libc's for the shared libraries), is counted and then made as before.
extern "C" int fsync(int fd) {
    ++g_fsyncs;
    return static_cast<int>(::syscall(SYS_fsync, fd));
}

namespace {

core::Measurement rec(const std::string& writer, int i) {
    core::Measurement m;
    m.benchmark = "bench";
    m.metric = "MLUPS";
    m.values = {500.0 + i};
    m.label = writer + "-" + std::to_string(i);
    m.timestamp = "2023-08-24T00:00:00Z";
    return m;
}

std::string make_bare(const TempDir& dir) {
    const std::string path = dir.file("data.git");
    REQUIRE(run_command({"git", "init", "-q", "--bare", path}).exit_code == 0);
    return path;
}

adapters::GitBranchStore open_store(const std::string& spec, const std::string& cache) {
    adapters::GitStoreOptions opt;
    opt.cache_dir = cache;
    opt.max_attempts = 200;
    return adapters::GitBranchStore(adapters::parse_git_history_spec(spec, "."), opt);
}

/// Run `write(writer)` for writers "A" and "B" in two child processes at once; each must exit 0
/// (an exception is printed and fails it).
void run_writers(const std::function<void(const std::string&)>& write) {
    std::vector<pid_t> kids;
    for (const std::string writer : {"A", "B"}) {
        const pid_t pid = fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            int code = 0;
            try {
                write(writer);
            } catch (const std::exception& e) {
                std::fprintf(stderr, "writer %s: %s\n", writer.c_str(), e.what());
                code = 1;
            }
            _exit(code);
        }
        kids.push_back(pid);
    }
    for (pid_t pid : kids) {
        int status = 0;
        REQUIRE(waitpid(pid, &status, 0) == pid);
        CHECK(WIFEXITED(status));
        CHECK(WEXITSTATUS(status) == 0);
    }
}

} // namespace

TEST_CASE("git history specs are parsed and bad ones rejected with the spec named",
          "[git_history]") {
    CHECK(adapters::is_git_history_spec("git:perfsweep-data"));
    CHECK(adapters::is_git_history_spec("git+https://github.com/o/r.git#data"));
    CHECK_FALSE(adapters::is_git_history_spec("history.jsonl"));
    auto s = adapters::parse_git_history_spec("git+file:///tmp/x.git#perfsweep-data", "/w");
    CHECK(s.repo_path == "/tmp/x.git");
    CHECK(s.branch == "perfsweep-data");
    s = adapters::parse_git_history_spec("git:data", "/w");
    CHECK(s.repo_path == "/w");
    CHECK(s.remote_url.empty());
    CHECK_THROWS_WITH(adapters::parse_git_history_spec("git+https://x:secret@h/r.git", "."),
                      Catch::Contains("expected git+URL#BRANCH") && !Catch::Contains("secret"));
    CHECK_THROWS_WITH(adapters::parse_git_history_spec("git:bad..name", "."),
                      Catch::Contains("not a valid branch name"));
    CHECK_THROWS_WITH(adapters::parse_git_history_spec("git+ssh://h/r#b", "."),
                      Catch::Contains("expected a git+https://"));
}

TEST_CASE("git:BRANCH appends commits to the current repo without touching its worktree",
          "[git_history]") {
    TempDir dir;
    const std::string repo = dir.file("work");
    REQUIRE(run_command({"git", "init", "-q", repo}).exit_code == 0);
    write_file(repo + "/README", "user file\n");
    adapters::GitStoreOptions opt;
    adapters::GitBranchStore store(adapters::parse_git_history_spec("git:perfsweep-data", repo),
                                   opt);
    CHECK(store.load().records.empty());
    store.append({rec("a", 1), rec("a", 2)});
    store.append({rec("a", 3)});
    const auto load = store.load();
    REQUIRE(load.records.size() == 3);
    CHECK(load.records[2].label == "a-3");
    CHECK(store.describe() == "git:perfsweep-data");
    // Two commits on the branch, the file is in the branch, the worktree and index are untouched.
    auto log = run_command({"git", "-C", repo, "log", "--format=%s", "perfsweep-data"});
    CHECK(log.out == "perfsweep: append 1 record\nperfsweep: append 2 records\n");
    auto show = run_command({"git", "-C", repo, "show", "perfsweep-data:history.jsonl"});
    CHECK(std::count(show.out.begin(), show.out.end(), '\n') == 3);
    auto status = run_command({"git", "-C", repo, "status", "--porcelain"});
    CHECK(status.out == "?? README\n");
}

TEST_CASE("a malformed line in the branch is a warning naming the line, not a lost history",
          "[git_history]") {
    TempDir dir;
    const std::string bare = make_bare(dir);
    auto store = open_store("git+file://" + bare + "#perfsweep-data", dir.file("cache"));
    store.append({rec("a", 1)});
    // Someone commits a broken line with plain git.
    const std::string wt = dir.file("wt");
    REQUIRE(run_command({"git", "clone", "-q", "-b", "perfsweep-data", bare, wt}).exit_code == 0);
    write_file(wt + "/history.jsonl", read_file(wt + "/history.jsonl") + "{not json\n");
    REQUIRE(run_command({"git", "-C", wt, "-c", "user.name=t", "-c", "user.email=t@t", "commit",
                         "-qam", "x"})
                .exit_code == 0);
    REQUIRE(run_command({"git", "-C", wt, "push", "-q", "origin", "perfsweep-data"}).exit_code ==
            0);
    store.append({rec("a", 2)});
    const auto load = store.load();
    CHECK(load.records.size() == 2);
    REQUIRE(load.warnings.size() == 1);
    CHECK(load.warnings[0].find("history.jsonl:2") != std::string::npos);
}

TEST_CASE("two processes appending to one history branch at once lose nothing",
          "[git_history][concurrency]") {
    TempDir dir;
    const std::string bare = make_bare(dir);
    const std::string spec = "git+file://" + bare + "#perfsweep-data";
    run_writers([&](const std::string& writer) {
        auto store = open_store(spec, dir.file("cache-" + writer));
        for (int i = 0; i < 50; ++i)
            store.append({rec(writer, i)});
    });
    auto store = open_store(spec, dir.file("cache-reader"));
    const auto load = store.load();
    REQUIRE(load.records.size() == 100);
    std::map<std::string, int> next;
    for (const auto& m : load.records) {
        const std::string w = m.label.substr(0, 1);
        CHECK(m.label == w + "-" + std::to_string(next[w]));
        ++next[w];
    }
    CHECK(next["A"] == 50);
    CHECK(next["B"] == 50);
    // History was only appended: a linear chain of 100 commits, never rewritten.
    auto count = run_command({"git", "-C", bare, "rev-list", "--count", "perfsweep-data"});
    CHECK(count.out == "100\n");
}

TEST_CASE("the fetch/commit/push path (private bare cache) keeps every writer's records",
          "[git_history]") {
    // A spec with a remote URL and no repo path takes the network path (cache, fetch, push with
    // libgit2's transport); a file:// URL lets the test drive it without a server.
    TempDir dir;
    const std::string bare = make_bare(dir);
    const std::string url = "file://" + bare;
    auto a = test::remote_history(url, "perfsweep-data", dir.file("cache-a"), "tok-secret");
    auto b = test::remote_history(url, "perfsweep-data", dir.file("cache-b"), "tok-secret");
    CHECK(a.load().records.empty()); // the branch does not exist yet
    for (int i = 0; i < 5; ++i) {
        a.append({rec("A", i)});
        b.append({rec("B", i)});
    }
    const auto load = a.load();
    REQUIRE(load.records.size() == 10);
    CHECK(load.records[0].label == "A-0");
    CHECK(load.records[9].label == "B-4");
    CHECK(run_command({"git", "-C", bare, "rev-list", "--count", "perfsweep-data"}).out == "10\n");
    CHECK(a.describe().find("tok-secret") == std::string::npos);
}

namespace {

/// A free loopback TCP port (bound and released; a tiny race is acceptable in tests).
int free_port() {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    socklen_t len = sizeof a;
    getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    const int port = ntohs(a.sin_port);
    close(fd);
    return port;
}

} // namespace

TEST_CASE("two processes pushing through a real git server: rejected pushes are re-applied",
          "[git_history][concurrency]") {
    // `git daemon` with receive-pack is a real git server that refuses non-fast-forward pushes,
    // like GitHub; the store takes its network path (cache, fetch, push, retry on rejection).
    if (run_command({"git", "daemon", "--help"}).exit_code != 0 &&
        run_command({"sh", "-c", "test -x \"$(git --exec-path)/git-daemon\""}).exit_code != 0) {
        WARN("git daemon is not available: skipping");
        return;
    }
    TempDir dir;
    const std::string bare = make_bare(dir);
    REQUIRE(run_command({"git", "-C", bare, "config", "receive.denyNonFastForwards", "true"})
                .exit_code == 0);
    const int port = free_port();
    const pid_t daemon = fork();
    REQUIRE(daemon >= 0);
    if (daemon == 0) {
        const std::string base = "--base-path=" + dir.path().string();
        const std::string port_arg = "--port=" + std::to_string(port);
        execlp("git", "git", "daemon", "--export-all", "--enable=receive-pack",
               "--listen=127.0.0.1", port_arg.c_str(), "--reuseaddr", base.c_str(),
               dir.path().c_str(), static_cast<char*>(nullptr));
        _exit(127);
    }
    struct Stop {
        pid_t pid;
        ~Stop() {
            kill(pid, SIGTERM);
            waitpid(pid, nullptr, 0);
        }
    } stop{daemon};
    const std::string url = "git://127.0.0.1:" + std::to_string(port) + "/data.git";
    for (int i = 0; i < 100 && run_command({"git", "ls-remote", url}).exit_code != 0; ++i)
        usleep(50000);

    adapters::GitHistorySpec spec;
    spec.branch = "perfsweep-data";
    spec.remote_url = url;
    run_writers([&](const std::string& writer) {
        adapters::GitStoreOptions opt;
        opt.cache_dir = dir.file("cache-" + writer);
        opt.max_attempts = 200;
        adapters::GitBranchStore store(spec, opt);
        for (int i = 0; i < 15; ++i)
            store.append({rec(writer, i)});
        write_file(dir.file("reapplied-" + writer), std::to_string(store.reapplied()));
    });
    adapters::GitStoreOptions opt;
    opt.cache_dir = dir.file("cache-reader");
    adapters::GitBranchStore reader(spec, opt);
    const auto load = reader.load();
    REQUIRE(load.records.size() == 30);
    std::map<std::string, int> next;
    for (const auto& m : load.records) {
        const std::string w = m.label.substr(0, 1);
        CHECK(m.label == w + "-" + std::to_string(next[w]));
        ++next[w];
    }
    CHECK(run_command({"git", "-C", bare, "rev-list", "--count", "perfsweep-data"}).out == "30\n");
    const int reapplied = std::stoi(read_file(dir.file("reapplied-A"))) +
                          std::stoi(read_file(dir.file("reapplied-B")));
    // Usually > 0; 0 only if the scheduler happened to serialise the writers completely.
    WARN("pushes rejected and re-applied: " << reapplied);
}

namespace {

/// Read one byte from `fd` (retrying on EINTR); false on end of file or error.
bool read_byte(int fd) {
    char c;
    for (;;) {
        const auto n = read(fd, &c, 1);
        if (n == 1)
            return true;
        if (n == 0 || errno != EINTR)
            return false;
    }
}

/// Write one byte to `fd`; false on error.
bool write_byte(int fd) {
    const char c = '.';
    return write(fd, &c, 1) == 1;
}

} // namespace

TEST_CASE("two writers racing to create the history branch both keep their record",
          "[git_history][concurrency]") {
    // Regression: both writers found no branch and both "created" it; the second overwrote the
    // first one's root commit (git_reference_create with force=0 checks that the ref is absent
    // before it takes the ref's lock). Two writer processes race the first append on a new branch
    // per round: each reads the (absent) tip and builds its commit, then (test hook) reports
    // ready and waits; the parent releases both swaps at once.
    TempDir dir;
    const std::string bare = make_bare(dir);
    const int rounds = 200;
    auto spec_of = [&](int round) {
        return "git+file://" + bare + "#race-" + std::to_string(round);
    };
    struct Writer {
        pid_t pid = -1;
        int ready = -1; ///< parent reads: commit built (hook reached), then append done
        int go = -1;    ///< parent writes: swap now
    };
    std::vector<Writer> writers;
    for (const std::string name : {"A", "B"}) {
        int ready[2], go[2];
        REQUIRE(pipe(ready) == 0);
        REQUIRE(pipe(go) == 0);
        const pid_t pid = fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            close(ready[0]);
            close(go[1]);
            for (const auto& w : writers) { // the other writer's pipe ends
                close(w.ready);
                close(w.go);
            }
            int code = 0;
            try {
                // Held open so libgit2 stays initialised between the per-round stores.
                auto keep = open_store(spec_of(0), dir.file("cache-" + name));
                for (int round = 0; round < rounds && code == 0; ++round) {
                    adapters::GitStoreOptions opt;
                    opt.cache_dir = dir.file("cache-" + name);
                    opt.max_attempts = 200;
                    opt.before_swap = [&](int attempt) {
                        if (attempt == 1 && (!write_byte(ready[1]) || !read_byte(go[0])))
                            _exit(3);
                    };
                    adapters::GitBranchStore store(
                        adapters::parse_git_history_spec(spec_of(round), "."), opt);
                    store.append({rec(name, round)});
                    if (!write_byte(ready[1]))
                        code = 3;
                }
            } catch (const std::exception& e) {
                std::fprintf(stderr, "writer %s: %s\n", name.c_str(), e.what());
                code = 1;
            }
            _exit(code);
        }
        close(ready[1]);
        close(go[0]);
        writers.push_back({pid, ready[0], go[1]});
    }
    bool in_step = true;
    for (int round = 0; round < rounds && in_step; ++round) {
        for (const auto& w : writers) // both built their commits on the absent tip
            in_step = in_step && read_byte(w.ready);
        for (std::size_t k = 0; k < writers.size(); ++k) // release both (alternating order)
            in_step = in_step && write_byte(writers[(k + round) % 2].go);
        for (const auto& w : writers) // both appends returned
            in_step = in_step && read_byte(w.ready);
    }
    CHECK(in_step);
    for (const auto& w : writers) {
        close(w.ready);
        close(w.go);
        int status = 0;
        REQUIRE(waitpid(w.pid, &status, 0) == w.pid);
        CHECK(WIFEXITED(status));
        CHECK(WEXITSTATUS(status) == 0);
    }
    int lost_rounds = 0;
    auto keep = open_store(spec_of(0), dir.file("cache-reader"));
    for (int round = 0; round < rounds; ++round) {
        auto store = open_store(spec_of(round), dir.file("cache-reader"));
        const auto n = store.load().records.size();
        if (n != 2) {
            ++lost_rounds;
            WARN("round " << round << ": " << n << " of 2 records");
        }
    }
    CHECK(lost_rounds == 0);
    // Every branch holds two commits: nothing was overwritten.
    const auto counts =
        run_command({"sh", "-c",
                     "for r in $(git -C '" + bare +
                         "' for-each-ref --format='%(refname)' refs/heads/); do git -C '" + bare +
                         "' rev-list --count $r; done | sort | uniq -c | sed 's/^ *//'"});
    CHECK(counts.out == std::to_string(rounds) + " 2\n");
}

TEST_CASE("an append overtaken between its read and its swap re-applies only its records",
          "[git_history][concurrency]") {
    // Deterministic interleaving: writer A reads the tip and builds its commit, then (test hook)
    // writer B appends, then A swaps. A's swap must be refused, and A must re-read B's tip and
    // re-apply only its own record on it.
    TempDir dir;
    const std::string bare = make_bare(dir);
    const std::string spec = "git+file://" + bare + "#perfsweep-data";
    auto b = open_store(spec, dir.file("cache-b"));
    bool existing = false;
    SECTION("while the branch is being created") {}
    SECTION("on an existing branch") {
        existing = true;
        b.append({rec("X", 0)});
    }
    std::string b_tip;
    adapters::GitStoreOptions opt;
    opt.cache_dir = dir.file("cache-a");
    opt.before_swap = [&](int attempt) {
        if (attempt != 1)
            return;
        b.append({rec("B", 0)});
        b_tip = run_command({"git", "-C", bare, "rev-parse", "perfsweep-data"}).out;
    };
    adapters::GitBranchStore a(adapters::parse_git_history_spec(spec, "."), opt);
    a.append({rec("A", 0)});
    CHECK(a.reapplied() == 1);
    CHECK(b.reapplied() == 0);
    const auto load = a.load();
    std::vector<std::string> labels;
    for (const auto& m : load.records)
        labels.push_back(m.label);
    if (existing)
        CHECK(labels == std::vector<std::string>{"X-0", "B-0", "A-0"});
    else
        CHECK(labels == std::vector<std::string>{"B-0", "A-0"});
    // A's commit sits on B's: a linear chain, nothing rewritten.
    CHECK(run_command({"git", "-C", bare, "rev-parse", "perfsweep-data^"}).out == b_tip);
    CHECK(run_command({"git", "-C", bare, "rev-list", "--count", "perfsweep-data"}).out ==
          (existing ? "3\n" : "2\n"));
}

TEST_CASE("a held lock on the branch ref is waited out, a stale one fails with nothing written",
          "[git_history][concurrency]") {
    TempDir dir;
    const std::string bare = make_bare(dir);
    const std::string spec = "git+file://" + bare + "#perfsweep-data";
    auto first = open_store(spec, dir.file("cache-0"));
    first.append({rec("X", 0)});
    // Another writer is mid-swap: it holds refs/heads/perfsweep-data.lock (git and libgit2 both
    // take this lock to update the ref).
    const std::string lock = bare + "/refs/heads/perfsweep-data.lock";
    write_file(lock, "");
    adapters::GitStoreOptions opt;
    opt.cache_dir = dir.file("cache-a");
    opt.max_attempts = 3;
    SECTION("released before the next attempt") {
        opt.before_swap = [&](int attempt) {
            if (attempt == 2)
                std::remove(lock.c_str());
        };
        adapters::GitBranchStore a(adapters::parse_git_history_spec(spec, "."), opt);
        a.append({rec("A", 0)});
        CHECK(a.reapplied() == 1);
        CHECK(a.load().records.size() == 2);
    }
    SECTION("never released") {
        adapters::GitBranchStore a(adapters::parse_git_history_spec(spec, "."), opt);
        CHECK_THROWS_WITH(a.append({rec("A", 0)}),
                          Catch::Contains("gave up after 3 attempts") &&
                              Catch::Contains("holds the lock of refs/heads/perfsweep-data") &&
                              Catch::Contains("refs/heads/perfsweep-data.lock; remove it") &&
                              Catch::Contains("nothing was written"));
        CHECK(a.reapplied() == 3);
        std::remove(lock.c_str());
        CHECK(a.load().records.size() == 1);
        CHECK(run_command({"git", "-C", bare, "rev-list", "--count", "perfsweep-data"}).out ==
              "1\n");
    }
}

TEST_CASE("a git-branch append is durable: its objects and the ref are fsynced", "[git_history]") {
    TempDir dir;
    const std::string repo = dir.file("work");
    REQUIRE(run_command({"git", "init", "-q", repo}).exit_code == 0);
    adapters::GitStoreOptions opt;
    adapters::GitBranchStore store(adapters::parse_git_history_spec("git:perfsweep-data", repo),
                                   opt);
    const int before = g_fsyncs.load();
    store.append({rec("a", 1)});
    // Blob, tree and commit objects and the branch ref, each fsynced (libgit2's default: none).
    CHECK(g_fsyncs.load() - before >= 4);
    REQUIRE(store.load().records.size() == 1);
}
