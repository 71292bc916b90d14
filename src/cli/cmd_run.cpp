#include "adapters/json/measurement_json.hpp"
#include "app/options.hpp"
#include "app/run_point.hpp"
#include "cli/context.hpp"
#include "cli/history_option.hpp"
#include "cli/output.hpp"
#include "core/exit_policy.hpp"
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
    auto m = app::run_point(*runner, cfg.build_command.empty() ? nullptr : runner.get(), r.point,
                            history.get());
    if (m.metric.empty()) { // a failed build never reached the runner
        m.metric = cfg.metric;
        m.unit = cfg.unit.empty() ? cfg.metric : cfg.unit;
        m.benchmark = cfg.benchmark.empty() ? cfg.test_command : cfg.benchmark;
        m.direction = cfg.direction;
    }
    if (r.json) {
        write_json(adapters::measurement_to_json(m) + "\n");
    } else {
        write_inert(report::render_points({m}));
        if (history)
            print_inert("recorded in %s\n", history->describe().c_str());
    }
    std::fflush(stdout);
    ctx.exit_code = core::point_exit_code(m.status);
}

} // namespace perfsweep::cli
