#pragma once
// A command's options as the CLI resolves them, for in-process tests of its use case: the option
// table's names, defaults, old names and checks (app::assign_options, OptionValues::check).

#include "app/comment.hpp"
#include "app/option_values.hpp"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace perfsweep::test {

/// `command`'s values for these command-line options (name without dashes and value; "" for a
/// flag; a repeated name, or a positional list such as merge's "inputs", gathers its values).
/// The deprecation lines of old names go to `warnings` when given. Throws the usage errors the
/// CLI reports (exit 2).
app::OptionValues command_values(const std::string& command,
                                 const std::vector<std::pair<std::string, std::string>>& options,
                                 std::vector<std::string>* warnings = nullptr);

/// `args` as written on a command line ("--from", "X", "--plan", "--step=1h", ...) as the
/// (name, value) pairs of command_values: a flag of the option table takes no value.
std::vector<std::pair<std::string, std::string>>
options_of_args(const std::vector<std::string>& args);

/// The message of the usage error (the CLI's exit 2) that `f` throws; a failed check when `f`
/// throws another kind of error, a failed test when it throws none.
std::string usage_error_of(const std::function<void()>& f);

/// A getenv over `pairs` ("NAME=value", as a process's environment): the last value given for a
/// name, "" for a name not there (the reader the in-process runs hand to ActionsEnv and friends).
std::function<std::string(const std::string&)> env_reader(const std::vector<std::string>& pairs);

/// `perfsweep comment ARGS` run in-process as the binary runs it, in the environment `get` reads
/// (the Actions event, GITHUB_API_URL, the token, PERFSWEEP_GITHUB_*), on the real libcurl
/// client: what post_sticky_comment returned and the repository. Throws what the command throws.
std::pair<app::CommentResult, std::string>
post_comment_in_process(const std::vector<std::string>& args,
                        const std::function<std::string(const std::string&)>& get);

} // namespace perfsweep::test
