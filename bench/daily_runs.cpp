// Runs used by the daily strategies on examples/scenarios/*.json: adaptive and bisect vs
// exhaustive, and boundaries found vs the truth, averaged over seeds (simulated benchmark, the
// real planner). Usage: bench_daily_runs [SEEDS] [REPEATS]
#include "adapters/json/scenario_json.hpp"
#include "core/sweep_scenario.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace perfsweep;

int main(int argc, char** argv) {
    const int seeds = argc > 1 ? std::atoi(argv[1]) : 20;
    const int repeats = argc > 2 ? std::atoi(argv[2]) : 3;
    const std::string dir = std::string(PERFSWEEP_SOURCE_DIR) + "/examples/scenarios";
    std::vector<std::string> files;
    for (const auto& e : std::filesystem::directory_iterator(dir))
        if (e.path().extension() == ".json")
            files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    std::printf("%d seeds, --repeats %d; runs = benchmark runs (mean); found = true boundaries "
                "found / true (summed over seeds); inv = invented; unk = undecided\n\n",
                seeds, repeats);
    std::printf("%-20s %4s %5s | %8s %6s %4s | %8s %6s %6s %4s | %8s %6s %6s\n", "scenario", "days",
                "truth", "exh.runs", "found", "inv", "adaptive", "ratio", "found", "inv", "bisect",
                "ratio", "found");
    double sum_ratio_a = 0, max_ratio_a = 0;
    for (const auto& f : files) {
        std::ifstream in(f);
        std::stringstream ss;
        ss << in.rdbuf();
        const auto s = adapters::scenario_from_json(ss.str(), f);
        double runs[3] = {0, 0, 0}, worst_a = 0;
        int found[3] = {0, 0, 0}, inv[3] = {0, 0, 0}, unk[3] = {0, 0, 0}, truth = 0;
        const core::SweepStrategy strat[3] = {core::SweepStrategy::exhaustive,
                                              core::SweepStrategy::adaptive,
                                              core::SweepStrategy::bisect};
        for (int seed = 1; seed <= seeds; ++seed)
            for (int k = 0; k < 3; ++k) {
                core::SweepOptions o;
                o.strategy = strat[k];
                o.repeats = repeats;
                o.max_repeats = std::max(12, repeats);
                const auto r = core::simulate_sweep(s, o, static_cast<std::uint64_t>(seed));
                const auto c = core::check_sweep(s, r);
                runs[k] += static_cast<double>(r.runs) / seeds;
                if (k == 1)
                    worst_a = std::max(worst_a, static_cast<double>(r.runs) /
                                                    static_cast<double>(r.exhaustive_runs));
                found[k] += c.found;
                inv[k] += c.invented;
                unk[k] += c.unknown;
                if (k == 0)
                    truth += c.truth;
            }
        const double ra = runs[1] / runs[0], rb = runs[2] / runs[0];
        sum_ratio_a += ra;
        max_ratio_a = std::max(max_ratio_a, worst_a);
        std::printf("%-20s %4d %5d | %8.1f %3d/%-3d %3d | %8.1f %5.0f%% %3d/%-3d %3d | %8.1f "
                    "%5.0f%% %3d/%-3d\n",
                    s.name.c_str(), s.days, truth / seeds, runs[0], found[0], truth, inv[0],
                    runs[1], 100 * ra, found[1], truth, inv[1], runs[2], 100 * rb, found[2], truth);
        if (unk[0] + unk[1] + unk[2])
            std::printf("%-20s undecided boundaries: exhaustive %d, adaptive %d, bisect %d\n", "",
                        unk[0], unk[1], unk[2]);
    }
    std::printf("\nadaptive / exhaustive runs: mean of scenarios %.0f %%, worst single sweep "
                "(vs repeats x days) %.0f %%\n",
                100 * sum_ratio_a / static_cast<double>(files.size()), 100 * max_ratio_a);
    return 0;
}
