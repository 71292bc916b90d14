// bench_detect: `detect` on 10,000 points x 5 repeats (goal: < 200 ms on one core).
// Prints the measured times; run it from a Release or RelWithDebInfo build.

#include "core/detect.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

using namespace perfsweep::core;

namespace {

std::vector<Measurement> make_series(std::size_t points, int repeats, bool with_steps,
                                     std::uint64_t seed) {
    std::mt19937_64 gen(seed);
    std::normal_distribution<double> noise(0, 1);
    std::vector<Measurement> out;
    out.reserve(points);
    double level = 577.3;
    for (std::size_t i = 0; i < points; ++i) {
        if (with_steps && i > 0 && i % 1000 == 0)
            level *= (i / 1000) % 2 ? 0.95 : 1.04;
        Measurement m;
        m.metric = "MLUPS";
        m.label = "p" + std::to_string(i);
        for (int r = 0; r < repeats; ++r)
            m.values.push_back(level * (1 + 0.003 * noise(gen)));
        out.push_back(std::move(m));
    }
    return out;
}

double time_detect(const std::vector<Measurement>& s, int rounds, DetectResult* last) {
    std::vector<double> ms;
    for (int r = 0; r < rounds; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        *last = detect(s);
        const auto t1 = std::chrono::steady_clock::now();
        ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

} // namespace

int main() {
    const std::size_t n = 10000;
    const int repeats = 5;
    std::printf("bench_detect: %zu points x %d repeats, median of 5 runs, one thread\n", n,
                repeats);
    for (bool steps : {true, false}) {
        const auto s = make_series(n, repeats, steps, 42);
        DetectResult r;
        const double ms = time_detect(s, 5, &r);
        std::printf("  %-28s %8.1f ms  %10.0f points/s  %zu change points, verdict %s  (goal < "
                    "200 ms: %s)\n",
                    steps ? "9 level shifts:" : "stationary (no shift at all):", ms,
                    static_cast<double>(n) / (ms / 1000), r.change_points.size(),
                    std::string(to_string(r.verdict)).c_str(), ms < 200 ? "met" : "NOT met");
    }
    return 0;
}
