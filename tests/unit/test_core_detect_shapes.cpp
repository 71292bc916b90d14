// Shapes `detect` once got wrong, each with a minimal series: recovered excursions, a threshold
// that erased a larger shift, short outlier runs, noise that changes over the series, few points
// and noise-free metrics.
#include "core/detect.hpp"

#include <catch2/catch.hpp>

#include <cstdio>
#include <random>

using namespace perfsweep;
using namespace perfsweep::core;

namespace {

Measurement point(std::size_t i, std::vector<double> values,
                  Direction d = Direction::higher_is_better) {
    Measurement m;
    m.benchmark = "bench";
    m.metric = "M";
    m.direction = d;
    char buf[32];
    std::snprintf(buf, sizeof buf, "p%03zu", i);
    m.label = buf;
    m.values = std::move(values);
    return m;
}

/// `levels[i] * (1 + rel[i] * N(0,1))`, `repeats` values per point, labels p000, p001, ...
std::vector<Measurement> noisy(const std::vector<double>& levels, const std::vector<double>& rel,
                               std::uint64_t seed, int repeats = 1,
                               Direction d = Direction::higher_is_better) {
    std::mt19937_64 gen(seed);
    std::normal_distribution<double> z(0, 1);
    std::vector<Measurement> out;
    for (std::size_t i = 0; i < levels.size(); ++i) {
        std::vector<double> v;
        for (int r = 0; r < repeats; ++r)
            v.push_back(levels[i] * (1 + rel[i] * z(gen)));
        out.push_back(point(i, v, d));
    }
    return out;
}

std::vector<double> runs(std::initializer_list<std::pair<int, double>> rs) {
    std::vector<double> out;
    for (auto [n, level] : rs)
        out.insert(out.end(), static_cast<std::size_t>(n), level);
    return out;
}

std::vector<double> same(std::size_t n, double v) {
    return std::vector<double>(n, v);
}

bool has_change_at(const DetectResult& r, const std::string& first_after) {
    for (const auto& c : r.change_points)
        if (c.first_after == first_after)
            return true;
    return false;
}

} // namespace

TEST_CASE("a bump that comes back is recovered, not a regression", "[core][detect][shapes]") {
    // Higher is better: 3 nights 5 sigma better, then back at the old level. The last change point
    // is a drop, but the present stands where it stood before the bump.
    const auto levels = runs({{20, 100}, {3, 105}, {12, 100}});
    auto r = detect(noisy(levels, same(levels.size(), 0.01), 21));
    CHECK(r.verdict == Verdict::no_regression);
    CHECK_THAT(r.reason, Catch::StartsWith("recovered"));
}

TEST_CASE("a fresh drop after an earlier dip is a regression from the baseline",
          "[core][detect][shapes]") {
    // 100, a 3-point dip to 97, 100 again, then a new drop to 97.1: the new drop is judged against
    // the established 100, not called "a recovery" to the dip's own level.
    const auto levels = runs({{20, 100}, {3, 97}, {20, 100}, {6, 97.1}});
    auto r = detect(noisy(levels, same(levels.size(), 0.002), 22));
    CHECK(r.verdict == Verdict::regression);
    CHECK_THAT(r.reason, !Catch::Contains("recovery") && Catch::Contains("reference level"));
}

TEST_CASE("the July 2023 table: the 3-day dip is reported at the default threshold",
          "[core][detect][shapes]") {
    // 587.3 x5, 570.2 x3 (-2.9 %), 587.6 x2, 577.3 x28 (-1.7 %), 536.7 x8; 3 repeats, 0.016 %.
    const auto levels = runs({{5, 587.3}, {3, 570.2}, {2, 587.6}, {28, 577.3}, {8, 536.7}});
    const auto s = noisy(levels, same(levels.size(), 0.00016), 23, 3);
    auto r = detect(s);
    CHECK(has_change_at(r, "p005")); // into the dip
    CHECK(has_change_at(r, "p008")); // out of it
    CHECK(has_change_at(r, "p038"));
    CHECK(r.verdict == Verdict::regression);
    DetectOptions one;
    one.threshold = 0.01;
    auto r1 = detect(s, one);
    CHECK(r1.change_points.size() == 4);
}

TEST_CASE("a good point between two outliers stays good", "[core][detect][shapes]") {
    // 112, 100, 112 inside a flat series: two lone outliers, not a 3-point level.
    auto levels = same(40, 100);
    levels[20] = levels[22] = 112;
    auto s = noisy(levels, same(levels.size(), 0.01), 24);
    s[21].values = {100.0};
    auto r = detect(s);
    CHECK(r.change_points.empty());
    CHECK(r.verdict == Verdict::no_regression);
}

