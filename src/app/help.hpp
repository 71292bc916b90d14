#pragma once
// Help and the command reference, rendered from the option table (pure): `perfsweep help`,
// `perfsweep help COMMAND` (= `perfsweep COMMAND --help`) and docs/commands.md
// (`perfsweep help --markdown`).

#include "app/option_table.hpp"

#include <string>

namespace perfsweep::app {

/// The command list: usage, every visible command with its summary, the global options.
std::string render_command_list(std::string_view version);

/// One command's usage, description and options (with defaults, required marks, old names).
std::string render_command_help(const CommandSpec& command);

/// The whole reference as markdown (docs/commands.md).
std::string render_reference_markdown();

/// What one option's help line says: its help text, the command's note, the old names.
std::string option_description(const CommandOption& option);

} // namespace perfsweep::app
