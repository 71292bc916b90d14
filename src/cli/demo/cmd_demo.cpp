#include "adapters/json/result_json.hpp"
#include "app/demo/demo.hpp"
#include "cli/context.hpp"
#include "cli/output.hpp"

#include <cstdio>

namespace perfsweep::cli {

void run_demo(const app::OptionValues& values, Context& ctx) {
    const auto c = app::resolve_demo(values);
    const auto r = app::run_demo(c.options, ctx.adapters, adapters::read_result_document);
    const auto& inv = r.investigate;
    auto culprit = inv.outputs.find("culprit");
    if (c.json) {
        write_json(ctx.adapters.files.read_text(inv.result_path));
    } else {
        print_inert("%s\n", inv.markdown.c_str());
        print_inert("----\n%s\n", inv.summary.c_str());
        print_inert("culprit: %s\n",
                    culprit == inv.outputs.end() ? "(not found)" : culprit->second.c_str());
        print_inert("report:  %s\nresult:  %s\n", inv.report_path.c_str(), inv.result_path.c_str());
        print_inert("dashboard: %s (open it in a browser)\n", r.dashboard.c_str());
    }
    std::fflush(stdout);
    ctx.exit_code = culprit == inv.outputs.end() ? exit_inconclusive : exit_ok;
}

} // namespace perfsweep::cli