TEST_CASE("heavy tails and outliers rarely make a change point", "[core][detect][shapes][far]") {
    // 60 points, sigma = 1 %: Student-t (df 3) noise, and Gaussian noise with 3 % of the points
    // 5-15 sigma off. The goal is 1 % of the series with any change point (bench_detect measures
    // it on 1,000 series each); this seeded set of 300 must stay within 2 %.
    int t_alarms = 0, o_alarms = 0;
    const int n_series = 300;
    for (int seed = 0; seed < n_series; ++seed) {
        std::mt19937_64 gen(static_cast<std::uint64_t>(7000 + seed));
        std::student_t_distribution<double> t3(3);
        std::normal_distribution<double> z(0, 1);
        std::uniform_real_distribution<double> u(0, 1);
        std::vector<Measurement> a, b;
        for (std::size_t i = 0; i < 60; ++i) {
            a.push_back(point(i, {100 * (1 + 0.01 * t3(gen))}));
            double e = z(gen);
            if (u(gen) < 0.03)
                e = (u(gen) < 0.5 ? -1 : 1) * (5 + 10 * u(gen));
            b.push_back(point(i, {100 * (1 + 0.01 * e)}));
        }
        t_alarms += !detect(a).change_points.empty();
        o_alarms += !detect(b).change_points.empty();
    }
    std::printf("heavy tails: %d of %d t(3) series, %d of %d outlier series with a change point\n",
                t_alarms, n_series, o_alarms, n_series);
    CHECK(t_alarms <= n_series / 50);
    CHECK(o_alarms <= n_series / 50);
}

TEST_CASE("quiet then noisy at the same level is no level shift", "[core][detect][shapes]") {
    std::vector<double> rel(60, 0.002);
    for (std::size_t i = 30; i < 60; ++i)
        rel[i] = 0.03;
    auto r = detect(noisy(same(60, 100), rel, 25));
    CHECK(r.change_points.empty());
    CHECK(r.verdict == Verdict::no_regression);
}

TEST_CASE("a noise-free metric +50 % on the last 3 of 9 points is a regression",
          "[core][detect][shapes]") {
    // Bytes or instruction counts: identical values, then a jump; lower is better.
    std::vector<Measurement> s;
    for (std::size_t i = 0; i < 9; ++i)
        s.push_back(point(i, {i < 6 ? 1000.0 : 1500.0}, Direction::lower_is_better));
    auto r = detect(s);
    CHECK(r.verdict == Verdict::regression);
    REQUIRE(r.change_points.size() == 1);
    CHECK(r.change_points[0].first_after == "p006");
}

TEST_CASE("a noise-free step on the last few of a handful of nightlies is a regression",
          "[core][detect][shapes]") {
    // 5 nightlies at 500 then 3 at 465 (-7 %), every value identical within a level, as a
    // deterministic stand-in benchmark prints them: the step is the only non-zero difference and
    // must not be taken for the noise. Also with identical repeats, with 4-10 nightlies before
    // and 2-4 after, and lower-is-better.
    auto series = [](std::size_t before, std::size_t after, int repeats, Direction d) {
        std::vector<Measurement> s;
        for (std::size_t i = 0; i < before + after; ++i) {
            const double v = d == Direction::higher_is_better ? (i < before ? 500.0 : 465.0)
                                                              : (i < before ? 465.0 : 500.0);
            s.push_back(point(i, std::vector<double>(static_cast<std::size_t>(repeats), v), d));
        }
        return s;
    };
    auto r = detect(series(5, 3, 1, Direction::higher_is_better));
    CHECK(r.verdict == Verdict::regression);
    REQUIRE(r.change_points.size() == 1);
    CHECK(r.change_points[0].first_after == "p005");
    CHECK(r.present_change == Approx(-0.07));
    for (std::size_t before = 4; before <= 10; ++before)
        for (std::size_t after = 2; after <= 4; ++after)
            for (int repeats : {1, 3})
                for (Direction d : {Direction::higher_is_better, Direction::lower_is_better}) {
                    INFO(before << " + " << after << " points, " << repeats << " repeat(s), "
                                << (d == Direction::higher_is_better ? "higher" : "lower"));
                    const auto got = detect(series(before, after, repeats, d));
                    CHECK(got.verdict == Verdict::regression);
                    CHECK(has_change_at(got, "p" + std::string(before < 10 ? "00" : "0") +
                                                 std::to_string(before)));
                }
    // A noise-free dip that came back is recovered, not a regression.
    std::vector<Measurement> dip;
    for (std::size_t i = 0; i < 10; ++i)
        dip.push_back(point(i, {i >= 5 && i < 8 ? 465.0 : 500.0}));
    const auto d = detect(dip);
    CHECK(d.verdict == Verdict::no_regression);
    CHECK(d.change_points.size() == 2);
}

TEST_CASE("a new nightly job catches a clear drop in its first week", "[core][detect][shapes]") {
    // 6 nightlies, 5 repeats each with 0.04 % run-to-run noise (a GPU kernel); the last 2 are 3 %
    // lower. The repeats' spread and count are the evidence that 3 % is far outside the noise.
    const auto levels = runs({{4, 577.3}, {2, 560.0}});
    auto r = detect(noisy(levels, same(levels.size(), 0.0004), 26, 5));
    CHECK(r.verdict == Verdict::regression);
    CHECK(has_change_at(r, "p004"));
}

