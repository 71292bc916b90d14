#pragma once
// Use case: the hourly and commit narrowing stages over several source repos.

#include "app/build_store.hpp"
#include "app/instruments.hpp"
#include "core/hourly_result.hpp"
#include "core/sweep_plan.hpp"
#include "ports/adapters.hpp"
#include "util/enum_names.hpp"
#include "util/time.hpp"

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace perfsweep::app {

/// One --repo with its ref.
struct RepoSpec {
    std::string name;
    std::string path;
    std::string ref = "origin/main";
};

/// The hourly stage's names of its strategies: bisect (fewest builds), adaptive, and sequential
/// (the sweep planner's exhaustive: every state in order).
inline constexpr util::EnumName<core::SweepStrategy> k_hourly_strategy_names[] = {
    {core::SweepStrategy::bisect, "bisect"},
    {core::SweepStrategy::adaptive, "adaptive"},
    {core::SweepStrategy::exhaustive, "sequential"},
};

/// The significance level of the hourly and commit stages' comparisons.
inline constexpr double k_hourly_alpha = 0.01;

/// What the hourly stage's runs are keyed by in the evidence store (core/evidence), and which
/// evidence it may reuse.
struct EvidenceSettings {
    bool reuse = true;     ///< ask the evidence before building or running a state
    std::string recipe;    ///< the build recipe (--build), recorded with each run
    std::string image;     ///< the image the states are rebuilt in ("" = none)
    std::string benchmark; ///< the series: benchmark name
    std::string metric;    ///< and metric
    /// images whose own builds' values count for the same sources after one confirming run
    /// (investigate: the last good nightly, and the first bad one when only the sources changed)
    std::vector<std::string> admissible_images;
};

/// Everything `perfsweep hourly` was asked to do.
struct HourlyOptions {
    std::vector<RepoSpec> repos;
    bool fetch = false;
    std::string token_env = "PERFSWEEP_GIT_TOKEN";   ///< env var holding an HTTPS token for --fetch
    std::optional<util::Time> from;                  ///< window start (last good time)
    std::optional<util::Time> to;                    ///< window end (first bad time)
    std::map<std::string, std::string> good_commits; ///< --good-commits (instead of --from)
    std::map<std::string, std::string> bad_commits;  ///< --bad-commits (instead of --to)
    std::chrono::seconds step{3600};                 ///< grid step
    bool any_parent = false;
    core::SweepStrategy strategy = core::SweepStrategy::bisect; ///< k_hourly_strategy_names
    int repeats = 3;
    int max_repeats = 12; ///< undecided states and window ends double repeats up to this
    /// adaptive: shortest excursion, in distinct states, that the stride always samples (each
    /// sample costs a build, so the hourly stride is wider than the daily one)
    int min_span = 14;
    std::string state_dir;    ///< resumable state ("" = none)
    std::string settings_key; ///< journal_identity (app/options.hpp); a state dir must match it
    int max_builds = 0;       ///< builds of the stage in all (resumed ones too); 0 = unlimited
    std::chrono::seconds max_time{0}; ///< wall-clock budget; 0 = unlimited
    bool to_commit = false;
    core::Direction direction = core::Direction::higher_is_better; ///< of the metric
    /// exit-code mode: values are failure indicators, compared with Fisher's exact test; an exit
    /// status >= 128 aborts the stage (the state stays resumable).
    bool exit_code_mode = false;
    std::vector<std::string> secrets; ///< values masked in log excerpts (exit-code mode)
    /// Each tested state gets OUTPUTS/<repo>-<sha>_<repo>-<sha>... ({output_dir},
    /// PERFSWEEP_OUTPUT_DIR) for dumps and profiles; OUTPUTS/last-good and first-bad link to the
    /// final pair. "" = none.
    std::string outputs_dir;
    std::string outputs_dir_in_runner; ///< outputs_dir as the benchmark sees it ("" = the same)
    /// repo → its tree as the build and benchmark see it ({path:NAME}); absent = the host path
    std::map<std::string, std::string> repo_paths_in_runner;
    EvidenceSettings evidence; ///< with SourceInstruments::evidence
    /// Finished builds kept and put back on a revisit instead of a rebuild (app/build_store);
    /// on when builds.dir is set (the recipe uses {build_dir}, or --jax-toolbox).
    BuildStoreSettings builds;
};

/// Resolve the states, test them with the chosen strategy, narrow to a window and, with
/// to_commit, to a culprit commit: sources from `adapters.repos`, builds by `with.builder`, runs
/// by `with.runner`. Throws perfsweep::Error on bad input or unusable repos.
core::HourlyResult run_hourly(const HourlyOptions& options, ports::Adapters& adapters,
                              const SourceInstruments& with);

/// `hourly --plan`: resolve and list the states of the window, nothing built or run.
core::HourlyResult plan_hourly(const HourlyOptions& options, ports::Adapters& adapters);

} // namespace perfsweep::app
