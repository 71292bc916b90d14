#pragma once
// The one table of perfsweep's commands and options (the model is ccache's config key table).
// Every option name has ONE meaning, type and help text across all commands; a command lists the
// options it takes with its own default. The CLI registers its parser from this table, `perfsweep
// help` and docs/commands.md are rendered from it, and config-file keys are these names. Old names
// (renamed flags and TOML keys) are kept per command as deprecated aliases.

#include <string_view>
#include <utility>
#include <vector>

namespace perfsweep::app {

/// How an option's value is written and checked (one parser per type, one error wording).
enum class OptionType {
    text,      ///< any text (may be checked further by the command)
    list,      ///< repeatable text: every occurrence adds one value
    flag,      ///< no value: given or not
    integer,   ///< whole number, at least OptionSpec::min
    number,    ///< real number
    fraction,  ///< relative change: 0.02 or 2 %, at least 0 and below 1
    threshold, ///< a fraction, or from 100 % on a ratio of how much worse: 150 % or 1.5x
    duration,  ///< 90s, 30m, 2h, 1d, 1h30m, or a bare number of seconds
    date,      ///< calendar date YYYY-MM-DD
};

/// Every option name of the table (make_options in option_table.cpp), in its order: the names
/// the code may use. OptionName checks a name against this list when compiling; a unit test checks
/// the list against the table (each name one spec, each spec one name).
inline constexpr std::string_view k_option_names[] = {"history",
                                                      "benchmark",
                                                      "testbed",
                                                      "metric",
                                                      "metric-regex",
                                                      "unit",
                                                      "direction",
                                                      "threshold",
                                                      "json",
                                                      "input",
                                                      "inputs",
                                                      "format",
                                                      "label",
                                                      "date",
                                                      "value",
                                                      "benchmark-output",
                                                      "match",
                                                      "digest",
                                                      "commit",
                                                      "path",
                                                      "runner",
                                                      "status",
                                                      "reason",
                                                      "log",
                                                      "stage",
                                                      "runtime",
                                                      "image",
                                                      "test",
                                                      "build",
                                                      "keep-container",
                                                      "warmup",
                                                      "timeout",
                                                      "gpus",
                                                      "logs",
                                                      "mount",
                                                      "env-probe",
                                                      "env",
                                                      "workdir",
                                                      "keep-images",
                                                      "srun-arg",
                                                      "check",
                                                      "repeats",
                                                      "from",
                                                      "to",
                                                      "strategy",
                                                      "max-repeats",
                                                      "min-span",
                                                      "max-runs",
                                                      "max-builds",
                                                      "keep-builds",
                                                      "max-time",
                                                      "commits-probe",
                                                      "commits-label",
                                                      "state",
                                                      "rerun",
                                                      "repo",
                                                      "ref",
                                                      "ref-for",
                                                      "fetch",
                                                      "token-env",
                                                      "from-result",
                                                      "good-commits",
                                                      "bad-commits",
                                                      "step",
                                                      "plan",
                                                      "any-parent",
                                                      "to-commit",
                                                      "hourly-test",
                                                      "hourly-repeats",
                                                      "hourly-strategy",
                                                      "outputs",
                                                      "salloc-arg",
                                                      "jax-toolbox",
                                                      "jax-toolbox-sources",
                                                      "bazel-cache",
                                                      "build-jax-arg",
                                                      "cherry-pick",
                                                      "record",
                                                      "narrow",
                                                      "fail-on-regression",
                                                      "output-dir",
                                                      "output",
                                                      "key",
                                                      "title",
                                                      "publish",
                                                      "publish-dir",
                                                      "dashboard-url",
                                                      "comment",
                                                      "github-repo",
                                                      "pr",
                                                      "issue",
                                                      "new-issue",
                                                      "issue-label",
                                                      "close-on-recovery",
                                                      "body-file",
                                                      "event",
                                                      "event-name",
                                                      "no-comment",
                                                      "alpha",
                                                      "max-points",
                                                      "exclude-measured",
                                                      "base-test",
                                                      "base-workdir",
                                                      "base-history",
                                                      "min-pairs",
                                                      "max-pairs",
                                                      "report-only",
                                                      "good-value",
                                                      "reference",
                                                      "good-label",
                                                      "command",
                                                      "markdown",
                                                      "bench-action",
                                                      "nightly",
                                                      "framework",
                                                      "compiler",
                                                      "repeat",
                                                      "deterministic"};

/// Called only when an OptionName is made from a name that is not in k_option_names: it is not
/// constexpr, so such a name fails to compile ("call to non-constexpr function").
[[noreturn]] void unknown_option_name_see_option_table();

/// The name of an option of the table, checked when compiled: `values.text("strategy")` compiles,
/// `values.text("stratgy")` does not. Names read at run time (argv, a config file) go through
/// checked().
class OptionName {
public:
    /// `name`, which must be in k_option_names (checked while compiling).
    consteval OptionName(const char* name) : m_name(name) { // NOLINT: implicit on purpose
        if (!known(m_name))
            unknown_option_name_see_option_table();
    }
    /// A name known only at run time; a logic_error when the table has no such option.
    static OptionName checked(std::string_view name);
    /// The name, without dashes.
    constexpr std::string_view view() const { return m_name; }
    /// The name, without dashes.
    constexpr operator std::string_view() const { return m_name; } // NOLINT: implicit on purpose

private:
    struct Trusted {};
    constexpr OptionName(Trusted, std::string_view name) : m_name(name) {}
    static constexpr bool known(std::string_view name) {
        for (auto n : k_option_names)
            if (n == name)
                return true;
        return false;
    }
    std::string_view m_name;
};

/// One option: the same everywhere it appears.
struct OptionSpec {
    std::string_view name; ///< long name without dashes; also the config-file key
    OptionType type = OptionType::text;
    std::string_view value_name; ///< placeholder in help, e.g. "DIR"; empty for flags
    std::string_view help;       ///< one line
    long long min = 0;           ///< integer: the smallest value accepted
    bool nonempty = false;       ///< text: an empty value is refused
    /// An option; `min` for integers, `nonempty` for text.
    OptionSpec(OptionName n, OptionType t, std::string_view value, std::string_view h,
               long long minimum = 0, bool not_empty = false)
        : name(n), type(t), value_name(value), help(h), min(minimum), nonempty(not_empty) {}
};

/// An older name of an option, accepted with a deprecation warning.
struct OldName {
    std::string_view name;      ///< the old long name / config key
    std::string_view on_value;  ///< for a flag that used to take a value: the value meaning "on"
    std::string_view off_value; ///< ... and the value meaning "off"
    /// An old name; `on`/`off` only for a flag whose old name took a value.
    OldName(std::string_view n, std::string_view on = {}, std::string_view off = {}) // NOLINT
        : name(n), on_value(on), off_value(off) {}
};

/// Where an option may appear on the command line.
enum class Positional {
    no,   ///< only as --name VALUE
    also, ///< as --name VALUE and as bare words
    only, ///< only as bare words
};

/// One option of one command.
struct CommandOption {
    std::string_view name;          ///< an OptionSpec name
    std::string_view default_value; ///< shown in help and used when not given; "" = none
    bool required = false;          ///< must be given (command line or config file)
    std::string_view note;          ///< command-specific detail appended to the help text
    std::vector<OldName> old_names; ///< deprecated aliases on this command
    Positional positional = Positional::no;
    bool hidden = false; ///< not listed in help (internal plumbing)
    /// A text option this command takes several times (each value kept, e.g. record's --metric).
    bool repeatable = false;
    /// An entry of a command's option list.
    CommandOption(OptionName n, std::string_view def = {}, bool req = false, // NOLINT
                  std::string_view detail = {}, std::vector<OldName> old = {},
                  Positional pos = Positional::no, bool hide = false)
        : name(n), default_value(def), required(req), note(detail), old_names(std::move(old)),
          positional(pos), hidden(hide) {}
};

/// One command.
struct CommandSpec {
    std::string_view name;
    std::string_view summary; ///< one line for the command list
    std::string_view help;    ///< what it does, for `perfsweep help NAME`
    std::vector<CommandOption> options;
    bool hidden = false; ///< not listed (an implementation detail, e.g. demo-bench)
    /// A command.
    CommandSpec(std::string_view n, std::string_view sum, std::string_view h,
                std::vector<CommandOption> opts, bool hide = false)
        : name(n), summary(sum), help(h), options(std::move(opts)), hidden(hide) {}
};

/// Every option, each name once.
const std::vector<OptionSpec>& option_specs();

/// Every command, in the order of `perfsweep help`.
const std::vector<CommandSpec>& command_specs();

/// The option named `name`; nullptr if there is none.
const OptionSpec* find_option_spec(std::string_view name);

/// The command named `name`; nullptr if there is none.
const CommandSpec* find_command_spec(std::string_view name);

/// The entry of option `name` in `command`; nullptr if the command does not take it.
const CommandOption* find_command_option(const CommandSpec& command, std::string_view name);

/// The spec of an option entry (every entry names an existing spec: checked by a unit test).
const OptionSpec& spec_of(const CommandOption& option);

} // namespace perfsweep::app
