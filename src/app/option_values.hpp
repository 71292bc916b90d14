#pragma once
// The values given for one command's options (from the command line, a config file, or a program
// such as the demo), read through one typed accessor per option type, so every flag of a type is
// parsed and refused the same way ("--repeats 'x': expected a whole number >= 1").

#include "app/option_table.hpp"
#include "app/threshold.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfsweep::app {

/// Where a value came from (named in error messages).
enum class ValueSource {
    command_line, ///< argv
    config_file,  ///< a [command] section of the --config file
    program,      ///< set by perfsweep itself (the demo)
};

/// One option's given values.
struct GivenValue {
    std::vector<std::string> values;
    ValueSource source = ValueSource::program;
    std::string spelled; ///< the name as written (an old name, or the current one)
};

/// The options given to one command, with the table's defaults behind them.
class OptionValues {
public:
    /// Values for `command`; `config_file` names the config file in messages.
    explicit OptionValues(const CommandSpec& command, std::string config_file = "");

    /// The command these values are for.
    const CommandSpec& command() const { return *m_command; }
    /// The config file named in messages ("" when none).
    const std::string& config_file() const { return m_config_file; }

    /// Give option `name` (a current name this command takes) `values`, replacing earlier ones;
    /// `spelled` is the name as the user wrote it (default: `name`). A logic_error for a name the
    /// command does not take (a program error, not a user error). Every accessor takes an
    /// OptionName: a name missing from the option table does not compile.
    void set(OptionName name, std::vector<std::string> values,
             ValueSource source = ValueSource::program, std::string spelled = "");
    /// Give option `name` one value (ValueSource::program).
    void set(OptionName name, std::string value);
    /// Give flag `name` (ValueSource::program).
    void set_flag(OptionName name);

    /// Whether `name` was given (from any source).
    bool given(OptionName name) const;
    /// Where `name` came from; nullopt when it was not given.
    std::optional<ValueSource> source(OptionName name) const;

    /// The text value: the given one, else the command's default ("" when it has none).
    std::string text(OptionName name) const;
    /// Every value given for a list option (none given: empty).
    std::vector<std::string> list(OptionName name) const;
    /// Whether a flag is on.
    bool flag(OptionName name) const;
    /// An integer option's value (given or default), checked against its minimum.
    long long integer(OptionName name) const;
    /// An int-sized integer option's value.
    int integer_int(OptionName name) const;
    /// A number option's value.
    double number(OptionName name) const;
    /// A fraction option's value (0.02 or 2%), in [0, 1).
    double fraction(OptionName name) const;
    /// A threshold option's value as written (app/threshold.hpp: a fraction or a ratio).
    Threshold threshold(OptionName name) const;
    /// A threshold option's value as the relative change it means for `direction`.
    double threshold(OptionName name, core::Direction direction) const;
    /// A direction option's value (higher or lower; also higher_is_better, lower_is_better).
    core::Direction direction(OptionName name) const;
    /// A duration option's value in seconds; nullopt when it is neither given nor defaulted.
    std::optional<std::int64_t> seconds(OptionName name) const;

    /// How to name option `name` in a message: "--name" (or the old name it was given as), plus
    /// "(config file F, [command])" when it came from the config file.
    std::string describe(OptionName name) const;

    /// Check every given value against its type, the single-value rule, and that required
    /// options are there; a usage error naming the first problem.
    void check() const;

    /// The given options, by current name (for messages and tests).
    const std::map<std::string, GivenValue, std::less<>>& given_values() const { return m_given; }

private:
    const CommandOption& entry(std::string_view name) const;
    std::string describe_view(std::string_view name) const;
    const std::string* single(std::string_view name) const;
    [[noreturn]] void refuse(std::string_view name, const std::string& value,
                             const std::string& expected) const;

    const CommandSpec* m_command;
    std::string m_config_file;
    std::map<std::string, GivenValue, std::less<>> m_given;
};

/// One option as the command line or a config file gave it, before old names are resolved.
struct RawOption {
    std::string name;                ///< the long name as written, without dashes
    std::vector<std::string> values; ///< flags: one "true" per occurrence (or a config value)
    ValueSource source = ValueSource::command_line;
};

/// Assign `raw` to `values`: a current name as it is, an old name (OldName) to its current one
/// with a deprecation line added to `warnings` (a flag's old name that took a value: its on/off
/// value), the command line winning over the config file. A usage error for a name the command
/// does not take (with the closest name as a suggestion) and for an option given under two
/// names from the same source.
void assign_options(OptionValues& values, const std::vector<RawOption>& raw,
                    std::vector<std::string>& warnings);

/// Every name `command` accepts (current and old), without dashes.
std::vector<std::string> accepted_names(const CommandSpec& command);

/// "unknown option --NAME for 'COMMAND'[; did you mean --X?]".
std::string unknown_option_message(const CommandSpec& command, std::string_view name);

/// A duration in seconds: 90s, 30m, 2h, 1d, combinations such as 1h30m, or a bare number of
/// seconds; nullopt for anything else.
std::optional<std::int64_t> parse_duration_text(std::string_view text);

/// A relative change: "0.02" or "2%", in [0, 1); nullopt otherwise.
std::optional<double> parse_fraction_text(std::string_view text);

/// A flag's value in a config file: true/false, yes/no, on/off, 1/0; nullopt otherwise.
std::optional<bool> parse_bool_text(std::string_view text);

/// The name in `candidates` closest to `word` (git's rule: a small edit distance relative to the
/// word's length, or a candidate that starts with it); nullopt when none is close.
std::optional<std::string> closest_name(std::string_view word,
                                        const std::vector<std::string>& candidates);

} // namespace perfsweep::app
