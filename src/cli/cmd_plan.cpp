#include "app/options_data.hpp"
#include "cli/context.hpp"
#include "cli/history_option.hpp"
#include "cli/output.hpp"
#include "util/error.hpp"
#include "util/time.hpp"

#include <cstdio>

namespace perfsweep::cli {

void run_plan(const app::OptionValues& values, Context& ctx) {
    auto& a = ctx.adapters;
    const auto c = app::resolve_plan(values);
    auto history = open_history_option(a, c.history);
    const auto plan = app::plan_daily_matrix(c.options, history.get());
    for (const auto& note : plan.notes)
        a.progress.line(note);
    a.progress.line("plan: " + std::to_string(plan.entries.size()) + " matrix entries for " +
                    std::to_string(plan.candidates) + " dates " +
                    util::format_day(c.options.dates.from) + " .. " +
                    util::format_day(c.options.dates.to));
    write_json(app::matrix_json(plan.entries) + "\n");
    std::fflush(stdout);
    ctx.exit_code = exit_ok;
}

} // namespace perfsweep::cli
