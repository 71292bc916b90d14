#pragma once
// The command-line front end: parses argv with CLI11 and dispatches to the application layer.

#include "ports/adapters.hpp"

namespace perfsweep::cli {

/// Parse `argv`, run the chosen command with `adapters`, and return the process exit code
/// (README "Exit codes"). Never throws.
int run(int argc, char** argv, ports::Adapters& adapters);

} // namespace perfsweep::cli
