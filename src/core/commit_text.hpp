#pragma once
// How commits are written for people (pure): one abbreviation rule and one format for a set of
// commits (one per repo), used by progress lines, text output, step outputs and reports.

#include <map>
#include <string>
#include <string_view>

namespace perfsweep::core {

/// Characters of an abbreviated commit id (git's default abbreviation).
inline constexpr std::size_t k_short_sha = 7;

/// The first k_short_sha characters of `sha` (all of it when shorter).
std::string short_sha(std::string_view sha);

/// A commit per repo as "jax@1a2b3c4 xla@5d6e7f8" (repo order, abbreviated, space-separated).
std::string format_commits(const std::map<std::string, std::string>& commits);

} // namespace perfsweep::core
