#include "core/exit_code.hpp"
#include "core/stats.hpp"
#include "core/sweep_plan.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

using namespace perfsweep::core;

namespace {

std::vector<std::string> labels(int n) {
    std::vector<std::string> out;
    for (int i = 0; i < n; ++i)
        out.push_back("p" + std::to_string(i));
    return out;
}

// Outcome of one run of point i: an exit status.
using Oracle = std::function<int(std::size_t i)>;

// Drive the planner to completion the way daily does: one value per run; a skip or abort makes
// the point broken. Returns the result; `runs` counts the runs asked.
SweepResult drive(int n, const SweepOptions& o, const Oracle& exit_of, long& runs) {
    SweepPlan plan(labels(n), o);
    runs = 0;
    for (int round = 0; round < 100000; ++round) {
        const auto reqs = plan.next();
        if (reqs.empty())
            break;
        for (const auto& r : reqs) {
            std::vector<double> values;
            bool broken = false;
            for (int k = 0; k < r.repeats; ++k) {
                ++runs;
                const auto v = classify_exit_code(exit_of(r.index));
                if (v == ExitVerdict::skip || v == ExitVerdict::abort) {
                    broken = true;
                    break;
                }
                values.push_back(failure_value(v));
            }
            if (broken)
                plan.observe(r.index, Status::failed, {}, "exit 125");
            else
                plan.observe(r.index, Status::ok, values);
        }
    }
    return plan.result();
}

SweepOptions pass_fail(int repeats, int max_repeats, SweepStrategy s = SweepStrategy::adaptive) {
    SweepOptions o;
    o.comparison = ComparisonKind::pass_fail;
    o.repeats = repeats;
    o.max_repeats = max_repeats;
    o.strategy = s;
    return o;
}

} // namespace

TEST_CASE("exit statuses follow git bisect run's contract", "[core][exitcode]") {
    CHECK(classify_exit_code(0) == ExitVerdict::good);
    CHECK(classify_exit_code(1) == ExitVerdict::bad);
    CHECK(classify_exit_code(127) == ExitVerdict::bad);
    CHECK(classify_exit_code(-11) == ExitVerdict::bad); // SIGSEGV: a crash
    CHECK(classify_exit_code(125) == ExitVerdict::skip);
    CHECK(classify_exit_code(124) == ExitVerdict::skip); // a `timeout` wrapper fired
    CHECK(classify_exit_code(128) == ExitVerdict::abort);
    CHECK(classify_exit_code(255) == ExitVerdict::abort);
    Measurement m;
    m.exit_codes = {0, 1, 130, 2};
    CHECK(abort_code(m) == 130);
    m.exit_codes = {0, 1, 125, -9};
    CHECK_FALSE(abort_code(m));
    CHECK(parse_run_mode("exit-code") == RunMode::exit_code);
    CHECK(parse_run_mode("metric") == RunMode::metric);
    CHECK_FALSE(parse_run_mode("exitcode"));
}

TEST_CASE("Fisher's exact test matches R's fisher.test", "[core][exitcode][stats]") {
    // R: fisher.test(matrix(c(3,1,1,3), 2))$p.value (the tea-tasting table) = 0.4857
    CHECK(fisher_exact_two_sided(3, 1, 1, 3) == Approx(0.485714).epsilon(1e-5));
    // R: fisher.test(matrix(c(1,11,9,3), 2))$p.value = 0.002759
    CHECK(fisher_exact_two_sided(1, 9, 11, 3) == Approx(0.00275946).epsilon(1e-5));
    CHECK(fisher_exact_two_sided(0, 10, 10, 0) == Approx(1.08251e-05).epsilon(1e-5));
    CHECK(fisher_exact_two_sided(0, 10, 3, 7) == Approx(0.210526).epsilon(1e-5));
    CHECK(fisher_exact_two_sided(0, 20, 7, 17) == Approx(0.0110547).epsilon(1e-5));
    CHECK(fisher_exact_two_sided(2, 10, 5, 7) == Approx(0.370709).epsilon(1e-5));
    CHECK(fisher_exact_two_sided(0, 12, 4, 8) == Approx(0.0931677).epsilon(1e-5));
    // Symmetric in the rows and the columns; degenerate tables give 1.
    CHECK(fisher_exact_two_sided(11, 3, 1, 9) == Approx(0.00275946).epsilon(1e-5));
    CHECK(fisher_exact_two_sided(9, 1, 3, 11) == Approx(0.00275946).epsilon(1e-5));
    CHECK(fisher_exact_two_sided(0, 5, 0, 7) == 1);
    CHECK(fisher_exact_two_sided(0, 0, 0, 0) == 1);
    CHECK(fisher_exact_two_sided(1, 0, 0, 1) == 1);
}

TEST_CASE("failure changes are worded with rates and counts", "[core][exitcode]") {
    CHECK(describe_failure_change({3, 0}, {0, 3}) ==
          "started failing (0/3 runs failed before, 3/3 after)");
    CHECK(describe_failure_change({10, 0}, {7, 3}) ==
          "failure rate rose from 0 % (0/10) to 30 % (3/10)");
    CHECK(describe_failure_change({6, 4}, {10, 0}) ==
          "failure rate fell from 40 % (4/10) to 0 % (0/10)");
    CHECK(describe_rate(count_pass_fail({1, 0, 0, 1})) == "failed 2 of 4 runs (50 %)");
}

