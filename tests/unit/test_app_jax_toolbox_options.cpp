// The JAX-Toolbox, Slurm-hourly and per-state output options of hourly and investigate, resolved
// from the option table (app/options, app/jax_toolbox).

#include "app/option_table.hpp"
#include "app/option_values.hpp"
#include "app/options.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace perfsweep;
using app::OptionValues;
using app::RawOption;
using app::ValueSource;

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

std::string usage_error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::usage);
        return e.what();
    }
    FAIL("expected a usage error");
    return "";
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
