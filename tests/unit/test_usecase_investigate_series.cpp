// investigate over several series of one benchmark (issue 25): the runner reads three metrics of
// each run; two of them drop on the same nightly boundary and the third on another. One sweep
// narrows the first two (one run measures both), a second sweep the third, and the report leads
// with a table of every series with its window.
#include "adapters/json/result_json.hpp"
#include "app/investigate.hpp"
#include "app/options.hpp"
#include "report/markdown.hpp"
#include "support/fakes/world.hpp"
#include "util/time.hpp"

#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

using namespace perfsweep;

namespace {

// Each metric's level before and after the night it drops 7 % (0.04 % deterministic noise).
struct Drop {
    double level;
    std::string first_bad;
};
const std::map<std::string, Drop> k_drops = {
    {"MLUPS_128", {577.0, "2024-05-15"}},
    {"MLUPS_256", {612.0, "2024-05-15"}},
    {"GFLOPS", {91.0, "2024-04-24"}},
};

double value_of(const std::string& metric, const std::string& label, int repeat) {
    const auto& d = k_drops.at(metric);
    const double noise = 1 + 0.0004 * ((repeat * 7 + label.back()) % 3 - 1);
    return (label < d.first_bad ? d.level : 0.93 * d.level) * noise;
}

struct SeriesPipeline {
    fakes::World w;

    SeriesPipeline() {
        w.clock.t = static_cast<double>(1717200000); // 2024-06-01
        w.runners.run = [](const ports::PointRequest& r, int repeat) {
            std::map<std::string, double> v;
            for (const auto& [metric, d] : k_drops)
                v[metric] = value_of(metric, r.label, repeat);
            return fakes::Run::of_metrics(v);
        };
        // The nightly job recorded every third night from 2024-04-01 to 2024-05-28, each metric.
        auto& h = w.histories.at("history.jsonl").records;
        for (int day = 0; day < 60; day += 3) {
            const std::string label =
                util::format_day(util::Day{std::chrono::days{19814 + day}}); // 2024-04-01 + day
            for (const auto& [metric, d] : k_drops) {
                core::Measurement m;
                m.benchmark = "lbm";
                m.metric = m.unit = metric;
                m.label = label;
                m.stage = core::Stage::record;
                m.runner = w.runners.machine;
                m.values = {value_of(metric, label, 1)};
                h.push_back(m);
            }
        }
    }
    app::InvestigateOptions options() {
        app::OptionValues v(*app::find_command_spec("investigate"));
        v.set("history", "history.jsonl");
        v.set("image", "nightly:{date}");
        v.set("test", "bench {image}");
        v.set("metric", std::vector<std::string>{"MLUPS_128", "MLUPS_256", "GFLOPS"});
        v.set("benchmark", "lbm");
        v.set("env-probe", "none");
        v.set("repeats", "2");
        v.set("output-dir", "out");
        v.check();
        return app::resolve_investigate(v, {"acme/lbm", &w.actions}).options;
    }
};

const core::DailyResult* daily_of(const core::Investigation& inv, const std::string& metric) {
    for (const auto& d : inv.daily)
        if (d.metric == metric)
            return &d;
    return nullptr;
}

} // namespace

TEST_CASE("investigate over three series: the two that drop on one night share one sweep",
          "[usecase][investigate][series]") {
    SeriesPipeline p;
    const auto r = app::run_investigate(p.options(), p.w.adapters);
    const auto& inv = r.investigation;
    REQUIRE(inv.series.size() == 3);
    for (const auto& s : inv.series)
        CHECK(s.result.verdict == core::Verdict::regression);
    CHECK(r.verdict == "regression");

    // Three daily results: two sweeps ran, the third series was read from the first's runs.
    REQUIRE(inv.daily.size() == 3);
    const auto* m128 = daily_of(inv, "MLUPS_128");
    const auto* m256 = daily_of(inv, "MLUPS_256");
    const auto* gflops = daily_of(inv, "GFLOPS");
    REQUIRE((m128 && m256 && gflops));
    const auto* lead = m256->sweep.runs > 0 ? m256 : m128; // the larger drop leads (equal here)
    const auto* follower = lead == m256 ? m128 : m256;
    CHECK(lead->sweep.runs > 0);
    CHECK(follower->sweep.runs == 0);
    CHECK(gflops->sweep.runs > 0);
    // Every benchmark run is counted once: the two sweeps' runs are all the runner ran.
    CHECK(lead->sweep.runs + gflops->sweep.runs == p.w.runners.log.total_runs());
    CHECK(inv.spend.runs == p.w.runners.log.total_runs());

    // Each series' regression is narrowed to its night.
    std::map<std::string, std::string> window;
    for (const auto& n : inv.regressions)
        window[n.series] = n.last_good + " → " + n.first_bad;
    CHECK(window["lbm · MLUPS_128"] == "2024-05-14 → 2024-05-15");
    CHECK(window["lbm · MLUPS_256"] == "2024-05-14 → 2024-05-15");
    CHECK(window["lbm · GFLOPS"] == "2024-04-23 → 2024-04-24");
    CHECK(r.outputs.at("series") == "3");
    CHECK(r.outputs.at("regressions") == "3");

    // The follower's values come from the lead's runs: recorded in the history as they ran.
    std::size_t follower_daily = 0;
    for (const auto& m : p.w.histories.at("history.jsonl").records)
        follower_daily += m.metric == follower->metric && m.stage == core::Stage::daily ? 1 : 0;
    CHECK(follower_daily > 0);

    // The report leads with every series, each narrowed one with its window.
    const auto at = r.markdown.find("### Series");
    REQUIRE(at != std::string::npos);
    CHECK(at < r.markdown.find("### Regressions"));
    CHECK_THAT(r.markdown, Catch::Contains("| lbm · GFLOPS | 20 |") &&
                               Catch::Contains("2024-04-23 → 2024-04-24"));
    CHECK_THAT(r.markdown, Catch::Contains("| lbm · MLUPS\\_128 | 20 |") &&
                               Catch::Contains("| lbm · MLUPS\\_256 | 20 |"));
    // result.json holds every series and which one each regression is: `report --input`
    // renders the same report.
    const auto back = adapters::read_result_document(p.w.files.files.at("out/result.json"), "r");
    REQUIRE(std::get<core::Investigation>(back).series.size() == 3);
    report::MarkdownOptions mo;
    CHECK(report::render_markdown(back, mo) ==
          report::render_markdown(core::ResultDocument{inv}, mo));
}
