#include "app/demo/bench.hpp"
#include "cli/context.hpp"
#include "util/error.hpp"

#include <cstdio>
#include <cstdlib>
#include <random>

namespace perfsweep::cli {

void run_demo_bench(const app::OptionValues& values, Context& ctx) {
    const std::string action = values.text("bench-action");
    if (action != "measure" && action != "build")
        throw_usage("demo-bench: '" + action + "': expected measure or build");
    app::DemoBenchSources src;
    src.nightly = values.text("nightly");
    src.framework = values.text("framework");
    src.compiler = values.text("compiler");
    // Run-to-run noise like a real benchmark's: each process draws its own, unless told otherwise.
    unsigned long long nonce = 0;
    if (!values.flag("deterministic")) {
        std::random_device rd;
        nonce = (static_cast<unsigned long long>(rd()) << 32) ^ rd();
    }
    auto& files = ctx.adapters.files;
    const auto out = action == "build"
                         ? app::demo_bench_build(files, src)
                         : app::demo_bench_measure(files, src, values.text("label"),
                                                   values.integer_int("repeat"), nonce);
    std::fputs(out.output.c_str(), stdout);
    std::fflush(stdout);
    if (out.crash)
        std::abort();
    ctx.exit_code = out.exit_code;
}

} // namespace perfsweep::cli
