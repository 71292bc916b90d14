#pragma once
// Error policy: expected failures (a benchmark that crashed, a missing image) are values in the
// domain types; problems that stop a command (bad input, unusable infrastructure) are thrown as
// perfsweep::Error once and mapped to an exit code in one place (cli::run).

#include <stdexcept>
#include <string>

namespace perfsweep {

/// What kind of problem stopped a command; decides the process exit code.
enum class ErrorKind {
    usage,          ///< bad flags or bad input file: exit 2
    infrastructure, ///< runtime, git, network or filesystem trouble: exit 3
};

/// A problem that stops the current command; its message names the input, the place and what was
/// expected.
class Error : public std::runtime_error {
public:
    /// Create an error of `kind` with a complete, user-facing `message`.
    Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), m_kind(kind) {}
    /// The kind, used to pick the exit code.
    ErrorKind kind() const noexcept { return m_kind; }

private:
    ErrorKind m_kind;
};

/// Throw a usage/input error with `message`.
[[noreturn]] inline void throw_usage(const std::string& message) {
    throw Error(ErrorKind::usage, message);
}

/// Throw an infrastructure error with `message`.
[[noreturn]] inline void throw_infra(const std::string& message) {
    throw Error(ErrorKind::infrastructure, message);
}

} // namespace perfsweep
