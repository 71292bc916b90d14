// The JAX-Toolbox, Slurm-hourly and per-state output options of hourly and investigate, resolved
// from the option table (app/options, app/jax_toolbox).

#include "app/jax_toolbox.hpp"
#include "app/option_table.hpp"
#include "app/option_values.hpp"
#include "app/options.hpp"
#include "support/command_values.hpp"
#include "support/fakes/world.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

using namespace perfsweep;
using app::OptionValues;
using app::RawOption;
using app::ValueSource;

using test::usage_error_of;

namespace {

OptionValues values_of(const std::string& command, const std::vector<RawOption>& raw) {
    OptionValues v(*app::find_command_spec(command));
    std::vector<std::string> warnings;
    app::assign_options(v, raw, warnings);
    v.check();
    return v;
}

RawOption opt(const std::string& name, std::vector<std::string> values = {"true"}) {
    return {name, std::move(values), ValueSource::command_line};
}

const std::vector<RawOption> k_search = {opt("repo", {"jax=/s/jax", "xla=/s/xla"}),
                                         opt("test", {"bench"}),
                                         opt("image", {"ghcr.io/nvidia/jax:jax-2024-05-01"})};

std::vector<RawOption> with(std::vector<RawOption> a, const std::vector<RawOption>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

} // namespace

TEST_CASE("hourly --jax-toolbox: no --build, docker by default, the mode mounts what it needs",
          "[options][jax-toolbox]") {
    const auto r = app::resolve_hourly(
        values_of("hourly", with(k_search, {opt("jax-toolbox", {"auto"}), opt("state", {"st"}),
                                            opt("cherry-pick", {"xla:abc", "jax:def"}),
                                            opt("build-jax-arg", {"--sm=9.0"})})));
    REQUIRE(r.jax_toolbox);
    CHECK(r.jax_toolbox->generation == "auto");
    CHECK(r.jax_toolbox->sources == "image");
    CHECK(r.jax_toolbox->default_cache == "st/bazel-cache");
    CHECK(r.jax_toolbox->cherry_picks == std::vector<std::string>{"xla:abc", "jax:def"});
    CHECK(r.jax_toolbox->build_args == std::vector<std::string>{"--sm=9.0"});
    REQUIRE(r.runner);
    CHECK(r.runner->runtime == "docker");
    CHECK(r.runner->kept_container);
    CHECK(r.runner->build_command.empty()); // written by the mode when it is applied
    CHECK(r.runner->mounts.empty());        // the host clones are not mounted at host paths
    CHECK(r.options.outputs_dir == "perfsweep-logs/outputs");

    // Without the mode the same search needs --build, and mounts the clones at their paths.
    CHECK_THAT(usage_error_of([] { app::resolve_hourly(values_of("hourly", k_search)); }),
               Catch::Contains("--build and --test are required") &&
                   Catch::Contains("--jax-toolbox"));
    const auto plain = app::resolve_hourly(
        values_of("hourly", with(k_search, {opt("runtime", {"docker"}), opt("build", {"make"}),
                                            opt("outputs", {"none"})})));
    CHECK(plain.runner->mounts == std::vector<std::string>{"/s/jax:/s/jax", "/s/xla:/s/xla"});
    CHECK(plain.options.outputs_dir.empty());
    CHECK_FALSE(plain.jax_toolbox);
}

TEST_CASE("the JAX-Toolbox options are refused without --jax-toolbox", "[options][jax-toolbox]") {
    for (const auto& [name, value] :
         std::vector<std::pair<std::string, std::string>>{{"cherry-pick", "xla:abc"},
                                                          {"bazel-cache", "/c"},
                                                          {"build-jax-arg", "--debug"},
                                                          {"jax-toolbox-sources", "mounted"}}) {
        INFO(name);
        const auto msg = usage_error_of([&] {
            app::resolve_hourly(
                values_of("hourly", with(k_search, {opt("build", {"make"}), opt(name, {value})})));
        });
        CHECK_THAT(msg, Catch::Contains("--" + name) && Catch::Contains("--jax-toolbox auto"));
    }
}

TEST_CASE("hourly on Slurm holds one allocation: salloc options and its time limit",
          "[options][jax-toolbox][slurm]") {
    const auto r = app::resolve_hourly(values_of(
        "hourly", with(k_search, {opt("runtime", {"slurm"}), opt("jax-toolbox", {"jax"}),
                                  opt("salloc-arg", {"--partition=gpu", "--account=a"}),
                                  opt("max-time", {"2h"}), opt("srun-arg", {"--exclusive"})})));
    REQUIRE(r.runner);
    CHECK(r.runner->runtime == "slurm");
    CHECK(r.runner->kept_container);
    CHECK(r.runner->salloc_args == std::vector<std::string>{"--partition=gpu", "--account=a"});
    CHECK(r.runner->allocation_time_s == 2 * 3600 + 900);
    CHECK(r.runner->srun_args == std::vector<std::string>{"--exclusive"});
    CHECK_THAT(usage_error_of([] {
                   app::resolve_hourly(values_of(
                       "hourly", with(k_search, {opt("runtime", {"docker"}), opt("build", {"b"}),
                                                 opt("salloc-arg", {"--partition=gpu"})})));
               }),
               Catch::Contains("--salloc-arg needs --runtime slurm"));
}

TEST_CASE("investigate --jax-toolbox: --repo without --build, outputs per state",
          "[options][jax-toolbox][investigate]") {
    const auto r = app::resolve_investigate(
        values_of("investigate",
                  with(k_search, {opt("history", {"h.jsonl"}), opt("runtime", {"docker"}),
                                  opt("jax-toolbox", {"auto"}), opt("bazel-cache", {"none"}),
                                  opt("output-dir", {"out"})})),
        {});
    REQUIRE(r.jax_toolbox);
    CHECK(r.jax_toolbox->bazel_cache == "none");
    CHECK(r.options.hourly_runner.kept_container);
    CHECK(r.options.hourly_runner.mounts.empty());
    CHECK(r.options.hourly_options.outputs_dir == "out/states");
}

namespace {

/// The runner settings `hourly --jax-toolbox auto --image IMAGE --build-jax-arg ARG...` gets, or
/// the usage error applying the mode gives ("" when none).
struct Applied {
    ports::RunnerConfig runner;
    std::string error;
    app::BuildStoreSettings builds; ///< the search's kept builds
};

Applied apply_hourly(const std::string& image, const std::vector<std::string>& build_args) {
    fakes::World w;
    std::vector<RawOption> raw = {opt("repo", {"jax=/s/jax", "xla=/s/xla"}), opt("test", {"bench"}),
                                  opt("image", {image}), opt("jax-toolbox", {"auto"}),
                                  opt("state", {"/st"})};
    if (!build_args.empty())
        raw.push_back(opt("build-jax-arg", build_args));
    Applied out;
    try {
        auto r = app::resolve_hourly(values_of("hourly", raw));
        app::prepare_source_runner(*r.runner, r.options, r.jax_toolbox, w.repos, w.files);
        out.runner = *r.runner;
        out.builds = r.options.builds;
    } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::usage);
        out.error = e.what();
    }
    return out;
}

} // namespace

