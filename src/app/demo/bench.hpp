#pragma once
// The demo's simulated benchmark: a real child process (the perfsweep binary itself) whose MLUPS
// depends on the source files of the build it is pointed at.

#include "ports/files.hpp"

#include <string>

namespace perfsweep::app {

/// Where the simulated build's sources are: a nightly snapshot dir, or two repo worktrees.
struct DemoBenchSources {
    std::string nightly;   ///< nightly snapshot dir (holds framework/ and compiler/), or empty
    std::string framework; ///< framework worktree (when `nightly` is empty)
    std::string compiler;  ///< compiler worktree (when `nightly` is empty)
};

/// Outcome of a demo benchmark step: text to print and how the process should end.
struct DemoBenchOutcome {
    std::string output; ///< what the benchmark prints
    int exit_code = 0;  ///< process exit code
    bool crash = false; ///< end by a real crash (SIGABRT), as a broken nightly does
};

/// Measure once: prints "MLUPS: <v>" (coloured, like XLB); the noise is seeded by `label`,
/// `repeat` and `nonce` (0 = deterministic).
DemoBenchOutcome demo_bench_measure(ports::Files& files, const DemoBenchSources& src,
                                    const std::string& label, int repeat,
                                    unsigned long long nonce = 0);

/// Build step: fails (exit 1) for compiler states whose build is broken.
DemoBenchOutcome demo_bench_build(ports::Files& files, const DemoBenchSources& src);

} // namespace perfsweep::app
