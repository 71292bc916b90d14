// `perfsweep import` is all or nothing under SIGKILL and idempotent: the real binary imports a
// large CSV into a JSON Lines history and into a git-branch history (git+file://) and is killed
// again and again, at crash points inside the append and by external SIGKILLs after seeded
// delays. After every kill the stored history must hold the old records unchanged and either
// none or all of the batch, every line whole; the import is then re-run until it completes, and
// once more: the re-run appends nothing (no record twice).

#include "adapters/history/jsonl_store.hpp"
#include "support/child_exec.hpp"
#include "support/figures.hpp"
#include "support/temp_dir.hpp"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace perfsweep;
using namespace perfsweep::test;

namespace {

struct Ended {
    bool killed = false;
    int exit_code = -1;
    std::string out, err;
};

/// Run perfsweep with `args`; SIGKILL it after `kill_after_ms` (< 0: never) unless it ends first;
/// `crash` sets PERFSWEEP_CRASH_AT.
Ended run_killed(const TempDir& dir, const std::vector<std::string>& args, const std::string& crash,
                 int kill_after_ms) {
    const auto out_path = dir.file("last.out"), err_path = dir.file("last.err");
    const int o = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    const int e = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    REQUIRE(o >= 0);
    REQUIRE(e >= 0);
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        ::dup2(o, 1);
        ::dup2(e, 2);
        if (crash.empty())
            ::unsetenv("PERFSWEEP_CRASH_AT");
        else
            ::setenv("PERFSWEEP_CRASH_AT", crash.c_str(), 1);
        exec_perfsweep(args);
    }
    ::close(o);
    ::close(e);
    int status = 0;
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(std::max(kill_after_ms, 0));
    while (::waitpid(pid, &status, WNOHANG) == 0) {
        if (kill_after_ms >= 0 && std::chrono::steady_clock::now() >= deadline) {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &status, 0);
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    Ended r;
    r.killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = read_file(out_path);
    r.err = read_file(err_path);
    return r;
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start < text.size()) {
        auto end = text.find('\n', start);
        if (end == std::string::npos) {
            out.push_back(text.substr(start)); // unterminated: a torn line
            break;
        }
        out.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return out;
}

struct Tally {
    int kills = 0;
    int partial = 0;    ///< a kill left some but not all of the batch
    int torn = 0;       ///< a line that is not a whole record
    int lost = 0;       ///< an old record changed or gone
    int duplicates = 0; ///< a label stored twice at the end
    int reimport_appended = 0;
};

/// A history store under test: its --history spec and how to read its stored text.
struct Store {
    std::string spec;
    std::function<std::string()> read;
};

/// Writes batch `k` (`rows` rows, labels "bK-row-I") and returns its path.
std::string write_batch(const TempDir& dir, int k, std::size_t rows) {
    std::string csv = "label,value\n";
    for (std::size_t i = 0; i < rows; ++i)
        csv += "b" + std::to_string(k) + "-row-" + std::to_string(i) + "," +
               std::to_string(400 + i % 97) + ".5\n";
    const auto path = dir.file("batch-" + std::to_string(k) + ".csv");
    write_file(path, csv);
    return path;
}

std::vector<std::string> import_args(const Store& s, const std::vector<std::string>& files) {
    std::vector<std::string> a = {"import", "--history", s.spec, "--metric", "MLUPS"};
    a.insert(a.end(), files.begin(), files.end());
    return a;
}

/// Kill `kills` imports of fresh batches into `store` (at `crash_points` in turn on even runs,
/// external SIGKILLs on odd ones, or all external when there are none), checking all-or-nothing
/// after each; then import every batch to completion, re-import, and check no record is there
/// twice. `scratch` is a second, empty store of the same kind to time an import on.
void campaign(const TempDir& dir, const Store& store, const Store& scratch, std::size_t rows,
              int kills, const std::vector<std::string>& crash_points, std::mt19937& rng,
              Tally& t) {
    write_file(dir.file("old.csv"), "label,value\nold-1,500\nold-2,501\nold-3,502\n");
    const auto first = run_killed(dir, import_args(store, {dir.file("old.csv")}), "", -1);
    INFO(first.err);
    REQUIRE(first.exit_code == 0);
    const auto old = lines_of(store.read());
    REQUIRE(old.size() == 3);

    // How long one import takes (on the scratch store): external kills land within it.
    std::vector<std::string> batches = {write_batch(dir, 0, rows)};
    const auto t0 = std::chrono::steady_clock::now();
    REQUIRE(run_killed(dir, import_args(scratch, {batches[0]}), "", -1).exit_code == 0);
    const int took_ms = static_cast<int>(
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0)
            .count());

