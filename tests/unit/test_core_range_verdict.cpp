#include "core/range_verdict.hpp"

#include <catch2/catch.hpp>

using namespace perfsweep::core;

namespace {

// A finished sweep over 2024-05-01 .. 2024-05-05 with `ok` measured points and `kinds` boundaries.
DailyResult sweep(int ok, const std::vector<ChangeKind>& kinds, bool complete = true) {
    DailyResult d;
    d.from = "2024-05-01";
    d.to = "2024-05-05";
    for (int i = 0; i < 5; ++i) {
        SweepPoint p;
        p.state = i < ok ? StateStatus::unknown : StateStatus::untested;
        d.sweep.points.push_back(p);
    }
    for (auto k : kinds) {
        Boundary b;
        b.kind = k;
        d.sweep.boundaries.push_back(b);
    }
    d.sweep.complete = complete;
    d.sweep.stop_reason = complete ? "" : "run budget spent";
    return d;
}

} // namespace

TEST_CASE("an explicit range's sweep decides the verdict", "[core][investigate]") {
    auto v = range_verdict(sweep(3, {ChangeKind::improvement, ChangeKind::regression}));
    CHECK(v.verdict == Verdict::regression);
    CHECK(v.reason == "1 regression boundary between nightlies 2024-05-01 .. 2024-05-05");
    // An undecided boundary, a stopped sweep or too few points never read as "no regression".
    v = range_verdict(sweep(3, {ChangeKind::unknown, ChangeKind::unknown}));
    CHECK(v.verdict == Verdict::inconclusive);
    CHECK(v.reason.rfind("2 undecided boundaries", 0) == 0);
    v = range_verdict(sweep(3, {}, false));
    CHECK(v.verdict == Verdict::inconclusive);
    CHECK(v.reason.find("stopped early: run budget spent") != std::string::npos);
    v = range_verdict(sweep(1, {}));
    CHECK(v.verdict == Verdict::inconclusive);
    CHECK(v.reason.rfind("1 nightly measured", 0) == 0);
    CHECK(range_verdict(sweep(3, {ChangeKind::improvement})).verdict == Verdict::improvement);
    v = range_verdict(sweep(2, {}));
    CHECK(v.verdict == Verdict::no_regression);
    CHECK(v.reason == "no level change between the 2 measured nightlies 2024-05-01 .. 2024-05-05");
}
