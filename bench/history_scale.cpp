// Benchmark: a JSON Lines history at scale. Writes a history of N points (1,000 series: 250
// benchmarks x 4 metrics, on 5 testbeds, one point a night each, records as `record` writes
// them), then times one `perfsweep record` (an append of one point), one `perfsweep detect` of
// one series and one `perfsweep detect` with no series chosen (every series), each as its own
// process, and prints wall time, CPU time (user + system: the machine may be shared) and peak
// RSS, whether issue 29's goals are met (record < 0.1 s and < 50 MB, detect of one series < 2 s
// and < 300 MB) and what detect of every series holds a point (streamed: no figure set). With
// a second binary (the old implementation, e.g. main's build) it runs the same commands on a
// copy of the same history and prints both side by side. The copy is fsynced before the
// commands run (an append's fsync would otherwise write the whole fresh copy).
//   bench_history_scale NEW_PERFSWEEP [OLD_PERFSWEEP|-] [POINTS...]   (default 100000 1000000)
// bench/history_scale.sh builds both binaries and runs it.

#include "adapters/json/measurement_json.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

struct Cost {
    double seconds = 0;
    double cpu = 0; ///< user + system seconds
    long rss_kib = 0;
    int exit_code = -1;
};

/// Run `argv` with stdout and stderr to /dev/null; wall time and the child's peak RSS.
Cost measure(const std::vector<std::string>& argv) {
    const auto t0 = std::chrono::steady_clock::now();
    const pid_t pid = ::fork();
    if (pid == 0) {
        std::FILE* null = std::fopen("/dev/null", "w");
        ::dup2(::fileno(null), 1);
        ::dup2(::fileno(null), 2);
        std::vector<char*> args;
        for (const auto& a : argv)
            args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        ::execv(args[0], args.data());
        ::_exit(127);
    }
    int status = 0;
    rusage u{};
    ::wait4(pid, &status, 0, &u);
    Cost c;
    c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    c.cpu = static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
            static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
    c.rss_kib = u.ru_maxrss;
    c.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return c;
}

/// A history of `points` records over 1,000 series, night by night.
void write_history(const std::string& path, long points) {
    std::ofstream out(path, std::ios::binary);
    const char* gpus[] = {"NVIDIA H100 80GB HBM3", "NVIDIA H200", "NVIDIA A100-SXM4-80GB",
                          "NVIDIA L40S", "NVIDIA GH200 480GB"};
    const char* metrics[] = {"MLUPS", "step_time", "tokens_per_s", "mem_gib"};
    const long series = 1000, nights = (points + series - 1) / series;
    long written = 0;
    for (long night = 0; night < nights && written < points; ++night) {
        char label[32];
        std::snprintf(label, sizeof label, "n%06ld", night);
        for (long s = 0; s < series && written < points; ++s, ++written) {
            perfsweep::core::Measurement m;
            m.benchmark = "bench-" + std::to_string(s / 4);
            m.metric = metrics[s % 4];
            m.unit = m.metric;
            m.label = label;
            m.timestamp = "2024-01-01T07:30:00Z";
            m.stage = perfsweep::core::Stage::record;
            m.values = {500.0 + static_cast<double>((night * 7919 + s * 104729) % 1000) / 100.0};
            m.runner = {{"gpu", gpus[(s / 4) % 5]}, {"driver", "550.54.15"}, {"host", "runner-7"}};
            m.image = "ghcr.io/nvidia/jax:nightly-2024-01-01";
            out << perfsweep::adapters::measurement_to_json(m) << '\n';
        }
    }
}

double mb(const Cost& c) {
    return static_cast<double>(c.rss_kib) / 1024;
}

void row(const char* what, const Cost& now, const Cost* old) {
    std::printf("  %-30s new %7.3f s (cpu %6.3f) %7.1f MB exit %d", what, now.seconds, now.cpu,
                mb(now), now.exit_code);
    if (old)
        std::printf("   old %7.3f s (cpu %6.3f) %7.1f MB exit %d   time %5.1fx  rss %5.1fx",
                    old->seconds, old->cpu, mb(*old), old->exit_code,
                    old->seconds / std::max(now.seconds, 1e-6), mb(*old) / std::max(mb(now), 1e-6));
    std::printf("\n");
}

