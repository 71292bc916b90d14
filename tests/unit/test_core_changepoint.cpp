#include "core/changepoint.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

using namespace perfsweep::core;

namespace {

// Reference: the same objective solved by plain O(n^2) optimal partitioning (no pruning).
double objective(const std::vector<double>& y, double sigma, double penalty,
                 const std::vector<size_t>& starts) {
    std::vector<size_t> b{0};
    b.insert(b.end(), starts.begin(), starts.end());
    b.push_back(y.size());
    double total = penalty * static_cast<double>(starts.size());
    for (size_t j = 0; j + 1 < b.size(); ++j) {
        double mean = 0;
        for (size_t i = b[j]; i < b[j + 1]; ++i)
            mean += y[i];
        mean /= static_cast<double>(b[j + 1] - b[j]);
        for (size_t i = b[j]; i < b[j + 1]; ++i)
            total += (y[i] - mean) * (y[i] - mean) / (sigma * sigma);
    }
    return total;
}

double brute_force_optimum(const std::vector<double>& y, double sigma, double penalty,
                           size_t min_len) {
    // f[t]: the best objective of y[0, t). Every segment [s, t) is tried (no pruning); its cost
    // comes from a running mean and sum of squared deviations (Welford) as t grows, O(n^2) in
    // all (the per-segment objective() copy made this reference O(n^3): 3.7 of this file's 4 s).
    const size_t n = y.size();
    std::vector<double> f(n + 1, std::numeric_limits<double>::infinity());
    f[0] = -penalty;
    for (size_t s = 0; s < n; ++s) {
        if (!std::isfinite(f[s]))
            continue;
        double mean = 0, m2 = 0;
        for (size_t t = s + 1; t <= n; ++t) {
            const double d = y[t - 1] - mean;
            mean += d / static_cast<double>(t - s);
            m2 += d * (y[t - 1] - mean);
            if (t - s >= min_len)
                f[t] = std::min(f[t], f[s] + m2 / (sigma * sigma) + penalty);
        }
    }
    return f[n];
}

} // namespace

TEST_CASE("step fit finds clean steps exactly", "[core][changepoint]") {
    std::vector<double> y(30, 100.0);
    for (size_t i = 10; i < 30; ++i)
        y[i] = 90;
    for (size_t i = 20; i < 30; ++i)
        y[i] = 95;
    CHECK(fit_steps(y, 0.5, 10) == std::vector<size_t>{10, 20});
    CHECK(fit_steps(std::vector<double>(30, 1.0), 0.5, 10).empty());
}

TEST_CASE("pruned step fit reaches the exact optimum of the objective", "[core][changepoint]") {
    std::mt19937_64 gen(7);
    std::normal_distribution<double> noise(0, 1);
    for (int trial = 0; trial < 60; ++trial) {
        // Stationary, sparse steps, frequent steps and dips; short and longer series.
        const int n = trial % 3 == 0 ? 120 : 40;
        const unsigned every = trial % 4 == 0 ? 1000 : (trial % 4 == 1 ? 6 : 3);
        const double penalty = trial % 2 ? 6.0 : 2.0 * std::log(n);
        std::vector<double> y;
        double level = 0;
        for (int i = 0; i < n; ++i) {
            if (gen() % every == 0)
                level += noise(gen) * 3;
            y.push_back(level + noise(gen));
        }
        for (size_t min_len : {1u, 2u, 3u}) {
            const auto starts = fit_steps(y, 1.0, penalty, min_len);
            for (size_t k = 0; k < starts.size(); ++k) {
                const size_t prev = k == 0 ? 0 : starts[k - 1];
                CHECK(starts[k] - prev >= min_len);
            }
            if (!starts.empty())
                CHECK(y.size() - starts.back() >= min_len);
            CHECK(objective(y, 1.0, penalty, starts) ==
                  Approx(brute_force_optimum(y, 1.0, penalty, min_len)).epsilon(1e-9));
        }
    }
}

TEST_CASE("noise scale from successive differences ignores a few steps", "[core][changepoint]") {
    std::mt19937_64 gen(11);
    std::normal_distribution<double> noise(0, 2.0);
    std::vector<double> y;
    for (int i = 0; i < 2000; ++i)
        y.push_back((i < 1000 ? 500.0 : 450.0) + noise(gen));
    CHECK(successive_difference_scale(y) == Approx(2.0).epsilon(0.08));
    CHECK(successive_difference_scale({5, 5, 5, 5}) == 0);
    // Quantised noise (most neighbours equal, the rest one quantum apart) falls back to the mean
    // of the smaller differences; a noise-free metric whose one difference is a step has no noise.
    CHECK(successive_difference_scale({5, 5, 6, 5, 5, 6, 6, 5, 5, 5}) > 0);
    CHECK(successive_difference_scale({5, 5, 5, 6, 6, 6}) == 0);
    CHECK(successive_difference_scale({500, 500, 500, 500, 500, 465, 465, 465}) == 0);
}

