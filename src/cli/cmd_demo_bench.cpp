#include "app/demo_bench.hpp"
#include "cli/context.hpp"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <random>

namespace perfsweep::cli {

namespace {
// Run-to-run noise like a real benchmark's: each process draws its own, unless told otherwise.
template <class Opts> unsigned long long nonce(const Opts& o) {
    if (o.deterministic)
        return 0;
    std::random_device rd;
    return (static_cast<unsigned long long>(rd()) << 32) ^ rd();
}
} // namespace

void add_demo_bench(CLI::App& app, Context& ctx) {
    auto* cmd = app.add_subcommand("demo-bench", "Simulated benchmark used by `perfsweep demo`");
    cmd->group(""); // hidden: an implementation detail of the demo
    struct Opts {
        std::string action = "measure";
        app::DemoBenchSources src;
        std::string label;
        int repeat = 0;
        bool deterministic = false;
    };
    auto o = std::make_shared<Opts>();
    cmd->add_option("action", o->action, "measure | build")
        ->check(CLI::IsMember({"measure", "build"}));
    cmd->add_option("--nightly", o->src.nightly, "Nightly snapshot directory");
    cmd->add_option("--framework", o->src.framework, "Framework worktree");
    cmd->add_option("--compiler", o->src.compiler, "Compiler worktree");
    cmd->add_option("--label", o->label, "Run label (seeds the noise)");
    cmd->add_option("--repeat", o->repeat, "Repeat index (seeds the noise)");
    cmd->add_flag("--deterministic", o->deterministic, "Noise from label and repeat only");
    cmd->callback([&ctx, o] {
        auto& files = *ctx.adapters.files;
        const auto out = o->action == "build" ? app::demo_bench_build(files, o->src)
                                              : app::demo_bench_measure(files, o->src, o->label,
                                                                        o->repeat, nonce(*o));
        std::fputs(out.output.c_str(), stdout);
        std::fflush(stdout);
        if (out.crash)
            std::abort();
        ctx.exit_code = out.exit_code;
    });
}

} // namespace perfsweep::cli
