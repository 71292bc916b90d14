// The pull-request verdict in-process (app::run_compare with the scripted benchmark of
// tests/support/fakes): the base and head runs interleave base-head, head-base, head-base,
// base-head; a 6 % slower head is a regression that fails the check, an equal one is "same"; a run
// without a value fails the check (4); the base level may come from a history instead.
#include "app/compare.hpp"
#include "support/fakes/world.hpp"

#include <catch2/catch.hpp>

#include <random>

using namespace perfsweep;

namespace {

void script(fakes::World& w, double head_level, double noise = 0.003) {
    auto gen = std::make_shared<std::mt19937_64>(7);
    w.runners.run = [=](const ports::PointRequest& req, int) {
        std::normal_distribution<double> n(0, noise);
        const bool head = req.label.rfind("head-", 0) == 0;
        return fakes::Run::of((head ? head_level : 1000.0) * (1 + n(*gen)));
    };
}

} // namespace

TEST_CASE("compare: interleaved pairs, a 6 % slower head fails the check", "[usecase][compare]") {
    fakes::World w;
    script(w, 940);
    const auto r = app::run_compare(fakes::compare_request(), w.adapters);
    REQUIRE(r.series.size() == 1);
    CHECK(r.series[0].verdict == core::CompareVerdict::regression);
    CHECK(r.series[0].key.benchmark == "run.sh");
    CHECK(r.series[0].estimate.change == Approx(-0.06).margin(0.01));
    CHECK(app::compare_exit_code(r, false) == 1);
    CHECK(app::compare_exit_code(r, true) == 0);
    CHECK(r.runs == static_cast<long>(2 * r.pairs));
    CHECK(r.pairs < 32); // decided before the cap
    std::vector<std::string> order;
    for (const auto& p : w.runners.log.points)
        order.push_back(p.label);
    REQUIRE(order.size() >= 8);
    CHECK(std::vector<std::string>(order.begin(), order.begin() + 8) ==
          std::vector<std::string>{"base-1", "head-1", "head-2", "base-2", "head-3", "base-3",
                                   "base-4", "head-4"});
    const auto report = app::compare_report(r);
    CHECK(report.verdict == "regression");
}

TEST_CASE("compare: no change is same; a run without a value fails the check",
          "[usecase][compare]") {
    fakes::World w;
    script(w, 1000);
    const auto r = app::run_compare(fakes::compare_request(), w.adapters);
    CHECK(r.series.at(0).verdict == core::CompareVerdict::same);
    CHECK(app::compare_exit_code(r, false) == 0);

    fakes::World broken;
    broken.runners.run = [](const ports::PointRequest& req, int) {
        return req.label == "head-2" ? fakes::Run::failed("exit code 139") : fakes::Run::of(1000);
    };
    const auto b = app::run_compare(fakes::compare_request(), broken.adapters);
    CHECK(b.series.at(0).failed);
    CHECK_THAT(b.series.at(0).reason, Catch::Contains("head run 2 has no value of MLUPS"));
    CHECK(app::compare_exit_code(b, false) == 4);
    CHECK(b.pairs == 2);
}

TEST_CASE("compare: the base level from a history", "[usecase][compare]") {
    fakes::World w;
    auto& h = w.histories.at("h.jsonl").records;
    for (int i = 0; i < 12; ++i) {
        core::Measurement m;
        m.benchmark = "run.sh";
        m.metric = "MLUPS";
        m.label = "2024-01-" + std::string(i < 9 ? "0" : "") + std::to_string(i + 1);
        m.values = {1000.0 + (i % 3) - 1};
        h.push_back(m);
    }
    script(w, 950);
    auto req = fakes::compare_request();
    req.base.reset();
    req.base_history = "h.jsonl";
    const auto r = app::run_compare(req, w.adapters);
    REQUIRE(r.series.size() == 1);
    CHECK(r.series[0].base_level == Approx(1000).margin(1));
    CHECK(r.series[0].base.empty());
    CHECK(r.series[0].verdict == core::CompareVerdict::regression);
    CHECK(r.runs == static_cast<long>(r.pairs)); // only the head runs

    auto none = fakes::compare_request();
    none.base.reset();
    CHECK_THROWS_WITH(app::run_compare(none, w.adapters), Catch::Contains("--base-workdir"));
}