TEST_CASE("hourly --jax-toolbox on 2023 nightlies: the cache is passed with --bazel-cache, out of "
          "clean()'s reach",
          "[options][jax-toolbox]") {
    // build-jax.sh's clean() (--clean) removes ~/.cache/bazel: a cache mounted there is a mount
    // point, the removal fails with EBUSY and the build with it, after emptying the cache.
    const auto a = apply_hourly("ghcr.io/nvidia/jax:nightly-2023-08-24", {"--clean"});
    INFO(a.error);
    REQUIRE(a.error.empty());
    CHECK_THAT(a.runner.build_command,
               Catch::Contains("'build-jax.sh' '--bazel-cache' '/perfsweep/bazel-cache' "
                               "'--src-path-jax' '/opt/jax-source' '--src-path-xla' "
                               "'/opt/xla-source' '--clean'"));
    CHECK(std::count(a.runner.mounts.begin(), a.runner.mounts.end(),
                     "/st/bazel-cache:/perfsweep/bazel-cache") == 1);
    for (const auto& m : a.runner.mounts)
        CHECK_THAT(m, !Catch::Contains(".cache/bazel"));
    // The 2023 script has source-path and cache options: they are perfsweep's to set.
    CHECK_THAT(apply_hourly("ghcr.io/nvidia/jax:nightly-2023-08-24", {"--src-path-jax=/x"}).error,
               Catch::Contains("perfsweep sets the source paths"));
}

