#pragma once
// Text that ends up in a GitHub Actions log is parsed by the runner for workflow commands: a line
// that starts with "::" after leading whitespace (`::set-output`, `::add-mask::`, `::error::`,
// `::stop-commands::`), or that contains "##[" anywhere (the legacy syntax). Untrusted text
// (labels, benchmark names, commit subjects, error messages quoting inputs) printed on a line of
// its own must be made inert first.

#include <string>
#include <string_view>

namespace perfsweep::util {

/// `text` as ONE inert log line: CR and LF become spaces; a "::" that only whitespace or
/// non-ASCII bytes precede gets "> " in front; every "##[" becomes "## [".
std::string inert_line(std::string_view text);

/// Every line of `text` made inert (line breaks kept; CR alone becomes LF).
std::string inert_lines(std::string_view text);

} // namespace perfsweep::util
