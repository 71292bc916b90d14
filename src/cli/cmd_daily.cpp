#include "app/daily.hpp"
#include "app/options.hpp"
#include "cli/context.hpp"
#include "cli/history_option.hpp"
#include "cli/output.hpp"
#include "core/exit_policy.hpp"
#include "report/daily_text.hpp"
#include "report/log_excerpt.hpp"
#include "report/result_json.hpp"
#include "util/error.hpp"

#include <cstdio>
#include <memory>

namespace perfsweep::cli {

namespace {

// Exit-code mode: the first failing run of each regression's first bad nightly, as an excerpt
// whose lines cannot start a workflow command.
void print_failure_logs(const core::DailyResult& r) {
    for (const auto& f : r.failure_logs)
        write_inert("\nFirst bad nightly " + f.point + ", " +
                    core::describe_exit_status(f.exit_code) + ", last lines of " + f.log + ":\n" +
                    report::prefix_lines(f.excerpt, "  | "));
}

} // namespace

void run_daily(const app::OptionValues& values, Context& ctx) {
    auto& a = ctx.adapters;
    auto req = app::resolve_daily(values);
    const auto& cfg = req.runner;
    auto& o = req.options;
    o.secrets = a.secrets.values();
    auto history = open_history_option(a, req.history);
    auto runner = a.runners.make(cfg);
    std::unique_ptr<ports::BuildingRunner> probe;
    if (req.commits_probe)
        probe = a.runners.make(*req.commits_probe);
    auto r = app::run_daily(o, a, {*runner, probe.get(), history.get()});
    r.image = cfg.image;
    if (r.metric.empty()) {
        r.metric = cfg.metric;
        r.unit = cfg.unit.empty() ? cfg.metric : cfg.unit;
    }
    if (req.json) {
        write_json(report::render_json(r));
    } else {
        write_inert(report::render_daily(r));
        print_failure_logs(r);
    }
    std::fflush(stdout);
    ctx.exit_code = core::sweep_exit_code(r);
}

} // namespace perfsweep::cli
