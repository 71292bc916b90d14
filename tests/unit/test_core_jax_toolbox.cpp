#include "core/command_template.hpp"
#include "core/jax_toolbox.hpp"
#include "support/command_values.hpp"

#include <catch2/catch.hpp>

#include <map>
#include <stdexcept>

using namespace perfsweep;
using core::JtbGeneration;
using Words = std::vector<std::string>;

namespace {

core::JtbSetup setup(JtbGeneration g, core::JtbSources s) {
    core::JtbSetup st;
    st.generation = g;
    st.sources = s;
    st.repos = {{"jax", "/src/jax"}, {"xla", "/src/xla"}};
    st.bazel_cache = "/cache/bazel";
    return st;
}

/// The build command as the runner would execute it for a state.
Words build_argv(const core::JtbPlan& plan) {
    const auto cmd = core::parse_command(plan.build_command, "--build");
    return core::substitute(cmd, {{"commit:jax", "aaaa"}, {"commit:xla", "bbbb"}});
}

} // namespace

TEST_CASE("JAX-Toolbox image generations come from the tag", "[core][jax-toolbox]") {
    using core::jtb_generation_of_image;
    CHECK(jtb_generation_of_image("ghcr.io/nvidia/jax:jax-2024-05-01") == JtbGeneration::jax);
    CHECK(jtb_generation_of_image("ghcr.io/nvidia/jax:jax-{date}") == JtbGeneration::jax);
    CHECK(jtb_generation_of_image("ghcr.io/nvidia/jax:nightly-2023-08-24") ==
          JtbGeneration::nightly);
    CHECK(jtb_generation_of_image("localhost:5000/jax:nightly-{date}") == JtbGeneration::nightly);
    CHECK_FALSE(jtb_generation_of_image("ghcr.io/nvidia/jax:maxtext-2024-05-01"));
    CHECK_FALSE(jtb_generation_of_image("localhost:5000/jax-nightly")); // a port is not a tag
    CHECK_FALSE(jtb_generation_of_image("ghcr.io/nvidia/jax"));
    CHECK(core::jtb_image_template(JtbGeneration::jax) == "ghcr.io/nvidia/jax:jax-{date}");
    CHECK(core::jtb_image_template(JtbGeneration::nightly) == "ghcr.io/nvidia/jax:nightly-{date}");
    CHECK(core::jtb_source_dir(JtbGeneration::jax, "xla") == "/opt/xla");
    CHECK(core::jtb_source_dir(JtbGeneration::nightly, "xla") == "/opt/xla-source");
    CHECK(core::parse_jtb_generation("nightly") == JtbGeneration::nightly);
    CHECK_FALSE(core::parse_jtb_generation("2023"));
    CHECK(core::parse_jtb_sources("mounted") == core::JtbSources::mounted);
    CHECK_FALSE(core::parse_jtb_sources("host"));
}

namespace {

/// The build-jax.sh version of JAX-Toolbox commit `commit`.
const core::BuildJaxScript& script(const std::string& commit) {
    for (const auto& s : core::build_jax_scripts())
        if (s.commit == commit)
            return s;
    FAIL("no build-jax.sh version " << commit);
    throw std::logic_error("unreachable");
}

/// The commits of the versions a nightly of `g` dated `date` may carry.
Words versions_of(JtbGeneration g, const std::string& date) {
    Words out;
    for (const auto* s : core::build_jax_scripts_of(g, date))
        out.push_back(s->commit);
    return out;
}

} // namespace

