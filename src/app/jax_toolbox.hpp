#pragma once
// Use case glue: turn the JAX-Toolbox flags (generation, where the sources live, bazel cache,
// extra build-jax.sh arguments, fix commits) into the runner settings of a source-state search,
// and run the hourly search on that runner.

#include "app/hourly.hpp"
#include "app/option_values.hpp"
#include "core/jax_toolbox.hpp"
#include "ports/files.hpp"
#include "ports/runner_config.hpp"
#include "ports/source_repo.hpp"

#include <optional>
#include <string>
#include <vector>

namespace perfsweep::app {

/// The JAX-Toolbox mode as the user asked for it (apply_jax_toolbox wants absolute paths).
struct JaxToolboxRequest {
    std::string generation = "auto";     ///< auto (from the image tag) | jax | nightly
    std::string sources = "image";       ///< image | mounted
    std::string bazel_cache;             ///< directory or http:// / grpc:// URL; "" default; "none"
    std::string default_cache;           ///< the directory used when bazel_cache is ""
    std::vector<std::string> build_args; ///< extra build-jax.sh arguments
    std::vector<std::string> cherry_picks; ///< NAME:COMMIT[,...] specs
    std::vector<core::JtbRepo> repos;      ///< the searched repos (absolute host clones)
    std::string outputs_host;              ///< per-state output root on the host ("" = none)
    std::string builds_host;               ///< the build store on the host ("" = none)
};

/// What applying the mode decided.
struct JaxToolboxApplied {
    core::JtbGeneration generation = core::JtbGeneration::jax;
    core::JtbPlan plan;
    std::vector<core::CherryPick> cherry_picks; ///< resolved to full SHAs
};

/// The JAX-Toolbox options of a command's `values` (hourly, investigate): nullopt without
/// --jax-toolbox, where the mode's other options are refused. `state_dir` places the default
/// bazel cache (STATE/bazel-cache, else ./perfsweep-bazel-cache). Paths stay as given.
std::optional<JaxToolboxRequest> resolve_jax_toolbox(const OptionValues& values,
                                                     const std::string& state_dir);

/// `path` made absolute against the current directory (unchanged when empty, "none" or a URL).
std::string absolute_path(const std::string& path);

/// Make the source-state runner `rc` of a search (`o`) ready for its environment once the options
/// are resolved: with `jtb` the JAX-Toolbox mode is applied (build command, mounts, output
/// directory as the benchmark sees it; `commits_probe`, when given and empty, gets the image's
/// commits probe); without it, in a container, the outputs directory is mounted at its own path
/// (the repos are, by the option resolution). o.outputs_dir becomes absolute. The build store
/// (o.builds) stays on only for a recipe that can use it (the mode's, or a --build with
/// {build_dir}), mounted where the runner is a container, with its recipe identity. Returns a
/// line describing the mode ("" without it). Usage errors name the option.
std::string prepare_source_runner(ports::RunnerConfig& rc, HourlyOptions& o,
                                  const std::optional<JaxToolboxRequest>& jtb,
                                  ports::SourceRepos& repos, ports::Files& files,
                                  std::string* commits_probe = nullptr);

/// `perfsweep hourly`'s search on its source-state runner `rc` (not --plan): prepare_source_runner;
/// with `jtb` (the mode wrote the build command) o.settings_key recomputed (journal_identity);
/// the mode's line to progress; then run_hourly on the runner adapters.runners makes of `rc`.
core::HourlyResult run_source_search(HourlyOptions& o, ports::RunnerConfig& rc,
                                     const std::optional<JaxToolboxRequest>& jtb,
                                     ports::Adapters& adapters);

/// Validate the request against `rc` (its image decides the generation for "auto"; a --build of
/// the user's own is refused, a runtime without containers too), resolve the fix commits in the
/// host clones, create the cache directory, and set rc's build command and mounts. Throws usage
/// errors naming the flag.
JaxToolboxApplied apply_jax_toolbox(const JaxToolboxRequest& request, ports::RunnerConfig& rc,
                                    ports::SourceRepos& repos, ports::Files& files);

} // namespace perfsweep::app
