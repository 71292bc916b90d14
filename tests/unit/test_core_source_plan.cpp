#include "core/source_plan.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace perfsweep;
using namespace perfsweep::core;

namespace {

JournalEvent building(const std::string& key) {
    JournalEvent e;
    e.kind = JournalEvent::Kind::building;
    e.point = key;
    return e;
}

JournalEvent build(const std::string& key, bool ok) {
    JournalEvent e;
    e.kind = JournalEvent::Kind::build;
    e.point = key;
    e.ok = ok;
    e.reason = ok ? "" : "compile error";
    return e;
}

JournalEvent run(const std::string& key, std::vector<double> values, Status status = Status::ok) {
    JournalEvent e;
    e.kind = JournalEvent::Kind::run;
    e.point = key;
    e.runs = status == Status::missing ? 0 : 1;
    e.measurement.status = status;
    e.measurement.values = std::move(values);
    e.measurement.metric = "MLUPS";
    if (status != Status::ok)
        e.measurement.reason = "exit 1";
    return e;
}

SweepOptions options(SweepStrategy s = SweepStrategy::bisect) {
    SweepOptions o;
    o.strategy = s;
    o.repeats = 3;
    o.max_repeats = 12;
    return o;
}

} // namespace

TEST_CASE("the source book counts every build and run once, resumed ones apart", "[core][source]") {
    SourceBook book;
    book.apply(building("A"), true);
    book.apply(build("A", true), true);
    book.apply(run("A", {100}), true);
    CHECK(book.built() == "A");
    book.apply(building("B"), false);
    CHECK(book.built().empty()); // an unfinished build leaves the output of no state
    book.apply(build("B", false), false);
    CHECK(book.built().empty());
    book.apply(run("A", {101}), false);
    book.apply(run("A", {}, Status::failed), false); // a flaky failure after values
    const Spend want{3, 2, 1, 1, 0};
    CHECK(book.spend() == want);
    const auto* a = book.find("A");
    REQUIRE(a);
    CHECK(a->values == std::vector<double>{100, 101});
    CHECK(a->runs == 3);
    CHECK(a->status == StateStatus::unknown); // its values stay: a measured state is not skipped
    const auto* b = book.find("B");
    REQUIRE(b);
    CHECK(b->status == StateStatus::build_failed);
    CHECK(b->reason == "compile error");
    CHECK(book.find("C") == nullptr);
    CHECK(book.metric() == "MLUPS");
}

TEST_CASE("exit-code mode keeps the first failing run's log and status", "[core][source]") {
    SourceBook book;
    auto e = run("A", {0, 1});
    e.measurement.exit_codes = {0, 3};
    e.measurement.failure_log = "logs/A/run-2.log";
    book.apply(e, false);
    auto later = run("A", {1});
    later.measurement.exit_codes = {7};
    later.measurement.failure_log = "logs/A/run-3.log";
    book.apply(later, false);
    CHECK(book.find("A")->failure_log == "logs/A/run-2.log");
    CHECK(book.find("A")->failure_code == 3);
}

TEST_CASE("an undecided pair repeats the state whose build is current first", "[core][source]") {
    // Two states 1.5 % apart with 2 % noise: neither the same nor decided, equal samples.
    SourcePlan plan({"A", "B"}, {"a", "b"}, options());
    SourceBook book;
    for (const auto& k : {std::string("A"), std::string("B")}) {
        book.apply(building(k), false);
        book.apply(build(k, true), false);
    }
    for (double v : {100.0, 102.0, 98.0})
        book.apply(run("A", {v}), false);
    for (double v : {96.5, 98.5, 100.5})
        book.apply(run("B", {v}), false);
    plan.sync(book);
    REQUIRE(book.built() == "B");
    auto step = plan.next(book);
    REQUIRE(step);
    CHECK(step->index == 1); // B is built: its runs cost no build
    CHECK(step->runs == 3);
    // With A's build current, A goes first.
    book.apply(building("A"), false);
    book.apply(build("A", true), false);
    step = plan.next(book);
    REQUIRE(step);
    CHECK(step->index == 0);
}

TEST_CASE("a source search finds the step, skips a state that does not build, and replays what "
          "an earlier invocation measured",
          "[core][source]") {
    std::vector<std::string> keys, labels;
    for (int i = 0; i < 20; ++i) {
        keys.push_back("s" + std::to_string(i));
        labels.push_back("state " + std::to_string(i));
    }
    auto value = [](int i, int rep) { return (i >= 13 ? 80.0 : 100.0) + 0.1 * (rep % 3); };
    // Drive a search to its end; `kill_after` stops it after that many builds (a kill).
    auto drive = [&](SourceBook& book, int kill_after) {
        SourcePlan plan(keys, labels, options());
        int builds = 0;
        for (;;) {
            plan.sync(book);
            const auto step = plan.next(book);
            if (!step)
                break;
            const auto& k = keys[step->index];
            if (book.built() != k) {
                if (builds == kill_after)
                    return plan.result("killed");
                ++builds;
                book.apply(building(k), false);
                book.apply(build(k, step->index != 12), false); // state 12 does not build
                if (step->index == 12)
                    continue;
            }
            const auto have = static_cast<int>(book.find(k)->values.size());
            for (int r = 0; r < step->runs; ++r)
                book.apply(run(k, {value(static_cast<int>(step->index), have + r)}), false);
        }
        plan.sync(book);
        return plan.result();
    };
    SourceBook once;
    const auto r = drive(once, -1);
    const auto* b = regression_boundary(r);
    REQUIRE(b);
    CHECK(b->last_before == 11);
    CHECK(b->first_after == 13);
    CHECK(b->broken_between == std::vector<std::size_t>{12});
    CHECK(b->kind == ChangeKind::regression);
    CHECK(once.spend().builds <= 8);
    // Killed after 3 builds, then resumed from the events so far: the same result, the same spend.
    SourceBook first;
    drive(first, 3);
    CHECK(first.spend().builds == 3);
    const auto resumed = drive(first, -1);
    REQUIRE(regression_boundary(resumed));
    CHECK(regression_boundary(resumed)->first_after == 13);
    CHECK(first.spend().builds == once.spend().builds);
    CHECK(first.spend().runs == once.spend().runs);
}