TEST_CASE("build-jax.sh arguments are checked as its getopt parses them", "[core][jax-toolbox]") {
    const auto& jax = script("ed544116");
    const auto& nightly = script("1d80d188");
    using core::check_build_jax_args;
    CHECK(check_build_jax_args(jax, {"--sm", "9.0", "--build-param=--bazel_options=--jobs=8"})
              .empty());
    CHECK(check_build_jax_args(jax, {"--bazel-cache", "/c", "--bazel-cache-namespace=x"}).empty());
    CHECK(check_build_jax_args(jax, {"--debu", "--no-inst", "-h"}).empty()); // unique prefixes
    CHECK(check_build_jax_args(jax, {"--", "anything"}).empty());
    // The three wrong forms perfsweep's own docs used to show.
    CHECK(check_build_jax_args(jax, {"--xla-source-dir", "/x"}) ==
          "unrecognized option '--xla-source-dir'");
    CHECK(check_build_jax_args(jax, {"--xla-src", "/x"}) == "unrecognized option '--xla-src'");
    CHECK_THAT(check_build_jax_args(jax, {"--src-path", "/x"}),
               Catch::Contains("ambiguous") && Catch::Contains("--src-path-jax --src-path-xla"));
    CHECK_THAT(check_build_jax_args(jax, {"--bazel", "/x"}), Catch::Contains("ambiguous"));
    CHECK(check_build_jax_args(jax, {"--sm"}) == "option '--sm' requires an argument");
    CHECK(check_build_jax_args(jax, {"--clean=yes"}) ==
          "option '--clean' doesn't allow an argument");
    CHECK(check_build_jax_args(jax, {"-x"}) == "invalid option -- 'x'");
    CHECK_THAT(check_build_jax_args(jax, {"/opt/jax"}), Catch::Contains("positional"));
    // The 2023 script has source paths and a cache option too (since 2023-04 and 2023-05).
    CHECK(check_build_jax_args(nightly, {"--src-path-jax", "/x", "--src-path-xla=/y"}).empty());
    CHECK(check_build_jax_args(nightly, {"--bazel-cache", "/x"}).empty());
    CHECK(check_build_jax_args(nightly, {"--jaxlib_only", "--sm=all", "--dry"}).empty());
    CHECK(check_build_jax_args(nightly, {"--install"}) == "unrecognized option '--install'");
    CHECK(check_build_jax_args(nightly, {"-r"}) == "invalid option -- 'r'");
}