    auto check = [&](const std::string& when) {
        const auto now = lines_of(store.read());
        INFO(when);
        bool old_ok = now.size() >= old.size();
        for (std::size_t i = 0; old_ok && i < old.size(); ++i)
            old_ok = now[i] == old[i];
        t.lost += old_ok ? 0 : 1;
        CHECK(old_ok);
        std::map<std::string, std::size_t> per_batch;
        for (std::size_t i = old.size(); i < now.size(); ++i) {
            const bool whole = !now[i].empty() && now[i].front() == '{' && now[i].back() == '}';
            t.torn += whole ? 0 : 1;
            CHECK(whole);
            const auto at = now[i].find("\"label\":\"b");
            if (at != std::string::npos)
                ++per_batch[now[i].substr(at + 9, now[i].find('-', at) - at - 9)];
        }
        for (const auto& [batch, n] : per_batch) {
            INFO("batch " << batch << ": " << n << " of " << rows << " records");
            t.partial += n == rows ? 0 : 1;
            CHECK(n == rows);
        }
    };
    for (int k = 0; k < kills; ++k) {
        if (k > 0)
            batches.push_back(write_batch(dir, k, rows));
        std::string crash;
        int delay = -1;
        if (!crash_points.empty() && k % 2 == 0)
            crash = crash_points[static_cast<std::size_t>(k / 2) % crash_points.size()];
        else
            delay = std::uniform_int_distribution<int>(0, took_ms * 2)(rng);
        const auto r = run_killed(dir, import_args(store, {batches.back()}), crash, delay);
        if (r.killed)
            ++t.kills;
        else {
            INFO(r.err);
            CHECK(r.exit_code == 0);
        }
        check("after import " + std::to_string(k) + (crash.empty() ? "" : " crash " + crash) +
              " delay " + std::to_string(delay) + " ms");
    }
    // Every batch to completion in one import, then the same import again: it appends nothing.
    const auto done = run_killed(dir, import_args(store, batches), "", -1);
    INFO(done.err);
    REQUIRE(done.exit_code == 0);
    const auto again = run_killed(dir, import_args(store, batches), "", -1);
    INFO(again.err);
    REQUIRE(again.exit_code == 0);
    const std::string total = std::to_string(rows * batches.size());
    const bool nothing = again.out.find("imported 0 measurements") != std::string::npos &&
                         again.out.find("(" + total + " already there)") != std::string::npos;
    t.reimport_appended += nothing ? 0 : 1;
    CHECK(nothing);
    check("after the re-import");
    std::map<std::string, int> labels;
    for (const auto& line : lines_of(store.read())) {
        const auto at = line.find("\"label\":\"");
        if (at != std::string::npos)
            ++labels[line.substr(at + 9, line.find('"', at + 9) - at - 9)];
    }
    CHECK(labels.size() == rows * batches.size() + old.size());
    for (const auto& [label, n] : labels)
        t.duplicates += n > 1 ? n - 1 : 0;
}

} // namespace

TEST_CASE("import: all or nothing under SIGKILL, and a re-import appends nothing",
          "[suites][import-atomic]") {
    const int scale = suite_scale();
    const std::size_t rows = 5000 * static_cast<std::size_t>(scale);
    std::mt19937 rng(20261203);
    Tally t;
    {
        TempDir dir("perfsweep-import-jsonl");
        const auto path = dir.file("history.jsonl"), scratch = dir.file("scratch.jsonl");
        // What the history holds is what its readers see: an append cut short by the kill is
        // past the committed size its marker records (and gone after the next append).
        campaign(dir, {path, [&] { return adapters::read_history_text(path); }},
                 {scratch, [&] { return adapters::read_history_text(scratch); }}, rows, 10 * scale,
                 {"history.mid_append:1", "history.before_fsync:1", "history.before_commit:1"}, rng,
                 t);
        // The appends that completed after the kills removed every byte of the cut ones.
        CHECK(read_file(path) == adapters::read_history_text(path));
        CHECK_FALSE(std::filesystem::exists(path + ".perfsweep-pending"));
    }
    {
        TempDir dir("perfsweep-import-git");
        auto bare = [&](const std::string& name) -> Store {
            const auto repo = dir.file(name);
            REQUIRE(run_command({"git", "init", "-q", "--bare", repo}).exit_code == 0);
            return {"git+file://" + repo + "#perfsweep-data", [repo] {
                        const auto r = run_command(
                            {"git", "-C", repo, "show", "perfsweep-data:history.jsonl"});
                        return r.exit_code == 0 ? r.out : std::string();
                    }};
        };
        campaign(dir, bare("data.git"), bare("scratch.git"), rows / 2, 6 * scale, {}, rng, t);
    }
    CHECK(t.partial == 0);
    CHECK(t.torn == 0);
    CHECK(t.lost == 0);
    CHECK(t.duplicates == 0);
    CHECK(t.reimport_appended == 0);
    report_figure("import-atomic",
                  {{"stores", "jsonl,git-branch"},
                   {"rows_per_batch", std::to_string(rows)},
                   {"kills", std::to_string(t.kills)},
                   {"partial", std::to_string(t.partial)},
                   {"torn", std::to_string(t.torn)},
                   {"lost", std::to_string(t.lost)},
                   {"duplicates", std::to_string(t.duplicates)},
                   {"reimports_that_appended", std::to_string(t.reimport_appended)}});
}
