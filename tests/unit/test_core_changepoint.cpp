#include "core/changepoint.hpp"

#include <catch2/catch.hpp>

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
    const size_t n = y.size();
    std::vector<double> f(n + 1, std::numeric_limits<double>::infinity());
    f[0] = -penalty;
    for (size_t t = min_len; t <= n; ++t)
        for (size_t s = 0; s + min_len <= t; ++s) {
            if (!std::isfinite(f[s]))
                continue;
            f[t] = std::min(f[t], f[s] +
                                      objective({y.begin() + static_cast<long>(s),
                                                 y.begin() + static_cast<long>(t)},
                                                sigma, 0, {}) +
                                      penalty);
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
    CHECK(successive_difference_scale({5, 5, 5, 6, 6, 6}) > 0); // quantised values fall back
}

TEST_CASE("a lone outlier is filtered, a run of two is kept", "[core][changepoint]") {
    std::vector<double> y{10, 10.1, 9.9, 30, 10, 10.1, 5, 5, 10, 10, 9.9, 10, 0};
    std::vector<bool> replaced;
    auto f = filter_single_outliers(y, 0.1, 4, &replaced);
    CHECK(replaced[3]);
    CHECK(f[3] == Approx(10.0)); // median of 9.9, 30, 10
    CHECK_FALSE(replaced[6]);
    CHECK_FALSE(replaced[7]);
    CHECK(replaced[12]); // the last point alone
    CHECK_FALSE(replaced[0]);
}