TEST_CASE("an H200 first week: a real 3 % drop on 6 nightlies is a regression",
          "[core][detect][shapes]") {
    // examples/jax/mlups_lbm.py 128 400 --repeats 5 on an NVIDIA H200 (JAX 0.11.2), one process
    // per night (bench/data/h200-mlups-first-week.csv); nights 5-6 run a copy with a host sync
    // every 32 steps (-2.7 % and -3.9 %).
    const std::vector<std::vector<double>> nights{
        {5515.333, 5501.083, 5511.125, 5506.715, 5512.589},
        {5511.310, 5502.914, 5504.997, 5504.978, 5505.590},
        {5509.338, 5507.705, 5502.285, 5503.956, 5506.863},
        {5518.261, 5511.523, 5512.539, 5507.380, 5510.647},
        {5356.753, 5370.552, 5401.914, 5350.304, 5323.529},
        {5298.067, 5283.847, 5304.909, 5282.510, 5291.220}};
    std::vector<Measurement> s;
    for (std::size_t i = 0; i < nights.size(); ++i)
        s.push_back(point(i, nights[i]));
    auto r = detect(s);
    CHECK(r.verdict == Verdict::regression);
    CHECK(has_change_at(r, "p004"));
    s.resize(4); // the first 4 nights alone: nothing to report
    CHECK(detect(s).verdict == Verdict::no_regression);
}

TEST_CASE("H200 pipeline runs: 3 good nights and 2 with a host sync, 3 repeats each",
          "[core][detect][shapes]") {
    // examples/gpu/run_pipeline.sh with LBM_CULPRIT=sync32 on an NVIDIA H200 (JAX 0.11.2,
    // mlups_lbm.py 128 400, one process per repeat), three separate runs: the history detect saw
    // (nightlies 09-01..09-03, 09-05, 09-06; the last two wait for the device every 32 steps,
    // -2.9 to -3.8 %, and their runs are jittery). The repeats are the evidence: the MAD of 3 is
    // biased low, and the median over nights spoke for the quiet old nights alone, so these were
    // no_regression.
    const std::vector<std::vector<std::vector<double>>> runs{{{5479.769, 5488.231, 5491.358},
                                                              {5486.906, 5483.351, 5486.684},
                                                              {5483.521, 5490.984, 5489.143},
                                                              {5321.44, 5352.463, 5319.204},
                                                              {5359.378, 5335.545, 5332.219}},
                                                             {{5485.183, 5481.129, 5482.148},
                                                              {5464.651, 5477.663, 5476.22},
                                                              {5485.721, 5486.071, 5478.796},
                                                              {5284.906, 5343.363, 5239.459},
                                                              {5306.436, 5335.056, 5300.359}},
                                                             {{5493.419, 5457.475, 5489.673},
                                                              {5485.165, 5486.521, 5484.292},
                                                              {5487.727, 5489.292, 5485.691},
                                                              {5256.547, 5320.146, 5280.794},
                                                              {5277.454, 5275.088, 5251.118}}};
    for (const auto& nights : runs) {
        std::vector<Measurement> s;
        for (std::size_t i = 0; i < nights.size(); ++i)
            s.push_back(point(i, nights[i]));
        auto r = detect(s);
        CHECK(r.verdict == Verdict::regression);
        CHECK(has_change_at(r, "p003"));
        CHECK(r.present_change < -0.02);
        CHECK(r.present_change > -0.05);
    }
}

TEST_CASE("a small step just after a large one is judged by its own level's noise",
          "[core][detect][shapes]") {
    // As risc0's fib/100/proof: a noisy stretch (2 %), a -44 % step, 4 quiet points (0.3 %),
    // then +2.7 % for 20 points. The scale of the 4 points used to come from windows reaching
    // back into the noisy stretch, so the +2.7 % step was ~1.3 scales and not found.
    std::vector<double> levels, rel;
    for (int i = 0; i < 11; ++i) {
        levels.push_back(100);
        rel.push_back(0.02);
    }
    for (int i = 0; i < 24; ++i) {
        levels.push_back(i < 4 ? 56.0 : 57.5);
        rel.push_back(0.003);
    }
    int found = 0;
    for (std::uint64_t seed = 40; seed < 60; ++seed) {
        auto r = detect(noisy(levels, rel, seed));
        for (const auto& c : r.change_points)
            found += c.index >= 14 && c.index <= 16;
    }
    CHECK(found >= 18);
}

TEST_CASE("4 nightlies with the last 2 lower: the first 2 are a level and not outliers",
          "[core][detect][shapes]") {
    // A new nightly job's first 4 nights, 3 repeats each at 0.1 %, -2.7 % from night 3.
    const auto levels = runs({{2, 5505.0}, {2, 5355.0}});
    int reg = 0;
    for (std::uint64_t seed = 70; seed < 90; ++seed)
        reg += detect(noisy(levels, same(levels.size(), 0.001), seed, 3)).verdict ==
               Verdict::regression;
    CHECK(reg >= 18);
}
