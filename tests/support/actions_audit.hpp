#pragma once
// Audits of what a command left for the GitHub Actions runner, modelled on the runner's own parsing
// (actions/runner ActionCommand.TryParseV2 / TryParse, SetOutputFileCommand): workflow commands in
// a stdout/stderr stream, and the entries of a GITHUB_OUTPUT file.

#include <set>
#include <string>
#include <utility>
#include <vector>

namespace perfsweep::test {

/// The result of auditing one output stream.
struct CommandAudit {
    int commands = 0;                ///< workflow commands the runner would process
    std::vector<std::string> forged; ///< those perfsweep does not emit itself (goal: none)
};

/// Split `stream` into lines the way the runner does (LF, CR or CRLF end a line), then find every
/// line the runner would process as a command: after leading whitespace (Unicode spaces too)
/// `::name ...::data`, or `##[name ...]` anywhere (the legacy syntax), for a registered command,
/// honouring `::stop-commands::TOKEN` ... `::TOKEN::`. A command counts as perfsweep's own only
/// when it is `::add-mask::` of a value in `masks`, an error/warning/notice whose title starts
/// with "perfsweep", a `::group::` directly followed by `::stop-commands::perfsweep-...`, that
/// stop-commands line, or the `::endgroup::` right after its resume line.
CommandAudit audit_workflow_commands(const std::string& stream,
                                     const std::set<std::string>& masks = {});

/// Parse a GITHUB_OUTPUT (or GITHUB_ENV) file with the runner's rules: `name=value` lines and
/// `name<<DELIM` heredocs ended by a line equal to DELIM. On a malformed file, `error` is set.
std::vector<std::pair<std::string, std::string>> parse_github_output(const std::string& text,
                                                                     std::string* error);

} // namespace perfsweep::test
