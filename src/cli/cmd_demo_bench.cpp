#include "app/demo_bench.hpp"
#include "cli/context.hpp"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>

namespace perfsweep::cli {

void add_demo_bench(CLI::App& app, Context& ctx) {
    auto* cmd = app.add_subcommand("demo-bench", "Simulated benchmark used by `perfsweep demo`");
    cmd->group(""); // hidden: an implementation detail of the demo
    struct Opts {
        std::string action = "measure";
        app::DemoBenchSources src;
        std::string label;
        int repeat = 0;
    };
    auto o = std::make_shared<Opts>();
    cmd->add_option("action", o->action, "measure | build")
        ->check(CLI::IsMember({"measure", "build"}));
    cmd->add_option("--nightly", o->src.nightly, "Nightly snapshot directory");
    cmd->add_option("--framework", o->src.framework, "Framework worktree");
    cmd->add_option("--compiler", o->src.compiler, "Compiler worktree");
    cmd->add_option("--label", o->label, "Run label (seeds the noise)");
    cmd->add_option("--repeat", o->repeat, "Repeat index (seeds the noise)");
    cmd->callback([&ctx, o] {
        auto& files = *ctx.adapters.files;
        const auto out = o->action == "build"
                             ? app::demo_bench_build(files, o->src)
                             : app::demo_bench_measure(files, o->src, o->label, o->repeat);
        std::fputs(out.output.c_str(), stdout);
        std::fflush(stdout);
        if (out.crash)
            std::abort();
        ctx.exit_code = out.exit_code;
    });
}

} // namespace perfsweep::cli
