#pragma once
// Shared state between the CLI root and the command handlers (one cmd_<name>.cpp each). A
// handler gets the command's checked option values, resolves them through the application
// layer (app/options*.hpp), runs the use case and prints; none of them sees CLI11.

#include "app/option_values.hpp"
#include "ports/adapters.hpp"
#include "util/exit_codes.hpp"

namespace perfsweep::cli {

/// What a handler needs: the adapters, and where to put its exit code.
struct Context {
    ports::Adapters& adapters;
    int exit_code = exit_ok;
};

/// A command's handler: run it with `values`, set `ctx.exit_code`; throws perfsweep::Error.
using Handler = void (*)(const app::OptionValues& values, Context& ctx);

/// `perfsweep record`.
void run_record(const app::OptionValues& values, Context& ctx);
/// `perfsweep import`.
void run_import(const app::OptionValues& values, Context& ctx);
/// `perfsweep detect`.
void run_detect(const app::OptionValues& values, Context& ctx);
/// `perfsweep compare` (the pull-request verdict).
void run_compare(const app::OptionValues& values, Context& ctx);
/// `perfsweep run` (measure one point).
void run_run(const app::OptionValues& values, Context& ctx);
/// `perfsweep daily`.
void run_daily(const app::OptionValues& values, Context& ctx);
/// `perfsweep hourly`.
void run_hourly(const app::OptionValues& values, Context& ctx);
/// `perfsweep report`.
void run_report(const app::OptionValues& values, Context& ctx);
/// `perfsweep comment`.
void run_comment(const app::OptionValues& values, Context& ctx);
/// `perfsweep investigate`.
void run_investigate(const app::OptionValues& values, Context& ctx);
/// `perfsweep dashboard` (a static site of every series).
void run_dashboard(const app::OptionValues& values, Context& ctx);
/// `perfsweep demo`.
void run_demo(const app::OptionValues& values, Context& ctx);
/// The hidden `perfsweep demo-bench` (the demo's simulated benchmark).
void run_demo_bench(const app::OptionValues& values, Context& ctx);
/// `perfsweep plan` (matrix of a stage's points).
void run_plan(const app::OptionValues& values, Context& ctx);
/// `perfsweep merge` (combine matrix jobs' results).
void run_merge(const app::OptionValues& values, Context& ctx);
/// `perfsweep issue-request` (accept or refuse an investigation asked for in an issue).
void run_issue_request(const app::OptionValues& values, Context& ctx);
/// `perfsweep probe` (one state, exit 0/1/125 for git bisect run; errors 128).
void run_probe(const app::OptionValues& values, Context& ctx);

/// $NAME, or "" when it is not set.
std::string env_text(const char* name);

} // namespace perfsweep::cli
