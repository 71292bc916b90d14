#pragma once
// The tail of a benchmark log for a report: ANSI stripped, secrets masked, safe to print in
// GitHub Actions and to fence in markdown (pure).

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace perfsweep::report {

/// The last `max_lines` non-empty-trailing lines of `log`, ANSI escapes and carriage returns
/// removed, each occurrence of a `secrets` value (4 characters or more) replaced by "***", lines
/// cut at 300 characters.
std::string log_excerpt(std::string_view log, const std::vector<std::string>& secrets,
                        std::size_t max_lines = 20);

/// `text` inside a backtick fence longer than any backtick run in it, so it cannot close early.
std::string markdown_fence(std::string_view text);

/// Every line of `text` prefixed with `prefix` (e.g. "  | "), so untrusted lines can never start
/// a GitHub Actions workflow command (`::...`) on stdout.
std::string prefix_lines(std::string_view text, std::string_view prefix);

} // namespace perfsweep::report
