#include "cli/context.hpp"

#include <CLI/CLI.hpp>

#include <cstdio>

namespace perfsweep::cli {

void add_version(CLI::App& app, Context& ctx) {
    auto* cmd = app.add_subcommand("version", "Print the version");
    cmd->callback([&ctx] {
        std::printf("perfsweep 0.1.0\n");
        ctx.exit_code = exit_ok;
    });
}

} // namespace perfsweep::cli
