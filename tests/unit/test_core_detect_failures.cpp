// Detection over exit-code histories (core::detect_failures) and the failure-count segmentation
// it shares with the pass/fail planner.

#include "core/detect.hpp"
#include "core/exit_code.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

using namespace perfsweep::core;

namespace {

std::string date(int day) { // day 0 = 2023-08-01
    const int d = day + 1;
    const int month = d <= 31 ? 8 : 9;
    const int dd = d <= 31 ? d : d - 31;
    return std::string("2023-0") + std::to_string(month) + "-" + (dd < 10 ? "0" : "") +
           std::to_string(dd);
}

/// One exit-code measurement per day: `fails[i]` of `runs` runs failed (exit 1), the rest passed.
std::vector<Measurement> series(const std::vector<int>& fails, int runs) {
    std::vector<Measurement> out;
    for (std::size_t i = 0; i < fails.size(); ++i) {
        Measurement m;
        m.benchmark = "test";
        m.metric = "failed";
        m.direction = Direction::lower_is_better;
        m.label = date(static_cast<int>(i));
        for (int r = 0; r < runs; ++r) {
            const bool bad = r < fails[i];
            m.values.push_back(bad ? 1.0 : 0.0);
            m.exit_codes.push_back(bad ? 1 : 0);
        }
        out.push_back(m);
    }
    return out;
}

} // namespace

TEST_CASE("segment_failure_counts splits where the failure rate changes", "[core][exitcode]") {
    std::vector<PassFail> pts(10, PassFail{3, 0});
    for (std::size_t i = 6; i < 10; ++i)
        pts[i] = PassFail{0, 3};
    SegmentOptions o;
    CHECK(segment_failure_counts(pts, o) == std::vector<std::size_t>{5});
    // Two changes, passing, failing, passing again: one split cannot tell (p = 0.0016 for the
    // best one); the dip search finds both ends.
    for (std::size_t i = 8; i < 10; ++i)
        pts[i] = PassFail{3, 0};
    CHECK(segment_failure_counts(pts, o).empty());
    o.dips = true;
    CHECK(segment_failure_counts(pts, o) == std::vector<std::size_t>{5, 7});
    // Nothing changes: no split.
    CHECK(segment_failure_counts(std::vector<PassFail>(8, PassFail{2, 1}), o).empty());
    // One lone failing run at the end: separated, but a single run is not enough with a minimum of
    // two runs per side (detect), and is enough with one (the planner, git bisect semantics).
    std::vector<PassFail> lone(6, PassFail{1, 0});
    lone.back() = PassFail{0, 1};
    o.min_separated_runs = 2;
    CHECK(segment_failure_counts(lone, o).empty());
    o.min_separated_runs = 1;
    CHECK(segment_failure_counts(lone, o) == std::vector<std::size_t>{4});
}

TEST_CASE("detect_failures: nightlies that start crashing are a regression of the failure rate",
          "[core][exitcode][detect]") {
    auto s = series({0, 0, 0, 0, 0, 0, 2, 2, 2}, 2);
    REQUIRE(is_exit_code_series(s));
    const auto r = detect_failures(s);
    CHECK(r.failure_rates);
    CHECK(r.verdict == Verdict::regression);
    REQUIRE(r.change_points.size() == 1);
    const auto& cp = r.change_points[0];
    CHECK(cp.last_before == "2023-08-06");
    CHECK(cp.first_after == "2023-08-07");
    CHECK(cp.old_level == 0);
    CHECK(cp.new_level == 1);
    CHECK(cp.relative_change == 1);
    CHECK(cp.kind == ChangeKind::regression);
    CHECK_THAT(r.reason, Catch::StartsWith("started failing (0/12 runs failed before, 6/6 after) "
                                           "since 2023-08-07"));
    // A metric detector would call the same values something else; exit-code data is recognised.
    auto metric = s;
    for (auto& m : metric)
        m.exit_codes.clear();
    CHECK_FALSE(is_exit_code_series(metric));
}