TEST_CASE("pass/fail planner: a deterministic failure from index k is found with one repeat",
          "[core][exitcode][sweep]") {
    for (auto strategy : {SweepStrategy::adaptive, SweepStrategy::bisect}) {
        for (int k : {1, 7, 20, 39}) {
            long runs = 0;
            const auto r = drive(
                40, pass_fail(1, 4, strategy), [&](std::size_t i) { return i >= std::size_t(k); },
                runs);
            INFO("strategy " << to_string(strategy) << ", k " << k);
            REQUIRE(r.complete);
            REQUIRE(r.boundaries.size() == 1);
            CHECK(r.boundaries[0].last_before == std::size_t(k - 1));
            CHECK(r.boundaries[0].first_after == std::size_t(k));
            CHECK(r.boundaries[0].kind == ChangeKind::regression);
            CHECK(r.boundaries[0].old_level == 0);
            CHECK(r.boundaries[0].new_level == 1);
            CHECK(r.boundaries[0].relative_change == 1);
            if (strategy == SweepStrategy::bisect) {
                // git bisect semantics: one run per point decides; log2(40) + ends.
                CHECK(runs <= 9);
                for (const auto& p : r.points)
                    CHECK(p.values.size() <= 1);
            }
        }
    }
}

TEST_CASE("pass/fail planner: all passing or all failing finds nothing",
          "[core][exitcode][sweep]") {
    long runs = 0;
    CHECK(drive(
              30, pass_fail(2, 8), [](std::size_t) { return 0; }, runs)
              .boundaries.empty());
    CHECK(drive(
              30, pass_fail(2, 8), [](std::size_t) { return 3; }, runs)
              .boundaries.empty());
}

TEST_CASE("pass/fail planner: a point exiting 125 is skipped, never bad",
          "[core][exitcode][sweep]") {
    long runs = 0;
    // Failing from 12; point 12 itself cannot be tested (exit 125), point 5 neither.
    const auto r = drive(
        30, pass_fail(1, 4, SweepStrategy::exhaustive),
        [](std::size_t i) { return i == 12 || i == 5 ? 125 : (i > 12 ? 1 : 0); }, runs);
    REQUIRE(r.boundaries.size() == 1);
    CHECK(r.boundaries[0].last_before == 11);
    CHECK(r.boundaries[0].first_after == 13);
    CHECK(r.boundaries[0].broken_between == std::vector<std::size_t>{12});
    CHECK(r.skipped == std::vector<std::size_t>{5, 12});
}

TEST_CASE("pass/fail planner: a 30 % flaky failure from index k is found with repeats",
          "[core][exitcode][sweep]") {
    int found = 0, exact = 0, wrong = 0;
    const int seeds = 20;
    long total_runs = 0;
    for (int seed = 1; seed <= seeds; ++seed) {
        std::mt19937 rng(static_cast<std::uint32_t>(seed));
        const std::size_t k = 10 + static_cast<std::size_t>(seed) % 17;
        long runs = 0;
        const auto r = drive(
            40, pass_fail(6, 24),
            [&](std::size_t i) { return i >= k && rng() % 1000 < 300 ? 1 : 0; }, runs);
        total_runs += runs;
        bool hit = false;
        for (const auto& b : r.boundaries) {
            if (b.kind == ChangeKind::regression && b.first_after >= k && b.last_before < k + 3) {
                hit = true;
                exact += b.last_before + 1 == k && b.first_after == k;
                CHECK(b.old_level == 0);
                CHECK(b.new_level > 0.1);
                CHECK(b.new_level < 0.5);
            } else if (b.kind != ChangeKind::unknown)
                ++wrong;
        }
        found += hit;
    }
    INFO("found " << found << "/" << seeds << ", exact " << exact << ", runs " << total_runs);
    CHECK(found >= seeds - 2);
    // Binary segmentation at alpha / 10 over ~300 runs of a 30 % level may split it once by
    // chance: at most one spurious extra boundary in these 20 seeds (1 today).
    CHECK(wrong <= 1);
    WARN("flaky 30 %: found " << found << "/" << seeds << " (exact day " << exact << "), " << wrong
                              << " spurious extra boundaries, " << total_runs / seeds
                              << " runs per sweep");
}

#include "report/log_excerpt.hpp"

TEST_CASE("log excerpts: last lines, ANSI stripped, secrets masked, fenced safely",
          "[report][exitcode]") {
    std::string log;
    for (int i = 0; i < 30; ++i)
        log += "line " + std::to_string(i) + "\r\n";
    log += "\x1b[31mError\x1b[0m with token abcd1234efgh and abcd1234efgh\n```\n\n";
    const auto e = perfsweep::report::log_excerpt(log, {"abcd1234efgh", "ab"}, 5);
    CHECK(e == "line 27\nline 28\nline 29\nError with token *** and ***\n```\n");
    const auto fenced = perfsweep::report::markdown_fence("a ``` b ```` c");
    CHECK(fenced == "`````text\na ``` b ```` c\n`````\n");
    CHECK(perfsweep::report::markdown_fence("plain") == "```text\nplain\n```\n");
    CHECK(perfsweep::report::prefix_lines("::set-output x\nok", "| ") ==
          "| ::set-output x\n| ok\n");
}
