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
/// Register the hidden `perfsweep demo-bench` (the demo's simulated benchmark).
void add_demo_bench(CLI::App& app, Context& ctx);
/// Register `perfsweep record`.
void add_record(CLI::App& app, Context& ctx);
/// Register `perfsweep import`.
void add_import(CLI::App& app, Context& ctx);
/// Register `perfsweep detect`.
void add_detect(CLI::App& app, Context& ctx);
/// Register `perfsweep run` (measure one point).
void add_run(CLI::App& app, Context& ctx);
/// Register `perfsweep daily`.
void add_daily(CLI::App& app, Context& ctx);

/// Register `perfsweep hourly`.
void add_hourly(CLI::App& app, Context& ctx);
/// Register `perfsweep report`.
void add_report(CLI::App& app, Context& ctx);
/// Register `perfsweep comment`.
void add_comment(CLI::App& app, Context& ctx);
/// Register `perfsweep investigate`.
void add_investigate(CLI::App& app, Context& ctx);
/// Register `perfsweep demo`.
void add_demo(CLI::App& app, Context& ctx);
/// Register `perfsweep plan` (matrix of a stage's points).
void add_plan(CLI::App& app, Context& ctx);
/// Register `perfsweep merge` (combine matrix jobs' results).
void add_merge(CLI::App& app, Context& ctx);
/// Register `perfsweep issue-request` (accept or refuse an investigation asked for in an issue).
void add_issue_request(CLI::App& app, Context& ctx);
/// Register `perfsweep probe` (one state, exit 0/1/125 for git bisect run; errors 128).
void add_probe(CLI::App& app, Context& ctx);

} // namespace perfsweep::cli