TEST_CASE("build-jax.sh options are those of the script version the nightly carries",
          "[core][jax-toolbox]") {
    using core::check_build_jax_args;
    // -r/--release since 7f7ff35a (2025-12-17); with `-o h,r` getopt also takes "-,", which the
    // script's case does not handle.
    CHECK(check_build_jax_args(script("087ff076"), {"-r"}) == "invalid option -- 'r'");
    CHECK(check_build_jax_args(script("087ff076"), {"--release"}) ==
          "unrecognized option '--release'");
    CHECK(check_build_jax_args(script("7f7ff35a"), {"-r", "--rel", "-hr"}).empty());
    CHECK_THAT(check_build_jax_args(script("7f7ff35a"), {"-,"}),
               Catch::Contains("UNKNOWN OPTION -,"));
    // --cpu-arch: in every getopt list, without a case branch since 5f2395b4 (2026-01-22).
    CHECK(check_build_jax_args(script("7f7ff35a"), {"--cpu-arch", "amd64"}).empty());
    for (const auto* v : {"5f2395b4", "ed544116"})
        CHECK(check_build_jax_args(script(v), {"--cpu-arch=amd64"}) ==
              "getopt accepts --cpu-arch but the script's case has no branch for it: it prints "
              "UNKNOWN OPTION --cpu-arch and exits 1");
    // Which versions a nightly may carry: the one in force the day before, plus one committed on
    // its day; every version of the generation without a date.
    CHECK(versions_of(JtbGeneration::nightly, "2023-08-20") == Words{"526436f1"});
    CHECK(versions_of(JtbGeneration::nightly, "2023-08-24") == Words{"526436f1", "1d80d188"});
    CHECK(versions_of(JtbGeneration::nightly, "2023-08-25") == Words{"1d80d188"});
    CHECK(versions_of(JtbGeneration::jax, "2025-06-01") == Words{"087ff076"});
    CHECK(versions_of(JtbGeneration::jax, "2025-12-17") == Words{"087ff076", "7f7ff35a"});
    CHECK(versions_of(JtbGeneration::jax, "2026-02-01") == Words{"5f2395b4"});
    CHECK(versions_of(JtbGeneration::jax, "2026-07-24") == Words{"ed544116"});
    CHECK(versions_of(JtbGeneration::jax, "") ==
          Words{"087ff076", "7f7ff35a", "5f2395b4", "ed544116"});
    CHECK(core::jtb_date_of_image("ghcr.io/nvidia/jax:jax-2026-02-01") == "2026-02-01");
    CHECK(core::jtb_date_of_image("ghcr.io/nvidia/jax:nightly-2023-08-24") == "2023-08-24");
    CHECK(core::jtb_date_of_image("ghcr.io/nvidia/jax:jax-{date}").empty());
    CHECK(core::jtb_date_of_image("localhost:5000/jax-2026-02-01").empty());

    // A plan checks the extra arguments against every version its nightly may carry.
    auto st = setup(JtbGeneration::jax, core::JtbSources::image);
    st.image_date = "2026-02-01";
    st.build_args = {"-r"};
    CHECK_NOTHROW(core::plan_jax_toolbox(st));
    st.build_args = {"--cpu-arch=amd64"};
    CHECK_THAT(test::usage_error_of([&] { core::plan_jax_toolbox(st); }),
               Catch::Contains("build-jax.sh 5f2395b4") &&
                   Catch::Contains("the jax- nightly of 2026-02-01 carries it") &&
                   Catch::Contains("UNKNOWN OPTION --cpu-arch") && Catch::Contains("-h -r"));
    st.image_date = "2025-12-17";
    st.build_args = {"--release"};
    CHECK_THAT(test::usage_error_of([&] { core::plan_jax_toolbox(st); }),
               Catch::Contains("build-jax.sh 087ff076") &&
                   Catch::Contains("may carry any of 087ff076, 7f7ff35a"));
    st.image_date = "";
    CHECK_THAT(test::usage_error_of([&] { core::plan_jax_toolbox(st); }),
               Catch::Contains("no date in the tag"));
}

TEST_CASE("the jax generation builds the image's clones moved by SHA with a mounted cache",
          "[core][jax-toolbox]") {
    auto st = setup(JtbGeneration::jax, core::JtbSources::image);
    st.build_args = {"--sm", "9.0"};
    const auto plan = core::plan_jax_toolbox(st);
    CHECK(plan.mounts == Words{"/src/jax:/perfsweep/src/jax:ro", "/src/xla:/perfsweep/src/xla:ro",
                               "/cache/bazel:/perfsweep/bazel-cache"});
    const auto argv = build_argv(plan);
    REQUIRE(argv.size() > 4);
    CHECK(argv[0] == "sh");
    CHECK(argv[1] == "-c");
    CHECK(argv[2] == core::jtb_build_script());
    CHECK(Words(argv.begin() + 3, argv.end()) == Words{"perfsweep-jax-toolbox",
                                                       "repo",
                                                       "jax",
                                                       "/opt/jax",
                                                       "aaaa",
                                                       "/perfsweep/src/jax",
                                                       "repo",
                                                       "xla",
                                                       "/opt/xla",
                                                       "bbbb",
                                                       "/perfsweep/src/xla",
                                                       "build",
                                                       "build-jax.sh",
                                                       "--bazel-cache",
                                                       "/perfsweep/bazel-cache",
                                                       "--src-path-jax",
                                                       "/opt/jax",
                                                       "--src-path-xla",
                                                       "/opt/xla",
                                                       "--sm",
                                                       "9.0"});
    CHECK(plan.commits_probe == "cat /opt/manifest.d/git-clone.yaml");
}

