#pragma once
// Shared state between the CLI root and the subcommand files.

#include "ports/adapters.hpp"
#include "util/exit_codes.hpp"

namespace CLI {
class App;
}

namespace perfsweep::cli {

/// What a subcommand needs: the adapters, and where to put its exit code.
struct Context {
    ports::Adapters& adapters;
    int exit_code = exit_ok;
};

// One registration function per subcommand file (cmd_<name>.cpp). Each adds its subcommand to
// `app` and sets `ctx.exit_code` from its callback.

/// Register `perfsweep version`.
void add_version(CLI::App& app, Context& ctx);
/// Register `perfsweep report`.
void add_report(CLI::App& app, Context& ctx);
/// Register `perfsweep comment`.
void add_comment(CLI::App& app, Context& ctx);

} // namespace perfsweep::cli