TEST_CASE("detect_failures: recovery is an improvement, a stable flaky rate is no regression",
          "[core][exitcode][detect]") {
    // A week of broken nightlies that was fixed: two change points, the latest an improvement.
    auto dip = detect_failures(series({0, 0, 0, 0, 0, 0, 3, 3, 0, 0, 0, 0}, 3));
    REQUIRE(dip.change_points.size() == 2);
    CHECK(dip.change_points[0].first_after == "2023-08-07");
    CHECK(dip.change_points[0].kind == ChangeKind::regression);
    CHECK(dip.change_points[1].first_after == "2023-08-09");
    CHECK(dip.verdict == Verdict::improvement);
    auto fixed = detect_failures(series({3, 3, 3, 3, 3, 0, 0, 0, 0, 0}, 3));
    CHECK(fixed.verdict == Verdict::improvement);
    CHECK_THAT(fixed.reason, Catch::StartsWith("stopped failing"));
    // 1 of 10 runs fails every day: a flaky test, but not a change.
    auto stable = detect_failures(series(std::vector<int>(20, 1), 10));
    CHECK(stable.verdict == Verdict::no_regression);
    CHECK(stable.change_points.empty());
    CHECK_THAT(stable.reason, Catch::Contains("failed 20 of 200 runs (10 %)"));
}

TEST_CASE("detect_failures: a flaky failure from some date is found, noise alone raises nothing",
          "[core][exitcode][detect]") {
    // 30 % of runs fail from day 15 on (10 runs a day), over 20 seeds: always found at day 15
    // (±1); a 10 % flaky series that never changes never raises a regression.
    int exact = 0, false_alarms = 0;
    for (std::uint32_t seed = 1; seed <= 20; ++seed) {
        std::mt19937 rng(seed);
        std::bernoulli_distribution flaky30(0.3), flaky10(0.1);
        std::vector<int> changed, stationary;
        for (int d = 0; d < 25; ++d) {
            int f = 0, g = 0;
            for (int r = 0; r < 10; ++r) {
                f += d >= 15 && flaky30(rng);
                g += flaky10(rng);
            }
            changed.push_back(f);
            stationary.push_back(g);
        }
        const auto r = detect_failures(series(changed, 10));
        REQUIRE(r.verdict == Verdict::regression);
        const auto& cp = r.change_points.back();
        CHECK(cp.first_after >= date(14));
        CHECK(cp.first_after <= date(16));
        exact += cp.first_after == date(15);
        false_alarms += detect_failures(series(stationary, 10)).verdict == Verdict::regression;
    }
    CHECK(exact >= 15);
    CHECK(false_alarms == 0);
}

TEST_CASE("detect_failures: one failing run at the newest point is inconclusive, not silence",
          "[core][exitcode][detect]") {
    std::vector<int> f(10, 0);
    f.back() = 1;
    const auto r = detect_failures(series(f, 1));
    CHECK(r.verdict == Verdict::inconclusive);
    CHECK_THAT(r.reason, Catch::Contains("the latest point 2023-08-10 failed 1 of 1 runs") &&
                             Catch::Contains("too few runs"));
    // Too few points at all.
    CHECK(detect_failures(series({0, 1}, 3)).verdict == Verdict::inconclusive);
    // Points that could not be judged (a skip, 125) are listed, not counted.
    auto s = series({0, 0, 0, 0, 3, 3, 3}, 3);
    Measurement skipped;
    skipped.metric = "failed";
    skipped.label = date(3) + "x";
    skipped.status = Status::failed;
    skipped.exit_codes = {125};
    skipped.reason = "exit 125: skipped";
    s.push_back(skipped);
    const auto with_skip = detect_failures(s);
    REQUIRE(with_skip.failed.size() == 1);
    CHECK(with_skip.failed[0].label == date(3) + "x");
}

TEST_CASE("exit statuses are described for reports", "[core][exitcode]") {
    CHECK(describe_exit_status(1) == "exit status 1");
    CHECK(describe_exit_status(-11) == "killed by signal 11 (SIGSEGV)");
    CHECK(describe_exit_status(-6) == "killed by signal 6 (SIGABRT)");
    CHECK(describe_exit_status(-42) == "killed by signal 42");
}
