// Benchmark: a benchmark that prints a lot. The same command (lines of log text, then the metric)
// runs on its own with its output to a file, then as a perfsweep run (adapters::ProcessRunner:
// output streamed through perfsweep, secrets masked, written to the run log, the metric read on
// the way). Prints both wall times, their ratio, and perfsweep's peak RSS against the output size.
//   bench_run_output [MiB]   (default 1024)

#include "adapters/process/process_runner.hpp"
#include "adapters/system/local_files.hpp"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace {

namespace fs = std::filesystem;

class NullProgress final : public perfsweep::ports::Progress {
public:
    void line(std::string_view) override {}
    void untrusted_block(std::string_view, std::string_view) override {}
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

long peak_rss_kib() {
    rusage u{};
    ::getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}

} // namespace

int main(int argc, char** argv) {
    const long mib = argc > 1 ? std::atol(argv[1]) : 1024;
    if (mib <= 0) {
        std::fprintf(stderr, "usage: bench_run_output [MiB > 0]\n");
        return 2;
    }
    const fs::path dir =
        fs::temp_directory_path() / ("perfsweep-bench-output-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    // ~100-byte lines of log text, `mib` MiB in all, then the metric.
    const std::string script =
        "yes 'step 000123 loss 0.1234567 lr 3.0e-4 tokens/s 12345.6 mem 71.2GiB ................' "
        "| head -c " +
        std::to_string(mib * 1024 * 1024) + "; echo; echo 'MLUPS: 5668.6'";
    const std::string alone_log = (dir / "alone.log").string();
    const long rss_before = peak_rss_kib();

    auto t0 = std::chrono::steady_clock::now();
    const std::string alone = "sh -c \"" + script + "\" > " + alone_log + " 2>&1";
    if (std::system(alone.c_str()) != 0) {
        std::fprintf(stderr, "the benchmark alone failed\n");
        return 1;
    }
    const double alone_s = seconds_since(t0);

    NullProgress progress;
    perfsweep::adapters::SystemClock clock;
    perfsweep::ports::RunnerConfig cfg;
    cfg.test_command = "sh -c \"" + script + "\"";
    cfg.logs_dir = (dir / "logs").string();
    cfg.timeout_s = 3600;
    cfg.env_probe = "none";
    perfsweep::adapters::ProcessRunner runner(cfg, progress, clock);
    perfsweep::ports::PointRequest req;
    req.label = "bench";
    t0 = std::chrono::steady_clock::now();
    const auto m = runner.run_points({req});
    const double perfsweep_s = seconds_since(t0);
    const long rss = peak_rss_kib();
    const bool ok = m.size() == 1 && m[0].status == perfsweep::core::Status::ok &&
                    m[0].values == std::vector<double>{5668.6} &&
                    fs::file_size(m[0].log) == fs::file_size(alone_log);
    std::printf("output: %ld MiB in ~100-byte lines, then the metric\n", mib);
    std::printf("benchmark alone (output to a file): %.2f s\n", alone_s);
    std::printf("under perfsweep run:                %.2f s  (ratio %.2f)\n", perfsweep_s,
                perfsweep_s / alone_s);
    std::printf("perfsweep peak RSS: %.1f MiB (before the runs: %.1f MiB; output/RSS %.0fx)\n",
                static_cast<double>(rss) / 1024, static_cast<double>(rss_before) / 1024,
                static_cast<double>(mib) * 1024 / static_cast<double>(rss));
    std::printf("metric read and log complete: %s\n", ok ? "yes" : "NO");
    fs::remove_all(dir);
    return ok ? 0 : 1;
}
