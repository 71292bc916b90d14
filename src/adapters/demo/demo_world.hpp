#pragma once
// The demo world maker: turns core::demo_script() into real git repos (libgit2) and nightly
// snapshot directories.

#include "ports/demo_world.hpp"

namespace perfsweep::adapters {

/// Creates the demo world on the local filesystem with libgit2.
class GitDemoWorldMaker final : public ports::DemoWorldMaker {
public:
    /// Build the repos, refs (main, origin/main, PR branches) and nightly snapshots under `root`.
    ports::DemoWorld create(const std::string& root) override;
};

} // namespace perfsweep::adapters
