#pragma once
// libgit2 implementation of ports::SourceRepo (RAII handles; no git subprocess).

#include "ports/source_repo.hpp"

#include <memory>
#include <string>

namespace perfsweep::adapters {

/// Initialises libgit2 for the life of the object; create one in main() before any repo.
class Libgit2Guard {
public:
    /// git_libgit2_init.
    Libgit2Guard();
    /// git_libgit2_shutdown.
    ~Libgit2Guard();
    Libgit2Guard(const Libgit2Guard&) = delete;
    Libgit2Guard& operator=(const Libgit2Guard&) = delete;
};

/// Open the clone at `path` as repo `name`. Throws a usage error when it is not a git repository
/// with a worktree.
std::unique_ptr<ports::SourceRepo> open_libgit2_repo(const std::string& name,
                                                     const std::string& path);

} // namespace perfsweep::adapters
