#pragma once
// libgit2 implementation of ports::SourceRepo (RAII handles; no git subprocess).

#include "ports/source_repo.hpp"

#include <memory>
#include <string>

namespace perfsweep::adapters {

/// Initialise libgit2 once in this process, at the first use (its init loads the system's CA
/// bundle: tens of milliseconds a process that never touches git would pay); shut down at exit.
void ensure_libgit2();

/// Open the clone at `path` as repo `name`. Throws a usage error when it is not a git repository
/// with a worktree.
std::unique_ptr<ports::SourceRepo> open_libgit2_repo(const std::string& name,
                                                     const std::string& path);

} // namespace perfsweep::adapters