TEST_CASE("mounted sources, remote caches and fix commits", "[core][jax-toolbox]") {
    auto st = setup(JtbGeneration::jax, core::JtbSources::mounted);
    st.bazel_cache = "grpc://cache.example:9092";
    st.cherry_picks = core::parse_cherry_picks("xla:1234abcd", "--cherry-pick");
    st.outputs_host = "/work/out";
    const auto plan = core::plan_jax_toolbox(st);
    CHECK(plan.mounts ==
          Words{"/src/jax:/opt/jax", "/src/xla:/opt/xla", "/work/out:/perfsweep/out"});
    CHECK(plan.outputs_dir == "/perfsweep/out");
    const auto argv = build_argv(plan);
    CHECK(Words(argv.begin() + 3, argv.end()) == Words{"perfsweep-jax-toolbox",
                                                       "repo",
                                                       "jax",
                                                       "/opt/jax",
                                                       "aaaa",
                                                       "",
                                                       "repo",
                                                       "xla",
                                                       "/opt/xla",
                                                       "bbbb",
                                                       "",
                                                       "pick",
                                                       "xla",
                                                       "/opt/xla",
                                                       "1234abcd",
                                                       "",
                                                       "build",
                                                       "build-jax.sh",
                                                       "--bazel-cache",
                                                       "grpc://cache.example:9092",
                                                       "--src-path-jax",
                                                       "/opt/jax",
                                                       "--src-path-xla",
                                                       "/opt/xla"});
    st.bazel_cache = "https://cache.example";
    CHECK_THAT(test::usage_error_of([&] { core::plan_jax_toolbox(st); }),
               Catch::Contains("only http:// and grpc://"));
    st.bazel_cache = "";
    st.cherry_picks = {{"flax", "abc"}};
    CHECK_THAT(test::usage_error_of([&] { core::plan_jax_toolbox(st); }),
               Catch::Contains("'flax' is not a --repo"));
}

TEST_CASE("the 2023 generation removes the old wheels and passes the cache and the sources",
          "[core][jax-toolbox]") {
    auto st = setup(JtbGeneration::nightly, core::JtbSources::image);
    st.image_date = "2023-08-24";
    st.build_args = {"--clean"};
    const auto plan = core::plan_jax_toolbox(st);
    // The cache is not bazel's output root (~/.cache/bazel), which the script's clean() removes.
    CHECK(plan.mounts == Words{"/src/jax:/perfsweep/src/jax:ro", "/src/xla:/perfsweep/src/xla:ro",
                               "/cache/bazel:/perfsweep/bazel-cache"});
    const auto argv = build_argv(plan);
    CHECK(Words(argv.begin() + 3, argv.end()) == Words{"perfsweep-jax-toolbox",
                                                       "repo",
                                                       "jax",
                                                       "/opt/jax-source",
                                                       "aaaa",
                                                       "/perfsweep/src/jax",
                                                       "repo",
                                                       "xla",
                                                       "/opt/xla-source",
                                                       "bbbb",
                                                       "/perfsweep/src/xla",
                                                       "rmwheels",
                                                       "/opt/jax-source",
                                                       "build",
                                                       "build-jax.sh",
                                                       "--bazel-cache",
                                                       "/perfsweep/bazel-cache",
                                                       "--src-path-jax",
                                                       "/opt/jax-source",
                                                       "--src-path-xla",
                                                       "/opt/xla-source",
                                                       "--clean"});
    CHECK(plan.source_dirs == std::map<std::string, std::string>{{"jax", "/opt/jax-source"},
                                                                 {"xla", "/opt/xla-source"}});
    const auto probe = core::parse_command(plan.commits_probe, "--commits-probe").words;
    CHECK(Words(probe.begin() + 3, probe.end()) == Words{"perfsweep-commits", "jax", "xla"});
    st.bazel_cache = "http://cache:8080"; // a remote cache too, since 2023-05
    CHECK_NOTHROW(core::plan_jax_toolbox(st));
    st.image_date = "2023-04-20";
    CHECK_THAT(test::usage_error_of([&] { core::plan_jax_toolbox(st); }),
               Catch::Contains("aded83f0") && Catch::Contains("--bazel-cache none"));
    st.bazel_cache = "";
    CHECK_NOTHROW(core::plan_jax_toolbox(st));
}

