#pragma once
// Use case: the offline demo — a generated two-repo world, simulated nightlies and benchmark, and
// the real pipeline (history, detect, daily, hourly, commit, report) run on it.

#include "app/investigate.hpp"
#include "ports/adapters.hpp"

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
};

/// Build the world, record the earlier nightlies into a history as the nightly job would, then run
/// the whole investigation on today's nightly.
DemoResult run_demo(const DemoOptions& options, ports::Adapters& adapters);

/// Quote `word` for a command template (single quotes, as a shell would), so a path with spaces
/// stays one argument.
std::string quote_word(const std::string& word);

} // namespace perfsweep::app
