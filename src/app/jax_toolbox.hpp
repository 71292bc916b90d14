#pragma once
// Use case glue: turn the JAX-Toolbox flags (generation, where the sources live, bazel cache,
// extra build-jax.sh arguments, fix commits) into the runner settings of a source-state search.

#include "core/jax_toolbox.hpp"
#include "ports/files.hpp"
#include "ports/runner_config.hpp"
#include "ports/source_repo.hpp"

#include <string>
#include <vector>

namespace perfsweep::app {

/// The JAX-Toolbox mode as the user asked for it (paths already absolute).
struct JaxToolboxRequest {
    std::string generation = "auto";     ///< auto (from the image tag) | jax | nightly
    std::string sources = "image";       ///< image | mounted
    std::string bazel_cache;             ///< directory or http:// / grpc:// URL; "" default; "none"
    std::string default_cache;           ///< the directory used when bazel_cache is ""
    std::vector<std::string> build_args; ///< extra build-jax.sh arguments
    std::vector<std::string> cherry_picks; ///< NAME:COMMIT[,...] specs
    std::vector<core::JtbRepo> repos;      ///< the searched repos (absolute host clones)
    std::string outputs_host;              ///< per-state output root on the host ("" = none)
};

/// What applying the mode decided.
struct JaxToolboxApplied {
    core::JtbGeneration generation = core::JtbGeneration::jax;
    core::JtbPlan plan;
    std::vector<core::CherryPick> cherry_picks; ///< resolved to full SHAs
};

/// Validate the request against `rc` (its image decides the generation for "auto"; a --build of
/// the user's own is refused, a runtime without containers too), resolve the fix commits in the
/// host clones, create the cache directory, and set rc's build command and mounts. Throws usage
/// errors naming the flag.
JaxToolboxApplied apply_jax_toolbox(const JaxToolboxRequest& request, ports::RunnerConfig& rc,
                                    const ports::OpenSourceRepo& open_repo, ports::Files& files);

} // namespace perfsweep::app