TEST_CASE("short outlier runs are found, levels and steps are not", "[core][changepoint]") {
    // sigma 0.1 everywhere: a lone spike (3), a 2-point run 20 sigma off (6, 7), a good point
    // between two same-sign outliers (14 between 13 and 15), a 3-point level (19..21) and a final
    // 2-point run (the newest points may be a new level). A 2-point run beyond 25 sigma is a level.
    std::vector<double> y{10,   10.1, 9.9, 30, 10, 10.1, 8,  8,  10,   10,  9.9, 10, 10.1, 11.2, 10,
                          11.2, 10,   9.9, 10, 12, 12,   12, 10, 10.1, 9.9, 10,  10, 7,    7};
    const std::vector<double> sigma(y.size(), 0.1);
    auto out = find_outlier_runs(y, sigma);
    CHECK(out[3]);
    CHECK(out[6]);
    CHECK(out[7]);
    CHECK(out[13]);
    CHECK_FALSE(out[14]);
    CHECK(out[15]);
    CHECK_FALSE(out[19]);
    CHECK_FALSE(out[20]);
    CHECK_FALSE(out[21]);
    CHECK_FALSE(out[27]);
    CHECK_FALSE(out[28]);
    CHECK_FALSE(out[0]);
    // A clean step has no outliers at all.
    std::vector<double> step(20, 10.0);
    for (std::size_t i = 10; i < 20; ++i)
        step[i] = 12;
    auto none = find_outlier_runs(step, std::vector<double>(step.size(), 0.1));
    CHECK(std::none_of(none.begin(), none.end(), [](bool b) { return b; }));
}

TEST_CASE("a level is not taken apart into outlier runs piece by piece", "[core][changepoint]") {
    // sigma 0.1: a level of 10, a level of 9, then a 3-point level around 8.2 (6, 8.3, 8.2), a
    // lone deep point (6.1) and a last point. Flagging 6.1 and the last point first once left
    // 8.3, 8.2 with outliers on every later side: a "2-point run" that was removed, then 6 with
    // it, until 5 points of levels were gone (a real ethereumjs-vm series lost 7 this way).
    std::vector<double> y{10, 10.1, 9.9, 10, 10.1, 9.9, 10,  10.1, 9.9, 10,
                          9,  9.1,  8.9, 9,  6,    8.3, 8.2, 6.1,  9.1};
    auto out = find_outlier_runs(y, std::vector<double>(y.size(), 0.1));
    CHECK_FALSE(out[14]);
    CHECK_FALSE(out[15]);
    CHECK_FALSE(out[16]);
    CHECK(std::count(out.begin(), out.end(), true) <= 2);
}

TEST_CASE("local noise scales follow a quiet and a noisy stretch", "[core][changepoint]") {
    std::vector<double> y;
    for (int i = 0; i < 40; ++i)
        y.push_back(100 + (i % 2 ? 1 : -1) * (i < 20 ? 0.1 : 2.0));
    auto s = local_difference_scales(y, 8);
    REQUIRE(s.size() == y.size());
    CHECK(s[2] < 0.5);
    CHECK(s[37] > 1.5);
}

TEST_CASE("local noise scales with cuts stay inside each level", "[core][changepoint]") {
    // 20 noisy points (scale ~5), then 20 quiet ones (scale ~0.1) at another level: cut at 20,
    // the quiet points' scales come from the quiet level alone; a point with too few differences
    // on both sides inside its level gets 0.
    std::mt19937_64 gen(12);
    std::normal_distribution<double> z(0, 1);
    std::vector<double> y;
    for (int i = 0; i < 40; ++i)
        y.push_back(i < 20 ? 100 + 5 * z(gen) : 50 + 0.1 * z(gen));
    const auto plain = local_difference_scales(y, 15);
    const auto cut = local_difference_scales(y, 15, {20});
    CHECK(plain[21] > 1.0); // reaches back into the noisy stretch
    CHECK(cut[21] < 0.3);
    CHECK(cut[5] > 2.0);
    const auto short_level = local_difference_scales(y, 15, {20, 24});
    CHECK(short_level[21] == 0);
}
