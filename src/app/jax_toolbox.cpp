#include "app/jax_toolbox.hpp"

#include "app/options.hpp"
#include "util/enum_names.hpp"
#include "util/error.hpp"

#include <filesystem>

namespace perfsweep::app {

std::optional<JaxToolboxRequest> resolve_jax_toolbox(const OptionValues& v,
                                                     const std::string& state_dir) {
    if (!v.given("jax-toolbox")) {
        for (const OptionName name : std::initializer_list<OptionName>{
                 "jax-toolbox-sources", "bazel-cache", "build-jax-arg", "cherry-pick"})
            if (v.given(name))
                throw_usage(v.describe(name) +
                            " belongs to the JAX-Toolbox mode: add --jax-toolbox auto (or jax, "
                            "nightly)");
        return std::nullopt;
    }
    // JAX-Toolbox images carry no source commit in their labels: docker/metadata-action sets
    // org.opencontainers.image.revision to the JAX-Toolbox commit the workflow ran at.
    if (const auto labels = v.given_values().find("commits-label");
        labels != v.given_values().end())
        for (const auto& item : labels->second.values)
            if (item.ends_with("=org.opencontainers.image.revision"))
                throw_usage(v.describe("commits-label") + " '" + item +
                            "': JAX-Toolbox images set that label to the JAX-Toolbox commit their "
                            "workflow ran at (docker/metadata-action), not a " +
                            item.substr(0, item.find('=')) +
                            " commit; --jax-toolbox reads each nightly's commits from the image");
    JaxToolboxRequest q;
    q.generation = v.text("jax-toolbox");
    q.sources = v.text("jax-toolbox-sources");
    q.bazel_cache = v.text("bazel-cache");
    q.default_cache =
        state_dir.empty() ? std::string("perfsweep-bazel-cache") : state_dir + "/bazel-cache";
    q.build_args = v.list("build-jax-arg");
    q.cherry_picks = v.list("cherry-pick");
    return q;
}

std::string absolute_path(const std::string& path) {
    if (path.empty() || path.find("://") != std::string::npos || path == "none")
        return path;
    return std::filesystem::absolute(path).lexically_normal().string();
}

std::string prepare_source_runner(ports::RunnerConfig& rc, HourlyOptions& o,
                                  const std::optional<JaxToolboxRequest>& jtb,
                                  ports::SourceRepos& repos, ports::Files& files,
                                  std::string* commits_probe) {
    o.outputs_dir = absolute_path(o.outputs_dir);
    o.builds.dir = absolute_path(o.builds.dir);
    if (jtb) {
        auto q = *jtb;
        q.bazel_cache = absolute_path(q.bazel_cache);
        q.default_cache = absolute_path(q.default_cache);
        q.outputs_host = o.outputs_dir;
        q.builds_host = o.builds.keep > 0 ? o.builds.dir : std::string();
        q.repos.clear();
        for (const auto& r : o.repos)
            q.repos.push_back({r.name, absolute_path(r.path)});
        const auto applied = apply_jax_toolbox(q, rc, repos, files);
        o.outputs_dir_in_runner = applied.plan.outputs_dir;
        o.repo_paths_in_runner = applied.plan.source_dirs; // {path:NAME}, PERFSWEEP_PATH_NAME
        if (commits_probe && commits_probe->empty())
            *commits_probe = applied.plan.commits_probe;
        o.builds.dir_in_runner = applied.plan.builds_dir;
        o.builds.restore_step = true;
        o.builds.product = "product";
        if (applied.plan.builds_dir.empty())
            o.builds.dir.clear();
        else
            files.make_dirs(o.builds.dir);
        o.builds.recipe = build_recipe_identity(rc, {o.outputs_dir, o.builds.dir});
        return "JAX-Toolbox (" + std::string(core::to_string(applied.generation)) + " image " +
               rc.image + "): build-jax.sh in one kept container, sources: " + q.sources +
               ", fix commits: " + std::to_string(applied.cherry_picks.size());
    }
    const bool container = rc.runtime == "docker" || rc.runtime == "podman" ||
                           (rc.runtime == "slurm" && !rc.image.empty());
    if (container && !o.outputs_dir.empty()) // at the same path inside, like the repos
        rc.mounts.push_back(o.outputs_dir + ":" + o.outputs_dir);
    o.builds.recipe = build_recipe_identity(rc, {o.outputs_dir, o.builds.dir});
    if (container && !o.builds.dir.empty()) // at the same path inside, like the repos
        rc.mounts.push_back(o.builds.dir + ":" + o.builds.dir);
    return "";
}

JaxToolboxApplied apply_jax_toolbox(const JaxToolboxRequest& q, ports::RunnerConfig& rc,
                                    ports::SourceRepos& repos, ports::Files& files) {
    JaxToolboxApplied out;
    if (rc.runtime != "docker" && rc.runtime != "podman" && rc.runtime != "slurm")
        throw_usage("--jax-toolbox rebuilds inside the image: expected --runtime docker, podman "
                    "or slurm (pyxis), not '" +
                    rc.runtime + "'");
    if (!rc.build_command.empty())
        throw_usage("--jax-toolbox writes the build command itself (build-jax.sh with the "
                    "image's options); drop --build '" +
                    rc.build_command + "' (extra build-jax.sh options go in --build-jax-arg)");
    if (rc.image.empty())
        throw_usage("--jax-toolbox needs --image: the nightly to rebuild in, e.g. " +
                    core::jtb_image_template(core::JtbGeneration::jax));
    if (q.generation == "auto") {
        const auto g = core::jtb_generation_of_image(rc.image);
        if (!g)
            throw_usage("--jax-toolbox auto: the tag of --image '" + rc.image +
                        "' is neither jax-DATE (today's images) nor nightly-DATE (2023's); say "
                        "which layout it has with --jax-toolbox jax or --jax-toolbox nightly");
        out.generation = *g;
    } else if (const auto g = core::parse_jtb_generation(q.generation)) {
        out.generation = *g;
    } else {
        throw_usage("--jax-toolbox '" + q.generation + "': expected auto, " +
                    util::enum_choices(core::k_jtb_generation_names));
    }
    core::JtbSetup s;
    s.generation = out.generation;
    const auto sources = core::parse_jtb_sources(q.sources);
    if (!sources)
        throw_usage("--jax-toolbox-sources '" + q.sources + "': expected " +
                    util::enum_choices(core::k_jtb_sources_names));
    s.sources = *sources;
    s.repos = q.repos;
    s.image_date = core::jtb_date_of_image(rc.image);
    s.build_args = q.build_args;
    s.outputs_host = q.outputs_host;
    s.builds_host = q.builds_host;
    s.bazel_cache = q.bazel_cache.empty() ? q.default_cache : q.bazel_cache;
    if (s.bazel_cache == "none")
        s.bazel_cache.clear();
    for (const auto& spec : q.cherry_picks)
        for (auto& cp : core::parse_cherry_picks(spec, "--cherry-pick")) {
            const core::JtbRepo* repo = nullptr;
            for (const auto& r : q.repos)
                if (r.name == cp.repo)
                    repo = &r;
            if (!repo)
                throw_usage("--cherry-pick " + cp.repo + ":" + cp.commit + ": '" + cp.repo +
                            "' is not a --repo of this search");
            const auto clone = repos.open(repo->name, repo->host_path);
            cp.commit = clone->resolve(cp.commit); // throws naming the repo and the revision
            s.cherry_picks.push_back(cp);
        }
    out.plan = core::plan_jax_toolbox(s);
    out.cherry_picks = s.cherry_picks;
    if (!s.bazel_cache.empty() && s.bazel_cache.find("://") == std::string::npos)
        files.make_dirs(s.bazel_cache);
    if (!s.outputs_host.empty())
        files.make_dirs(s.outputs_host);
    rc.build_command = out.plan.build_command;
    rc.mounts.insert(rc.mounts.end(), out.plan.mounts.begin(), out.plan.mounts.end());
    return out;
}

core::HourlyResult run_source_search(HourlyOptions& o, ports::RunnerConfig& rc,
                                     const std::optional<JaxToolboxRequest>& jtb,
                                     ports::Adapters& adapters) {
    const auto mode = prepare_source_runner(rc, o, jtb, adapters.repos, adapters.files);
    if (jtb) // the mode wrote the build command
        o.settings_key = journal_identity(o, rc);
    if (!mode.empty())
        adapters.progress.line(mode);
    auto runner = adapters.runners.make(rc);
    return run_hourly(o, adapters, {*runner, *runner});
}

} // namespace perfsweep::app
