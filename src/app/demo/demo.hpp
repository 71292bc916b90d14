#pragma once
// Use case: the offline demo — a generated two-repo world, simulated nightlies and benchmark, and
// the real pipeline (history, detect, daily, hourly, commit, report) run on it.

#include "app/dashboard.hpp"
#include "app/investigate.hpp"
#include "app/option_values.hpp"
#include "ports/adapters.hpp"
#include "ports/demo_world.hpp"

#include <string>

namespace perfsweep::app {

/// Where the demo works.
struct DemoOptions {
    std::string dir = "perfsweep-demo"; ///< created fresh; a suffix -2, -3, ... if it is taken
};

/// What the demo made and found.
struct DemoResult {
    std::string dir;               ///< the directory actually used
    InvestigateResult investigate; ///< the pipeline's result
    std::string dashboard;         ///< index.html of the dashboard of its history
};

/// Build the world, record the earlier nightlies into a history as the nightly job would, run
/// the whole investigation on today's nightly, and write the dashboard of the history
/// (DIR/dashboard).
/// `decode` reads the kept investigation back for the dashboard.
DemoResult run_demo(const DemoOptions& options, ports::Adapters& adapters, ResultDecoder decode);

/// `perfsweep demo`.
struct DemoCommand {
    DemoOptions options;
    bool json = false;
};

/// Resolve `demo`'s options.
DemoCommand resolve_demo(const OptionValues& values);

/// The demo's investigation as `perfsweep investigate` options (checked): what a user would
/// type to run the same pipeline on the world in `dir`. run_demo resolves them with
/// resolve_investigate, exactly as the command line is resolved.
OptionValues demo_investigate_values(const ports::DemoWorld& world, const std::string& dir);

/// Quote `word` for a command template (single quotes, as a shell would), so a path with spaces
/// stays one argument.
std::string quote_word(const std::string& word);

} // namespace perfsweep::app
