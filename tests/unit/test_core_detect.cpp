#include "core/detect.hpp"
#include "util/exit_codes.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <random>

using namespace perfsweep;
using namespace perfsweep::core;

namespace {

/// One measurement per level, labelled p000, p001, ... with `repeats` values each.
std::vector<Measurement> series(const std::vector<double>& levels, double rel_noise,
                                std::uint64_t seed, int repeats = 1,
                                Direction d = Direction::higher_is_better) {
    std::mt19937_64 gen(seed);
    std::normal_distribution<double> noise(0, 1);
    std::vector<Measurement> out;
    for (size_t i = 0; i < levels.size(); ++i) {
        Measurement m;
        m.benchmark = "bench";
        m.metric = "MLUPS";
        m.direction = d;
        char buf[32];
        std::snprintf(buf, sizeof buf, "p%03d", static_cast<int>(i));
        m.label = buf;
        for (int r = 0; r < repeats; ++r)
            m.values.push_back(levels[i] * (1 + rel_noise * noise(gen)));
        out.push_back(m);
    }
    return out;
}

std::vector<double> steps(std::initializer_list<std::pair<int, double>> runs) {
    std::vector<double> out;
    for (auto [n, level] : runs)
        out.insert(out.end(), static_cast<size_t>(n), level);
    return out;
}

} // namespace

TEST_CASE("verdict and point order names: one table prints and parses each", "[core][detect]") {
    for (const auto& e : k_verdict_names)
        CHECK(parse_verdict(to_string(e.value)) == e.value);
    for (const auto& e : k_point_order_names)
        CHECK(parse_point_order(to_string(e.value)) == e.value);
    CHECK(to_string(Verdict::no_regression) == "no_regression");
    CHECK(to_string(PointOrder::label_time) == "label dates");
    CHECK(parse_point_order("file order") == PointOrder::file);
    CHECK_FALSE(parse_point_order("file"));
    CHECK_FALSE(parse_verdict("none")); // an old name only the legacy JSON reader maps
    // the JSON reader's messages list the names from the same tables
    CHECK(util::enum_choices(k_point_order_names, "\"") ==
          "\"label dates\", \"timestamps\" or \"file order\"");
    CHECK(util::enum_choices(k_verdict_names) ==
          "regression, improvement, no_regression or inconclusive");
}

TEST_CASE("a single step is found with its labels, levels and kind", "[core][detect]") {
    auto r = detect(series(steps({{30, 577.3}, {20, 537.0}}), 0.003, 1));
    REQUIRE(r.change_points.size() == 1);
    const auto& c = r.change_points[0];
    CHECK(c.last_before == "p029");
    CHECK(c.first_after == "p030");
    CHECK(c.old_level == Approx(577.3).epsilon(0.005));
    CHECK(c.new_level == Approx(537.0).epsilon(0.005));
    CHECK(c.relative_change == Approx(-0.07).margin(0.005));
    CHECK(c.p_value < 1e-6);
    CHECK(c.kind == ChangeKind::regression);
    CHECK(r.verdict == Verdict::regression);
    CHECK(exit_code_for(r.verdict) == exit_regression);
    CHECK(r.points == 50);
}

TEST_CASE("direction decides regression versus improvement", "[core][detect]") {
    auto up = steps({{20, 100}, {20, 110}});
    CHECK(detect(series(up, 0.003, 2)).verdict == Verdict::improvement);
    CHECK(exit_code_for(Verdict::improvement) == exit_improvement);
    auto r = detect(series(up, 0.003, 2, 1, Direction::lower_is_better));
    CHECK(r.verdict == Verdict::regression);
    CHECK(r.change_points.at(0).kind == ChangeKind::regression);
}

TEST_CASE("several steps are all found", "[core][detect]") {
    auto r = detect(series(steps({{15, 100}, {15, 95}, {15, 103}, {15, 90}}), 0.004, 3, 3));
    REQUIRE(r.change_points.size() == 3);
    CHECK(r.change_points[0].first_after == "p015");
    CHECK(r.change_points[1].first_after == "p030");
    CHECK(r.change_points[2].first_after == "p045");
    CHECK(r.change_points[0].kind == ChangeKind::regression);
    CHECK(r.change_points[1].kind == ChangeKind::improvement);
    CHECK(r.segments.size() == 4);
}