TEST_CASE("hourly --jax-toolbox: the extra build-jax.sh arguments are those of the nightly's "
          "script version",
          "[options][jax-toolbox]") {
    // -r/--release since 2025-12-17; --cpu-arch answered "UNKNOWN OPTION" since 2026-01-22.
    CHECK(apply_hourly("ghcr.io/nvidia/jax:jax-2026-02-01", {"-r"}).error.empty());
    CHECK_THAT(apply_hourly("ghcr.io/nvidia/jax:jax-2026-02-01", {"--cpu-arch=amd64"}).error,
               Catch::Contains("5f2395b4") && Catch::Contains("UNKNOWN OPTION --cpu-arch"));
    CHECK(apply_hourly("ghcr.io/nvidia/jax:jax-2025-06-01", {"--cpu-arch", "amd64"}).error.empty());
    CHECK_THAT(apply_hourly("ghcr.io/nvidia/jax:jax-2025-06-01", {"--release"}).error,
               Catch::Contains("087ff076") && Catch::Contains("unrecognized option '--release'"));
}

TEST_CASE("investigate --jax-toolbox refuses the label that names a JAX-Toolbox commit",
          "[options][jax-toolbox][investigate]") {
    // docker/metadata-action sets org.opencontainers.image.revision to the workflow's commit.
    const auto msg = usage_error_of([] {
        app::resolve_investigate(
            values_of(
                "investigate",
                with(k_search, {opt("history", {"h.jsonl"}), opt("runtime", {"docker"}),
                                opt("jax-toolbox", {"auto"}),
                                opt("commits-label", {"jax=org.opencontainers.image.revision"})})),
            {});
    });
    CHECK_THAT(msg, Catch::Contains("JAX-Toolbox commit") &&
                        Catch::Contains("reads each nightly's commits from the image"));
}

TEST_CASE("hourly --jax-toolbox keeps each state's /opt/jaxlibs in STATE/builds on today's "
          "images, not on 2023's",
          "[options][jax-toolbox][builds]") {
    const auto a = apply_hourly("ghcr.io/nvidia/jax:jax-2026-03-23", {});
    INFO(a.error);
    REQUIRE(a.error.empty());
    CHECK_THAT(a.runner.build_command,
               Catch::Contains("'keep' '{build_dir}' '{build_mode}' '/opt/jaxlibs' 'build' "
                               "'build-jax.sh'"));
    CHECK(std::count(a.runner.mounts.begin(), a.runner.mounts.end(),
                     "/st/builds:/perfsweep/builds") == 1);
    CHECK(a.builds.dir == "/st/builds");
    CHECK(a.builds.dir_in_runner == "/perfsweep/builds");
    CHECK(a.builds.restore_step);
    CHECK(a.builds.keep == 12);
    CHECK_THAT(a.builds.recipe, Catch::Contains("image ghcr.io/nvidia/jax:jax-2026-03-23") &&
                                    Catch::Contains("/st/bazel-cache:/perfsweep/bazel-cache") &&
                                    !Catch::Contains("/st/builds"));
    // 2023: installed wheel copies, nothing kept; a product elsewhere: nothing kept.
    for (const auto& b :
         {apply_hourly("ghcr.io/nvidia/jax:nightly-2023-08-24", {}),
          apply_hourly("ghcr.io/nvidia/jax:jax-2026-03-23", {"--build-path-jaxlib=/x"})}) {
        REQUIRE(b.error.empty());
        CHECK(b.builds.dir.empty());
        CHECK_THAT(b.runner.build_command, !Catch::Contains("'keep'"));
    }
}

TEST_CASE("a --build of the user's own keeps builds only when it writes them to {build_dir}; "
          "investigate's store is the investigation's",
          "[options][builds]") {
    auto hourly = [](const std::string& build) {
        fakes::World w;
        auto r = app::resolve_hourly(values_of(
            "hourly", {opt("repo", {"xla=/s/xla"}), opt("test", {"bench"}), opt("build", {build}),
                       opt("state", {"/st"}), opt("keep-builds", {"3"})}));
        app::prepare_source_runner(*r.runner, r.options, r.jax_toolbox, w.repos, w.files);
        return r.options.builds;
    };
    CHECK(hourly("make -C {path:xla}").dir.empty());
    const auto kept = hourly("make -C {path:xla} PREFIX={build_dir}");
    CHECK(kept.dir == "/st/builds");
    CHECK(kept.keep == 3);
    CHECK_FALSE(kept.restore_step);
    CHECK(hourly("sh build.sh {build_dir} {build_mode}").restore_step);
    const auto inv = app::resolve_investigate(
        values_of("investigate",
                  with(k_search, {opt("history", {"h.jsonl"}), opt("runtime", {"docker"}),
                                  opt("jax-toolbox", {"auto"}), opt("state", {"ist"})})),
        {});
    CHECK(inv.options.hourly_options.builds.dir == "ist/builds"); // every hourly stage's
    REQUIRE(inv.jax_toolbox);
    CHECK(inv.jax_toolbox->default_cache == "ist/bazel-cache"); // every state's bazel cache
}