TEST_CASE("extra build-jax.sh arguments are refused before anything runs", "[core][jax-toolbox]") {
    auto st = setup(JtbGeneration::jax, core::JtbSources::image);
    st.build_args = {"--xla-src", "/x"};
    CHECK_THAT(test::usage_error_of([&] { core::plan_jax_toolbox(st); }),
               Catch::Contains("would refuse it: unrecognized option '--xla-src'") &&
                   Catch::Contains("--src-path-xla"));
    st.build_args = {"--src-path-xla=/x"};
    CHECK_THAT(test::usage_error_of([&] { core::plan_jax_toolbox(st); }),
               Catch::Contains("perfsweep sets the source paths"));
    st.generation = JtbGeneration::nightly;
    st.build_args = {"--bazel-cache=/x"}; // 2023 has it; perfsweep sets it
    CHECK_THAT(test::usage_error_of([&] { core::plan_jax_toolbox(st); }),
               Catch::Contains("perfsweep sets the source paths and the bazel cache"));
    st.build_args = {"--dry"};
    CHECK_THAT(test::usage_error_of([&] { core::plan_jax_toolbox(st); }),
               Catch::Contains("would build nothing"));
    st.generation = JtbGeneration::jax;
    st.build_args = {"--clean-only"};
    CHECK_THAT(test::usage_error_of([&] { core::plan_jax_toolbox(st); }),
               Catch::Contains("would build nothing"));
    st = setup(JtbGeneration::jax, core::JtbSources::image);
    st.repos[0].host_path = "src/jax";
    CHECK_THAT(test::usage_error_of([&] { core::plan_jax_toolbox(st); }),
               Catch::Contains("expected an absolute path"));
}

TEST_CASE("cherry-picks parse as NAME:COMMIT lists", "[core][jax-toolbox]") {
    const auto picks = core::parse_cherry_picks("xla:abc123, jax:HEAD~2", "--cherry-pick");
    REQUIRE(picks.size() == 2);
    CHECK(picks[0].repo == "xla");
    CHECK(picks[0].commit == "abc123");
    CHECK(picks[1].repo == "jax");
    CHECK(picks[1].commit == "HEAD~2");
    CHECK_THAT(test::usage_error_of([] { core::parse_cherry_picks("xla", "--cherry-pick"); }),
               Catch::Contains("--cherry-pick 'xla': expected NAME:COMMIT"));
    CHECK_THAT(test::usage_error_of([] { core::parse_cherry_picks("x$y:abc", "--cherry-pick"); }),
               Catch::Contains("not a repo name"));
}

TEST_CASE("pyxis spells a registry with '#'", "[core][jax-toolbox]") {
    CHECK(core::pyxis_image("ghcr.io/nvidia/jax:jax-2024-05-01") ==
          "ghcr.io#nvidia/jax:jax-2024-05-01");
    CHECK(core::pyxis_image("localhost:5000/jax:t") == "localhost:5000#jax:t");
    CHECK(core::pyxis_image("ubuntu:22.04") == "ubuntu:22.04");
    CHECK(core::pyxis_image("nvidia/cuda:12.4") == "nvidia/cuda:12.4");
    CHECK(core::pyxis_image("nvcr.io#nvidia/pytorch:24.01") == "nvcr.io#nvidia/pytorch:24.01");
    CHECK(core::pyxis_image("/images/jax.sqsh") == "/images/jax.sqsh");
}

TEST_CASE("template words are quoted so they split back unchanged", "[core][jax-toolbox]") {
    for (const std::string w : {"plain", "it's", "a \"b\" $c `d` \\e", "", "{commit:x}"}) {
        const auto words = core::parse_command("x " + core::quote_template_word(w), "--t").words;
        REQUIRE(words.size() == 2);
        CHECK(words[1] == w);
    }
}