TEST_CASE("a 3-point dip that recovers is found, a 2-point one is outliers", "[core][detect]") {
    auto r = detect(series(steps({{20, 577}, {3, 560}, {20, 577}}), 0.002, 4));
    REQUIRE(r.change_points.size() == 2);
    CHECK(r.change_points[0].last_before == "p019");
    CHECK(r.change_points[0].first_after == "p020");
    CHECK(r.change_points[0].kind == ChangeKind::regression);
    CHECK(r.change_points[1].first_after == "p023");
    CHECK(r.change_points[1].kind == ChangeKind::improvement);
    // The present is back at the level before the dip: recovered, not an improvement.
    CHECK(r.verdict == Verdict::no_regression);
    CHECK(r.recovered);
    CHECK_THAT(r.reason, Catch::StartsWith("recovered") && Catch::Contains("p020..p022"));
    // Two points off the level in the middle of a series are a short outlier run.
    auto two = detect(series(steps({{20, 577}, {2, 560}, {20, 577}}), 0.002, 4));
    CHECK(two.change_points.empty());
    CHECK(two.outliers == std::vector<std::string>{"p020", "p021"});
    CHECK(two.verdict == Verdict::no_regression);
}

TEST_CASE("steps below the threshold are not reported", "[core][detect]") {
    auto s = series(steps({{30, 100}, {30, 99}}), 0.001, 5);
    auto r = detect(s);
    CHECK(r.change_points.empty());
    CHECK(r.verdict == Verdict::no_regression);
    DetectOptions o;
    o.threshold = 0.005;
    auto r2 = detect(s, o);
    REQUIRE(r2.change_points.size() == 1);
    CHECK(r2.verdict == Verdict::regression);
}

TEST_CASE("a single outlier in the middle creates no change point", "[core][detect]") {
    for (double factor : {0.5, 0.9, 1.3, 3.0}) {
        auto s = series(steps({{40, 577}}), 0.002, 6);
        s[17].values = {577 * factor};
        auto r = detect(s);
        CHECK(r.change_points.empty());
        CHECK(r.verdict == Verdict::no_regression);
        CHECK(r.outliers == std::vector<std::string>{"p017"});
    }
}

TEST_CASE("a lone drop at the newest point is inconclusive, two points are a regression",
          "[core][detect]") {
    auto s = series(steps({{40, 577}}), 0.002, 7);
    s.back().values = {540};
    auto r = detect(s);
    CHECK(r.verdict == Verdict::inconclusive);
    CHECK(r.change_points.empty());
    CHECK(r.reason.find("p039") != std::string::npos);
    s[38].values = {541};
    auto r2 = detect(s);
    CHECK(r2.verdict == Verdict::regression);
    REQUIRE(r2.change_points.size() == 1);
    CHECK(r2.change_points[0].first_after == "p038");
}

TEST_CASE("failed points are excluded and listed", "[core][detect]") {
    auto s = series(steps({{20, 100}, {20, 90}}), 0.003, 8);
    s[5].values.clear();
    s[5].status = Status::failed;
    s[5].reason = "Traceback";
    s[20].values.clear();
    s[20].status = Status::timeout;
    s[20].reason = "killed";
    auto r = detect(s);
    CHECK(r.points == 38);
    REQUIRE(r.failed.size() == 2);
    CHECK(r.failed[0].label == "p005");
    CHECK(r.failed[0].reason == "failed: Traceback");
    CHECK(r.failed[1].label == "p020");
    CHECK(r.failed[1].reason == "timeout: killed");
    REQUIRE(r.change_points.size() == 1);
    CHECK(r.change_points[0].last_before == "p019");
    CHECK(r.change_points[0].first_after == "p021");
}

TEST_CASE("tiny and large noise work without retuning", "[core][detect]") {
    // 0.03 % noise (a JAX kernel on an H200): a 2.5 % step is obvious, nothing else is reported.
    auto tiny = detect(series(steps({{25, 577.3}, {25, 562.9}}), 0.0003, 9, 5));
    REQUIRE(tiny.change_points.size() == 1);
    CHECK(tiny.change_points[0].first_after == "p025");
    CHECK(tiny.relative_noise < 0.001);
    CHECK(detect(series(steps({{50, 577.3}}), 0.0003, 10, 5)).change_points.empty());
    // 5 % noise (a shared runner): a 20 % step over many points is found; a 3 % one is not
    // claimed.
    auto large = detect(series(steps({{40, 100}, {40, 80}}), 0.05, 11));
    REQUIRE(large.change_points.size() == 1);
    CHECK(large.change_points[0].index >= 38); // located within a couple of points of p040
    CHECK(large.change_points[0].index <= 42);
    CHECK(large.verdict == Verdict::regression);
    CHECK(detect(series(steps({{80, 100}}), 0.05, 12)).verdict == Verdict::no_regression);
}

TEST_CASE("false-alarm rate on stationary noise is at most 1 %", "[core][detect][far]") {
    // Statistics alone (threshold 0): any change point on a stationary series is a false alarm.
    DetectOptions o;
    o.threshold = 0;
    int alarms = 0, total = 0;
    for (int n : {12, 30, 60, 200})
        for (int repeats : {1, 5})
            for (int seed = 0; seed < 150; ++seed) {
                auto r = detect(series(std::vector<double>(static_cast<size_t>(n), 577.3), 0.003,
                                       static_cast<std::uint64_t>(1000 * n + 100 * repeats + seed),
                                       repeats),
                                o);
                alarms += !r.change_points.empty() || r.verdict == Verdict::regression ||
                          r.verdict == Verdict::improvement;
                ++total;
            }
    const double rate = static_cast<double>(alarms) / total;
    std::printf("detect false-alarm rate: %d of %d stationary series (%.2f %%)\n", alarms, total,
                100 * rate);
    CHECK(total >= 1000);
    CHECK(rate <= 0.01);
}

