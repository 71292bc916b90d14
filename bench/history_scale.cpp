// Benchmark: a JSON Lines history at scale. Writes a history of N points (1,000 series: 250
// benchmarks x 4 metrics, on 5 testbeds, one point a night each, records as `record` writes
// them), then times one `perfsweep record` (an append of one point) and one `perfsweep
// detect` of one series, each as its own process, and prints wall time and peak RSS. With a
// second binary (the old implementation, e.g. main's build) it runs the same commands on a copy
// of the same history and prints both side by side.
//   bench_history_scale NEW_PERFSWEEP [OLD_PERFSWEEP|-] [POINTS...]   (default 100000 1000000)
// bench/history_scale.sh builds both binaries and runs it.

#include "adapters/json/measurement_json.hpp"

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

void row(const char* what, const Cost& now, const Cost* old) {
    std::printf("  %-28s new %8.3f s %8.1f MB (exit %d)", what, now.seconds,
                static_cast<double>(now.rss_kib) / 1024, now.exit_code);
    if (old)
        std::printf("   old %8.3f s %8.1f MB (exit %d)   time %6.1fx  rss %6.1fx", old->seconds,
                    static_cast<double>(old->rss_kib) / 1024, old->exit_code,
                    old->seconds / std::max(now.seconds, 1e-6),
                    static_cast<double>(old->rss_kib) /
                        static_cast<double>(std::max(now.rss_kib, 1L)));
    std::printf("\n");
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
            fs::copy_file(base, h, fs::copy_options::overwrite_existing);
            std::vector<Cost> c;
            c.push_back(measure({bin, "record", "--history", h, "--benchmark", "bench-7",
                                 "--metric", "MLUPS", "--runner", "gpu=NVIDIA H100 80GB HBM3",
                                 "--label", "new-night", "--value", "501.5"}));
            c.push_back(measure({bin, "detect", "--history", h, "--benchmark", "bench-7",
                                 "--metric", "MLUPS", "--json"}));
            fs::remove(h);
            return c;
        };
        const auto now = run(now_bin, (dir / "new.jsonl").string());
        std::vector<Cost> old;
        if (!old_bin.empty())
            old = run(old_bin, (dir / "old.jsonl").string());
        row("record (append one point)", now[0], old.empty() ? nullptr : &old[0]);
        row("detect (one series)", now[1], old.empty() ? nullptr : &old[1]);
        std::fflush(stdout);
    }
    fs::remove_all(dir);
    return 0;
}
