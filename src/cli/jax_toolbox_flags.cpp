#include "cli/jax_toolbox_flags.hpp"

#include "util/error.hpp"

#include <CLI/CLI.hpp>

#include <filesystem>

namespace perfsweep::cli {

void add_jax_toolbox_flags(CLI::App* cmd, JaxToolboxFlags& f) {
    cmd->add_option("--jax-toolbox", f.generation,
                    "Rebuild inside a JAX-Toolbox nightly with its own build-jax.sh: auto (from "
                    "the --image tag), jax (ghcr.io/nvidia/jax:jax-DATE, /opt/jax /opt/xla) or "
                    "nightly (2023's :nightly-DATE, /opt/*-source); writes the build command");
    cmd->add_option("--jax-toolbox-sources", f.sources,
                    "image (the image's clones, moved to each state by SHA; default) | mounted "
                    "(the --repo clones mounted over the image's source directories)");
    cmd->add_option("--bazel-cache", f.bazel_cache,
                    "Bazel cache that survives the container: a directory (default "
                    "STATE/bazel-cache, else ./perfsweep-bazel-cache), an http:// or grpc:// "
                    "remote cache, or none");
    cmd->add_option("--build-jax-arg", f.build_args,
                    "Extra build-jax.sh argument, checked against its option set (repeatable, "
                    "e.g. --build-jax-arg=--sm --build-jax-arg=9.0)");
    cmd->add_option("--cherry-pick", f.cherry_picks,
                    "NAME:COMMIT[,...]: fix commits applied onto every state that lacks them "
                    "(skipped where they do not apply; repeatable)");
}

bool jax_toolbox_on(const JaxToolboxFlags& f) {
    return !f.generation.empty();
}

std::string absolute_path(const std::string& path) {
    if (path.empty() || path.find("://") != std::string::npos || path == "none")
        return path;
    return std::filesystem::absolute(path).lexically_normal().string();
}

app::JaxToolboxRequest jax_toolbox_request(const JaxToolboxFlags& f,
                                           const std::vector<app::RepoSpec>& repos,
                                           const std::string& state_dir) {
    if (!jax_toolbox_on(f) && (!f.bazel_cache.empty() || !f.build_args.empty() ||
                               !f.cherry_picks.empty() || f.sources != "image"))
        throw_usage("--bazel-cache, --build-jax-arg, --cherry-pick and --jax-toolbox-sources "
                    "belong to the JAX-Toolbox mode: add --jax-toolbox auto (or jax, nightly)");
    app::JaxToolboxRequest q;
    q.generation = f.generation;
    q.sources = f.sources;
    q.bazel_cache = absolute_path(f.bazel_cache);
    q.default_cache = absolute_path(state_dir.empty() ? std::string("perfsweep-bazel-cache")
                                                      : state_dir + "/bazel-cache");
    q.build_args = f.build_args;
    q.cherry_picks = f.cherry_picks;
    for (const auto& r : repos)
        q.repos.push_back({r.name, absolute_path(r.path)});
    return q;
}

} // namespace perfsweep::cli