/// "goal met" / "goal NOT met" for `c` against at most `seconds` and `megabytes`.
void goal(const char* what, const Cost& c, double seconds, double megabytes) {
    const bool verdict =
        c.exit_code == 0 || c.exit_code == 1 || c.exit_code == 4 || c.exit_code == 5;
    const bool ok = verdict && c.seconds < seconds && mb(c) < megabytes;
    std::printf("  goal %-28s < %g s and < %g MB: %s (%.3f s, cpu %.3f s, %.1f MB)\n", what,
                seconds, megabytes, ok ? "met" : "NOT met", c.seconds, c.cpu, mb(c));
}

/// Write `from` to `to` and fsync it: a fresh copy's dirty pages are no part of an append.
void copy_synced(const std::string& from, const std::string& to) {
    fs::copy_file(from, to, fs::copy_options::overwrite_existing);
    const int fd = ::open(to.c_str(), O_RDONLY);
    if (fd >= 0) {
        ::fsync(fd);
        ::close(fd);
    }
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr,
                     "usage: bench_history_scale NEW_PERFSWEEP [OLD_PERFSWEEP|-] [POINTS...]\n");
        return 2;
    }
    const std::string now_bin = argv[1];
    const std::string old_bin = argc > 2 && std::string(argv[2]) != "-" ? argv[2] : "";
    std::vector<long> sizes;
    for (int i = 3; i < argc; ++i)
        sizes.push_back(std::atol(argv[i]));
    if (sizes.empty())
        sizes = {100000, 1000000};
    const fs::path dir =
        fs::temp_directory_path() / ("perfsweep-bench-history-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    for (long points : sizes) {
        const std::string base = (dir / "base.jsonl").string();
        write_history(base, points);
        std::printf("== %ld points, %.0f MB, 1000 series\n", points,
                    static_cast<double>(fs::file_size(base)) / 1e6);
        auto run = [&](const std::string& bin, const std::string& h) {
            copy_synced(base, h);
            std::vector<Cost> c;
            c.push_back(measure({bin, "record", "--history", h, "--benchmark", "bench-7",
                                 "--metric", "MLUPS", "--runner", "gpu=NVIDIA H100 80GB HBM3",
                                 "--label", "new-night", "--value", "501.5"}));
            c.push_back(measure({bin, "detect", "--history", h, "--benchmark", "bench-7",
                                 "--metric", "MLUPS", "--json"}));
            c.push_back(measure({bin, "detect", "--history", h, "--json"}));
            fs::remove(h);
            return c;
        };
        const auto now = run(now_bin, (dir / "new.jsonl").string());
        std::vector<Cost> old;
        if (!old_bin.empty())
            old = run(old_bin, (dir / "old.jsonl").string());
        row("record (append one point)", now[0], old.empty() ? nullptr : &old[0]);
        row("detect (one series)", now[1], old.empty() ? nullptr : &old[1]);
        row("detect (every series)", now[2], old.empty() ? nullptr : &old[2]);
        goal("record", now[0], 0.1, 50);
        goal("detect of one series", now[1], 2, 300);
        // Streamed (the issue sets no figure): what detect of every series holds beyond a
        // process that only appends, a point (a history line is ~370 bytes, a decoded
        // measurement about 1 KB).
        auto per_point = [&](const std::vector<Cost>& c) {
            return (mb(c[2]) - mb(c[0])) * 1048576 / static_cast<double>(points);
        };
        std::printf("  every series streamed: %.0f bytes a point held beyond record's RSS",
                    per_point(now));
        if (!old.empty())
            std::printf(" (old %.0f)", per_point(old));
        std::printf("\n");
        std::fflush(stdout);
    }
    fs::remove_all(dir);
    return 0;
}
