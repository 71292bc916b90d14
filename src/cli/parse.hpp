#pragma once
// Reading the command line (and the --config file) into the option values of one command. The
// only translation unit that uses CLI11: its parser is registered from the option table.

#include "app/option_values.hpp"

#include <optional>
#include <string>
#include <vector>

namespace perfsweep::cli {

/// What argv asked for.
struct CommandLine {
    const app::CommandSpec* command = nullptr; ///< nullptr: no command given
    std::optional<app::OptionValues> values;   ///< the command's options (with the config file's)
    std::vector<std::string> warnings;         ///< deprecation notes, for stderr
    bool help = false;                         ///< -h / --help: describe `command` (or list all)
    bool version = false;                      ///< --version
};

/// Parse `argv`: global options (--config, --version, --help), the command, its options and
/// the config file's [command] section (every section and key is checked). Usage errors (an
/// unknown command or option, with the closest name as a suggestion; a value of the wrong type)
/// are thrown as perfsweep::Error.
CommandLine parse_command_line(int argc, char** argv);

/// The command named by argv[1] when it is one, for exit-code decisions made before parsing.
std::string command_word(int argc, char** argv);

} // namespace perfsweep::cli
