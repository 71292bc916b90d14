#pragma once
// The JAX-Toolbox flags shared by hourly and investigate (--jax-toolbox, --jax-toolbox-sources,
// --bazel-cache, --build-jax-arg, --cherry-pick) and their translation into the app's request.

#include "app/hourly.hpp"
#include "app/jax_toolbox.hpp"

#include <string>
#include <vector>

namespace CLI {
class App;
} // namespace CLI

namespace perfsweep::cli {

/// The flags as given.
struct JaxToolboxFlags {
    std::string generation; ///< "" = mode off; auto | jax | nightly
    std::string sources = "image";
    std::string bazel_cache;
    std::vector<std::string> build_args;
    std::vector<std::string> cherry_picks;
};

/// Register the flags on `cmd`.
void add_jax_toolbox_flags(CLI::App* cmd, JaxToolboxFlags& f);

/// True when --jax-toolbox was given.
bool jax_toolbox_on(const JaxToolboxFlags& f);

/// The app request: repo paths and directories made absolute; the default bazel cache is
/// STATE/bazel-cache with a state dir, else ./perfsweep-bazel-cache.
app::JaxToolboxRequest jax_toolbox_request(const JaxToolboxFlags& f,
                                           const std::vector<app::RepoSpec>& repos,
                                           const std::string& state_dir);

/// `path` made absolute against the current directory (unchanged when empty or a URL).
std::string absolute_path(const std::string& path);

} // namespace perfsweep::cli
