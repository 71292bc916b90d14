#include "adapters/json/record_format.hpp"
#include "app/options_data.hpp"
#include "cli/context.hpp"
#include "cli/history_option.hpp"
#include "cli/output.hpp"
#include "core/exit_policy.hpp"
#include "report/daily_text.hpp"
#include "report/result_json.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

#include <cstdio>

namespace perfsweep::cli {

void run_merge(const app::OptionValues& values, Context& ctx) {
    auto& a = ctx.adapters;
    const auto c = app::resolve_merge(values);
    std::vector<app::MergeInput> inputs;
    for (const auto& p : c.paths)
        for (const auto& file : a.files.result_files(p))
            inputs.push_back({file, adapters::read_records(a.files.read_text(file), file)});

    auto history = open_history_option(a, c.history);
    const auto r = app::merge_points(inputs, c.options, history.get());

    for (const auto& w : r.daily.warnings)
        a.progress.line("warning: " + w);
    a.progress.line("merged " + std::to_string(r.records) + " records from " +
                    std::to_string(inputs.size()) + " files");
    if (history)
        a.progress.line("history " + history->describe() + ": appended " +
                        std::to_string(r.appended) + ", " + std::to_string(r.already) +
                        " already there, " + std::to_string(r.from_history) +
                        " dates taken from it");
    if (!r.next.empty())
        a.progress.line(
            std::to_string(r.next.size()) +
            " dates to measure next (refine the changed intervals): " + util::join(r.next, ", "));
    if (c.json)
        write_json(report::render_json(r.daily));
    else
        write_inert(report::render_daily(r.daily));
    std::fflush(stdout);
    ctx.exit_code = core::sweep_exit_code(r.daily);
}

} // namespace perfsweep::cli
