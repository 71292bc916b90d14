// Benchmark: resolve 75 hourly source states for a pair of large repos.
// Generates two repos of >= 35,000 commits each with `git fast-import` (merges of side-branch
// commits committed 3 hours before their merge), puts the window ~30,000 main-line commits below
// the tip (a window in the past, as in a real triage), then times perfsweep (libgit2 first-parent
// walk + one-pass core::resolve_states) against a loop of
// `git rev-list -1 --first-parent --before=T main` calls, checks both agree, and prints the ratio.

#include "adapters/git/libgit2_repo.hpp"
#include "core/source_states.hpp"
#include "util/time.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

extern char** environ;

namespace {

namespace fs = std::filesystem;
using perfsweep::util::UnixSeconds;

constexpr int k_commits = 35000;           // main-line commits per repo (plus side commits)
constexpr UnixSeconds k_base = 1640995200; // 2022-01-01T00:00:00Z
constexpr int k_spacing = 150;             // seconds between main-line commits
constexpr int k_window_from_tip = 30000;   // main-line commits between the window and the tip

/// Run argv, return stdout (throws on failure). `input_file` feeds stdin when not empty.
std::string run(const std::vector<std::string>& argv, const std::string& input_file = "") {
    int out[2];
    if (pipe(out) != 0)
        throw std::runtime_error("pipe");
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_addclose(&fa, out[0]);
    if (!input_file.empty())
        posix_spawn_file_actions_addopen(&fa, 0, input_file.c_str(), O_RDONLY, 0);
    std::vector<char*> args;
    for (const auto& a : argv)
        args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid;
    if (posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ) != 0)
        throw std::runtime_error("cannot start " + argv[0]);
    posix_spawn_file_actions_destroy(&fa);
    close(out[1]);
    std::string s;
    char buf[4096];
    ssize_t n;
    while ((n = read(out[0], buf, sizeof buf)) > 0)
        s.append(buf, static_cast<size_t>(n));
    close(out[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        throw std::runtime_error(argv[0] + " " + argv[1] + " failed");
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r'))
        s.pop_back();
    return s;
}

void data(std::ofstream& f, const std::string& s) {
    f << "data " << s.size() << "\n" << s << "\n";
}

/// Generate one repo: main commits every k_spacing s; every 5th is a merge of a side commit
/// committed 3 hours earlier. `salt` makes the two repos differ.
void generate(const std::string& dir, int salt) {
    fs::create_directories(dir);
    run({"git", "init", "-q", "-b", "main", dir});
    const std::string stream = dir + ".fi";
    {
        std::ofstream f(stream);
        int mark = 0;
        int main_mark = 0;
        for (int i = 0; i < k_commits; ++i) {
            const UnixSeconds t = k_base + static_cast<UnixSeconds>(i) * k_spacing + salt * 37;
            int side_mark = 0;
            if (i > 0 && i % 5 == 0) {
                side_mark = ++mark;
                f << "commit refs/heads/side\nmark :" << side_mark << "\n";
                f << "committer Dev <dev@example.com> " << t - 3 * 3600 << " +0000\n";
                data(f, "side " + std::to_string(i));
                f << "from :" << main_mark << "\n";
                f << "M 100644 inline side.txt\n";
                data(f, std::to_string(i));
            }
            const int m = ++mark;
            f << "commit refs/heads/main\nmark :" << m << "\n";
            f << "committer Dev <dev@example.com> " << t << " +0000\n";
            data(f, "main " + std::to_string(i));
            if (main_mark)
                f << "from :" << main_mark << "\n";
            if (side_mark)
                f << "merge :" << side_mark << "\n";
            f << "M 100644 inline main.txt\n";
            data(f, std::to_string(i * 7 + salt));
            main_mark = m;
        }
    }
    run({"git", "-C", dir, "fast-import", "--quiet"}, stream);
    fs::remove(stream);
}

/// CPU seconds (user + system) of this process or of its waited-for children.
double cpu_seconds(int who) {
    rusage u{};
    getrusage(who, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

int main(int argc, char** argv) {
    const bool ours_only = argc > 1 && std::string(argv[1]) == "--ours-only"; // quick iteration
    using namespace perfsweep;
    adapters::ensure_libgit2();
    const fs::path root =
        fs::temp_directory_path() / ("perfsweep-bench-git-" + std::to_string(getpid()));
    const std::vector<std::string> names{"jax", "xla"};
    std::printf("generating 2 repos x %d main-line commits (+%d merged side commits) ...\n",
                k_commits, k_commits / 5);
    for (std::size_t r = 0; r < names.size(); ++r)
        generate((root / names[r]).string(), static_cast<int>(r));
    std::printf("commits per repo: %s\n",
                run({"git", "-C", (root / "jax").string(), "rev-list", "--count", "main"}).c_str());

    const UnixSeconds from =
        k_base + static_cast<UnixSeconds>(k_commits - k_window_from_tip) * k_spacing;
    const UnixSeconds to = from + 74 * 3600;
    const auto grid = core::make_grid(from, to, 3600);

    // perfsweep: open, one first-parent walk per repo, one pass over the grid.
    std::vector<double> ours_times, ours_cpu;
    std::vector<core::SourceState> states;
    for (int rep = 0; rep < 5; ++rep) {
        const auto t0 = std::chrono::steady_clock::now();
        const double c0 = cpu_seconds(RUSAGE_SELF);
        std::vector<core::RepoLine> lines;
        for (const auto& n : names) {
            auto repo = adapters::open_libgit2_repo(n, (root / n).string());
            lines.push_back({n, repo->first_parent_history("main", from)});
        }
        states = core::resolve_states(lines, grid);
        ours_times.push_back(seconds_since(t0));
        ours_cpu.push_back(cpu_seconds(RUSAGE_SELF) - c0);
    }
    std::sort(ours_times.begin(), ours_times.end());
    std::sort(ours_cpu.begin(), ours_cpu.end());
    const double ours = ours_times[ours_times.size() / 2];
    const double ours_c = ours_cpu[ours_cpu.size() / 2];

    // git: one rev-list per point per repo.
    const auto t0 = std::chrono::steady_clock::now();
    const double gc0 = cpu_seconds(RUSAGE_CHILDREN);
    int mismatches = 0;
    for (std::size_t g = 0; g < grid.size() && !ours_only; ++g)
        for (const auto& n : names) {
            const auto sha = run({"git", "-C", (root / n).string(), "rev-list", "-1",
                                  "--first-parent", "--before=" + std::to_string(grid[g]), "main"});
            if (sha != states[g].commits.at(n))
                ++mismatches;
        }
    const double git_s = seconds_since(t0);
    const double git_c = cpu_seconds(RUSAGE_CHILDREN) - gc0;

    std::size_t distinct = 0;
    for (const auto& s : states)
        distinct += s.duplicate ? 0 : 1;
    std::printf("states: %zu hourly points (%zu distinct), window %s .. %s, %d commits below the "
                "tip\n",
                grid.size(), distinct, util::format_iso8601(from).c_str(),
                util::format_iso8601(to).c_str(), k_window_from_tip);
    std::printf("perfsweep (libgit2 walk + one-pass resolve, median of 5): %.1f ms wall, %.1f ms "
                "CPU\n",
                ours * 1e3, ours_c * 1e3);
    std::printf("git rev-list -1 --first-parent --before loop (%zu calls): %.1f ms wall, %.1f ms "
                "CPU\n",
                grid.size() * names.size(), git_s * 1e3, git_c * 1e3);
    std::printf("ratio: %.1fx faster (wall), %.1fx (CPU); results identical: %s\n", git_s / ours,
                git_c / ours_c, mismatches == 0 ? "yes" : "NO");
    fs::remove_all(root);
    return mismatches == 0 ? 0 : 1;
}
