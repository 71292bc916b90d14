#pragma once
// Real git repos for tests: commands as one author at chosen times.

#include <string>
#include <vector>

namespace perfsweep::test {

/// Run `git -C dir args...` as Dev <dev@example.com> with author and committer date `when`
/// (Unix seconds, UTC); return its stdout trimmed. The test fails when git fails.
std::string git_at(const std::string& dir, const std::vector<std::string>& args, long long when);

} // namespace perfsweep::test