TEST_CASE("sensitivity: a 2-sigma step over 30+30 points is found", "[core][detect][far]") {
    // (A 1.5-sigma pass here printed its rate and checked nothing: 200 detects under ASan for a
    // figure; bench/detect.cpp measures detection rates.)
    DetectOptions o;
    o.threshold = 0; // statistics alone, like the false-alarm test
    int found = 0;
    for (int seed = 0; seed < 200; ++seed) {
        auto r = detect(series(steps({{30, 100}, {30, 98}}), 0.01, 5000 + seed), o);
        found += r.change_points.size() == 1 && r.verdict == Verdict::regression;
    }
    std::printf("detect sensitivity (2.0 sigma step, n=60): %d of 200\n", found);
    CHECK(found >= 190);
}

TEST_CASE("too little data is inconclusive, output is deterministic", "[core][detect]") {
    auto r = detect(series({100, 90, 90}, 0.001, 13));
    CHECK(r.verdict == Verdict::inconclusive);
    CHECK(exit_code_for(r.verdict) == exit_inconclusive);
    CHECK(detect({}).verdict == Verdict::inconclusive);
    auto s = series(steps({{20, 100}, {3, 96}, {20, 100}, {20, 93}}), 0.004, 14, 3);
    auto a = detect(s), b = detect(s);
    REQUIRE(a.change_points.size() == b.change_points.size());
    for (size_t i = 0; i < a.change_points.size(); ++i) {
        CHECK(a.change_points[i].first_after == b.change_points[i].first_after);
        CHECK(a.change_points[i].p_value == b.change_points[i].p_value);
    }
    CHECK(a.reason == b.reason);
}

TEST_CASE("repeats of one label are pooled and date labels are ordered", "[core][detect]") {
    std::vector<Measurement> s;
    for (int d = 1; d <= 20; ++d) {
        Measurement m;
        m.metric = "MLUPS";
        char buf[32];
        std::snprintf(buf, sizeof buf, "2023-08-%02d", 21 - d); // newest first in the file
        m.label = buf;
        const double level = (21 - d) >= 11 ? 537.0 : 577.0;
        m.values = {level + (d % 3) * 0.3};
        s.push_back(m);
        m.values = {level - (d % 2) * 0.3}; // a second measurement of the same night
        s.push_back(m);
    }
    auto r = detect(s);
    CHECK(r.points == 20);
    REQUIRE(r.change_points.size() == 1);
    CHECK(r.change_points[0].last_before == "2023-08-10");
    CHECK(r.change_points[0].first_after == "2023-08-11");
    CHECK(r.verdict == Verdict::regression);
}

TEST_CASE("without date labels, timestamps order the points", "[core][detect]") {
    auto s = series(steps({{15, 100}, {15, 90}}), 0.002, 15);
    for (size_t i = 0; i < s.size(); ++i) {
        s[i].label = "run-" + std::to_string(100 - i); // labels say nothing about time
        s[i].timestamp =
            "2023-08-10T10:" + std::string(i < 10 ? "0" : "") + std::to_string(i) + ":00Z";
    }
    std::reverse(s.begin(), s.end()); // the file lists the newest first
    auto r = detect(s);
    REQUIRE(r.change_points.size() == 1);
    CHECK(r.change_points[0].last_before == "run-86");
    CHECK(r.change_points[0].first_after == "run-85");
    CHECK(r.verdict == Verdict::regression);
    s[3].timestamp.clear(); // one point without a time: file order
    CHECK(detect(s).verdict == Verdict::improvement);
}

TEST_CASE("a night recorded twice does not poison the noise estimate", "[core][detect]") {
    // 20 nights at 500, then a -10 % regression; one night of the regression was recorded a
    // second time (a rerun) with another value. Before, its two values made the spread inside
    // points (118 % noise) every point's noise floor: no_regression.
    for (double second : {600.0, 900.0, 9000.0}) {
        INFO("second record " << second);
        auto s = series(steps({{20, 500}, {10, 450}}), 0.004, 7);
        Measurement again = s[25];
        again.values = {second};
        s.push_back(again);
        const auto r = detect(s);
        CHECK(r.verdict == Verdict::regression);
        CHECK(r.relative_noise < 0.02);
    }
    // Repeats in every point are still the noise estimate they were.
    const auto all = detect(series(steps({{20, 500}, {10, 450}}), 0.004, 7, 3));
    CHECK(all.verdict == Verdict::regression);
}
