// `perfsweep probe`: measure one source state (the current checkout by default) and exit
// 0 good / 1 bad / 125 skip, or >= 128 to abort `git bisect run` (usage and infra errors too).

#include "app/options.hpp"
#include "app/run_point.hpp"
#include "cli/context.hpp"
#include "cli/history_option.hpp"
#include "core/exit_code.hpp"
#include "core/probe_decision.hpp"
#include "core/series.hpp"
#include "core/stats.hpp"
#include "util/error.hpp"

#include <cstdio>
#include <memory>

namespace perfsweep::cli {

namespace {

// The good level of metric mode: --good-value values, --reference, or the history's latest ok
// record of the benchmark.
double good_level(const app::ProbeRequest& f, Context& ctx) {
    if (!f.good_values.empty())
        return core::median(f.good_values);
    if (f.reference)
        return *f.reference;
    const auto& cfg = f.runner;
    auto store = open_history_option(ctx.adapters, f.history); // not empty here
    const auto load = store->load();
    const std::string bench =
        cfg.benchmark.empty() ? core::default_benchmark_name(cfg.test_command) : cfg.benchmark;
    // The series' points (core/series: older names of it included).
    std::vector<core::Measurement> records;
    for (auto& s : core::group_series(load.records))
        if (s.key.benchmark == bench && s.key.metric == cfg.metric &&
            (cfg.testbed.empty() || s.key.testbed == cfg.testbed))
            records.insert(records.end(), s.points.begin(), s.points.end());
    // With --good-label: every ok value recorded under that label (e.g. the last good nightly
    // investigate named), pooled; without: the latest ok record.
    std::vector<double> pooled;
    for (auto it = records.rbegin(); it != records.rend(); ++it)
        if (it->status == core::Status::ok && !it->values.empty() && it->exit_codes.empty()) {
            if (f.good_label.empty())
                return core::median(it->values);
            if (it->label == f.good_label)
                pooled.insert(pooled.end(), it->values.begin(), it->values.end());
        }
    if (!pooled.empty())
        return core::median(pooled);
    throw_usage("--history " + f.history + ": no ok record of benchmark '" + bench +
                "' with metric '" + cfg.metric + "'" +
                (f.good_label.empty() ? "" : " and label '" + f.good_label + "'") +
                " to use as the good level (set --benchmark)");
}

} // namespace

void run_probe(const app::OptionValues& values, Context& ctx) {
    auto& a = ctx.adapters;
    const auto f = app::resolve_probe(values);
    const auto& cfg = f.runner;
    const auto mode = cfg.exit_code_mode ? core::RunMode::exit_code : core::RunMode::metric;
    core::ProbeReference ref;
    ref.mode = mode;
    ref.direction = cfg.direction;
    if (mode == core::RunMode::metric) {
        ref.threshold = f.threshold;
        ref.good_level = good_level(f, ctx);
        if (*ref.good_level == 0)
            throw_usage("probe: the good level is 0; a relative threshold needs a non-zero level");
    }
    ports::PointRequest req;
    req.repeats = f.repeats;
    req.label = f.label;
    req.stage = core::Stage::commit;
    auto runner = a.runners.make(cfg);
    const auto m =
        app::run_point(*runner, cfg.build_command.empty() ? nullptr : runner.get(), req, nullptr);
    const auto d = core::decide_probe(m, ref);
    const std::string who = f.label == "probe" ? "probe" : "probe " + f.label;
    std::printf("%s: %s (%s)%s\n", who.c_str(), std::string(core::to_string(d.verdict)).c_str(),
                d.why.c_str(), m.log.empty() ? "" : ("; log " + m.log).c_str());
    std::fflush(stdout);
    switch (d.verdict) {
    case core::ExitVerdict::good:
        ctx.exit_code = exit_ok;
        break;
    case core::ExitVerdict::bad:
        ctx.exit_code = exit_probe_bad;
        break;
    case core::ExitVerdict::skip:
        ctx.exit_code = exit_probe_skip;
        break;
    case core::ExitVerdict::abort:
        throw_infra("probe " + f.label + ": " + d.why);
    }
}

} // namespace perfsweep::cli
