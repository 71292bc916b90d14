#pragma once
// The offline demo's scripted history (pure data): two repos, "framework" (like JAX) and
// "compiler" (like XLA), ~10 days of commits with PR branches merged hours later, an earlier
// framework commit that costs 2 %, a compiler commit (inside a PR) that costs 7 %, a few commits
// whose build fails, and one broken nightly.

#include "util/time.hpp"

#include <map>
#include <string>
#include <vector>

namespace perfsweep::core {

/// One commit to create. A `pr_commit` is made on a side branch off the main tip at its time; a
/// `merge` merges the named PR branch into main. Other commits go straight onto main.
struct DemoCommit {
    enum class Kind { direct, pr_commit, merge };
    std::string repo;
    util::UnixSeconds time = 0;
    Kind kind = Kind::direct;
    std::string pr;     ///< PR branch name for pr_commit / merge
    std::string author; ///< "Name <email>"
    std::string message;
    std::map<std::string, std::string> files; ///< file name → new content (flat, no dirs)
};

/// The whole scripted world.
struct DemoScript {
    std::vector<DemoCommit> commits; ///< in creation order (time order per branch)
    std::vector<std::string> nightly_dates;
    util::UnixSeconds nightly_build_offset =
        0; ///< nightly D contains commits up to D 00:00Z + this
    std::string broken_nightly;
    std::map<std::string, std::map<std::string, std::string>> initial_files; ///< repo → files
};

/// The deterministic demo script.
DemoScript demo_script();

/// Simulated MLUPS of a build whose source files are `framework` and `compiler` (file name →
/// content), for run `label`/`repeat`: 577.3 scaled by the layout and vector-width factors plus a
/// deterministic ~0.15 % noise. Returns a negative value when the sources do not describe a build.
double demo_mlups(const std::map<std::string, std::string>& framework,
                  const std::map<std::string, std::string>& compiler, const std::string& label,
                  int repeat);

/// True when the compiler sources are in a state whose build fails.
bool demo_build_fails(const std::map<std::string, std::string>& compiler);

} // namespace perfsweep::core
