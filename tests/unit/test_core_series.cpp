#include "core/series.hpp"
#include "core/series_collector.hpp"

#include <catch2/catch.hpp>

#include <random>

using namespace perfsweep;

TEST_CASE("a GPU's class drops the vendor words and folds blanks", "[core][series]") {
    CHECK(core::gpu_class("NVIDIA H100 80GB HBM3") == "H100 80GB HBM3");
    CHECK(core::gpu_class("  NVIDIA  A100-SXM4-80GB ") == "A100-SXM4-80GB");
    CHECK(core::gpu_class("Tesla V100-SXM2-16GB") == "V100-SXM2-16GB");
    CHECK(core::gpu_class("NVIDIA GeForce RTX 4090") == "RTX 4090");
    CHECK(core::gpu_class("") == "");
}

TEST_CASE("a series is benchmark, metric and testbed; H100 and A100 points never pool",
          "[core][series]") {
    core::Measurement h100;
    h100.benchmark = "lbm";
    h100.metric = "MLUPS";
    h100.runner["gpu"] = "NVIDIA H100 80GB HBM3";
    core::Measurement a100 = h100;
    a100.runner["gpu"] = "NVIDIA A100-SXM4-80GB";
    CHECK(core::series_key(h100) != core::series_key(a100));
    CHECK(core::series_key(h100).testbed == "H100 80GB HBM3");
    core::Measurement named = a100;
    named.runner["testbed"] = "dgx-a";
    CHECK(core::testbed_of(named) == "dgx-a");
    core::Measurement unknown;
    unknown.benchmark = "lbm";
    unknown.metric = "MLUPS";
    CHECK(core::to_string(core::series_key(unknown)) == "lbm · MLUPS");
    CHECK(core::to_string(core::series_key(h100)) == "lbm · MLUPS · H100 80GB HBM3");
}

namespace {

/// Whether `a` and `b` agree on every field SeriesCollector keeps (what detect reads).
bool same_for_detect(const core::Measurement& a, const core::Measurement& b) {
    return a.benchmark == b.benchmark && a.metric == b.metric && a.unit == b.unit &&
           a.direction == b.direction && a.values == b.values && a.label == b.label &&
           a.timestamp == b.timestamp && a.stage == b.stage && a.status == b.status &&
           a.reason == b.reason && a.exit_codes == b.exit_codes && a.failure_log == b.failure_log;
}

/// A history of `n` records drawn from a few names old and new, with and without a benchmark
/// name or a GPU, of every stage and status.
std::vector<core::Measurement> mixed_history(std::mt19937& rng, int n) {
    const std::vector<std::string> pool = {
        "run.sh",   "bash bench/run.sh 256 200", "bash bench/run.sh 512", "./lbm 128", "lbm", "",
        "train.py", "python3 -m train.py --x"};
    std::vector<std::string> names; // a different mix each time: different folds apply
    for (const auto& p : pool)
        if (rng() % 2)
            names.push_back(p);
    if (names.empty())
        names.push_back("");
    std::vector<core::Measurement> out;
    for (int i = 0; i < n; ++i) {
        core::Measurement m;
        m.benchmark = names[rng() % names.size()];
        m.metric = rng() % 3 ? "MLUPS" : "step_time";
        m.unit = rng() % 2 ? m.metric : "";
        m.direction =
            rng() % 4 ? core::Direction::higher_is_better : core::Direction::lower_is_better;
        switch (rng() % 4) {
        case 0:
            m.runner["gpu"] = "NVIDIA H100 80GB HBM3";
            break;
        case 1:
            m.runner["gpu"] = "NVIDIA H200";
            break;
        case 2:
            m.runner["testbed"] = "dgx";
            break;
        default:
            break;
        }
        m.stage = static_cast<core::Stage>(rng() % 7 < 4 ? 0 : rng() % 4);
        m.label = "2024-01-" + std::to_string(10 + i % 20);
        m.timestamp = rng() % 2 ? "2024-01-01T07:30:00Z" : "";
        m.image = "ghcr.io/nvidia/jax:nightly";
        m.commits["xla"] = std::to_string(rng());
        if (rng() % 8 == 0) {
            m.status = static_cast<core::Status>(1 + rng() % 3);
            m.reason = "exit 1 (\xc3\xa9)";
        } else {
            for (unsigned k = 0; k <= rng() % 3; ++k)
                m.values.push_back(100.0 + static_cast<double>(rng() % 1000) / 7.0 - 1e-9);
        }
        if (rng() % 10 == 0) {
            m.exit_codes = {0, -9, 300};
            m.failure_log = "logs/run-" + std::to_string(i);
        }
        out.push_back(std::move(m));
    }
    return out;
}

} // namespace

TEST_CASE("a streamed history gives group_series's series; a selection keeps all it selects",
          "[core][series]") {
    std::mt19937 rng(29);
    std::size_t folded = 0, selected_points = 0;
    for (int round = 0; round < 10; ++round) {
        INFO("round " << round);
        const auto history = mixed_history(rng, 40 + round * 4);
        const auto expected = core::group_series(history);
        core::SeriesCollector all;
        for (const auto& m : history)
            all.add(m);
        CHECK(all.records() == history.size());
        const auto got = all.series();
        REQUIRE(got.size() == expected.size());
        for (std::size_t i = 0; i < got.size(); ++i) {
            CHECK(got[i].key == expected[i].key);
            CHECK(got[i].notes == expected[i].notes);
            CHECK(got[i].stored_benchmarks == expected[i].stored_benchmarks);
            CHECK(got[i].points.empty());
            const auto points = all.points(got[i].key);
            REQUIRE(points.size() == expected[i].points.size());
            for (std::size_t j = 0; j < points.size(); ++j)
                CHECK(same_for_detect(points[j], expected[i].points[j]));
            folded += expected[i].notes.size();
        }
        // Selections by a series' key, by a name its points were stored under, by metric or
        // testbed only: a collector that keeps only the points may_hold admits gives each
        // selected series whole.
        std::vector<core::SeriesSelector> selectors;
        for (const auto& s : expected) {
            selectors.push_back({s.key.benchmark, s.key.metric, s.key.testbed});
            for (const auto& b : s.stored_benchmarks)
                selectors.push_back({b, s.key.metric, ""});
            selectors.push_back({"", "", s.key.testbed});
        }
        for (const auto& select : selectors) {
            core::SeriesCollector some;
            for (const auto& m : history)
                if (some.note(core::series_key(m), m.stage) && select.may_hold(core::series_key(m)))
                    some.keep(m);
            for (const auto& s : expected) {
                if (!select.matches(s))
                    continue;
                const auto points = some.points(s.key);
                REQUIRE(points.size() == s.points.size());
                for (std::size_t j = 0; j < points.size(); ++j)
                    CHECK(same_for_detect(points[j], s.points[j]));
                selected_points += points.size();
            }
        }
    }
    CHECK(folded > 20); // the folds (older names, no name, no testbed) were exercised
    CHECK(selected_points > 1000);
}
