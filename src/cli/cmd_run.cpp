#include "adapters/json/measurement_json.hpp"
#include "app/options.hpp"
#include "app/run_point.hpp"
#include "cli/context.hpp"
#include "cli/history_option.hpp"
#include "cli/output.hpp"
#include "cli/points_outcome.hpp"
#include "core/series.hpp"
#include "report/point_table.hpp"
#include "util/error.hpp"

#include <cstdio>

namespace perfsweep::cli {

void run_run(const app::OptionValues& values, Context& ctx) {
    auto& a = ctx.adapters;
    const auto r = app::resolve_run(values, static_cast<util::UnixSeconds>(a.clock.now()));
    const auto& cfg = r.runner;
    auto history = open_history_option(a, r.history);
    auto runner = a.runners.make(cfg);
    auto ms = app::run_point_metrics(*runner, cfg.build_command.empty() ? nullptr : runner.get(),
                                     r.point, history.get());
    for (auto& m : ms)
        if (m.metric.empty()) { // a failed build never reached the runner
            m.metric = cfg.metric;
            m.unit = cfg.unit.empty() ? cfg.metric : cfg.unit;
            m.benchmark = cfg.benchmark.empty() ? core::default_benchmark_name(cfg.test_command)
                                                : cfg.benchmark;
            m.direction = cfg.direction;
        }
    if (r.json) {
        for (const auto& m : ms)
            write_json(adapters::measurement_to_json(m) + "\n");
    } else {
        write_inert(report::render_points(ms));
        if (history)
            print_inert("recorded in %s\n", history->describe().c_str());
    }
    std::fflush(stdout);
    // A point without a value fails the command (4): said as such, never as "too little data".
    ctx.exit_code = report_points(a, "run", ms, history ? history->describe() : "");
}

} // namespace perfsweep::cli
