#include "app/demo.hpp"
#include "cli/context.hpp"
#include "cli/output.hpp"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>

namespace perfsweep::cli {

void add_demo(CLI::App& app, Context& ctx) {
    auto o = std::make_shared<app::DemoOptions>();
    auto* cmd = app.add_subcommand(
        "demo",
        "Offline demo: generate two source repos, nightlies and a simulated benchmark, then "
        "run the whole pipeline (no GPU, container, network or token needed)");
    cmd->add_option("--dir,--output-dir", o->dir, "Directory to create (a -2, -3 suffix if taken)")
        ->capture_default_str();
    cmd->callback([&ctx, o] {
        const auto r = app::run_demo(*o, ctx.adapters);
        const auto& inv = r.investigate;
        print_inert("%s\n", inv.markdown.c_str());
        print_inert("----\n%s\n", inv.summary.c_str());
        auto culprit = inv.outputs.find("culprit");
        print_inert("culprit: %s\n",
                    culprit == inv.outputs.end() ? "(not found)" : culprit->second.c_str());
        print_inert("report:  %s\nresult:  %s\n", inv.report_path.c_str(), inv.result_path.c_str());
        std::fflush(stdout);
        ctx.exit_code = culprit == inv.outputs.end() ? exit_inconclusive : exit_ok;
    });
}

} // namespace perfsweep::cli
