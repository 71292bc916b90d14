#include "core/environment.hpp"

#include <catch2/catch.hpp>

using namespace perfsweep::core;

namespace {

BuildFingerprint fp(std::map<std::string, std::string> commits,
                    std::map<std::string, std::string> env) {
    return {std::move(commits), std::move(env)};
}

const std::map<std::string, std::string> k_env_a = {
    {"cuda", "12.4.1"}, {"cudnn", "9.1.0"}, {"nccl", "2.21.5"}, {"jax", "0.4.30"}};

} // namespace

TEST_CASE("environment probe: key=value lines parsed strictly", "[environment]") {
    const auto p = parse_environment_probe("# comment\n"
                                           "cuda = 12.4.1\r\n"
                                           "\n"
                                           "gpu=NVIDIA H100 80GB HBM3\n"
                                           "label.org.opencontainers.image.revision=abc\n",
                                           "probe.log");
    CHECK(p.warnings.empty());
    CHECK(p.entries ==
          std::map<std::string, std::string>{{"cuda", "12.4.1"},
                                             {"gpu", "NVIDIA H100 80GB HBM3"},
                                             {"label.org.opencontainers.image.revision", "abc"}});
}

TEST_CASE("environment probe: hostile lines are rejected with line numbers, never echoed",
          "[environment]") {
    const std::string long_value(k_env_value_max + 1, 'x');
    const std::string text = "::set-output name=cudnn::9.9\n" // 1: key charset
                             "key with space=1\n"             // 2
                             "just text\n"                    // 3: no '='
                             "cudnn=9.1.0\x1b[31m\n"          // 4: control character
                             "nccl=" +
                             long_value +
                             "\n"                            // 5: too long
                             "=empty key\n"                  // 6
                             "cudnn=9.1.0\n"                 // 7: accepted
                             "cudnn=9.2.0\n"                 // 8: repeated
                             "shell=$(touch /tmp/x); `id`\n" // 9: accepted as inert data
                             "-flag=1\n"                     // 10: key must start alnum
                             "caf\xc3\xa9=1\n";              // 11: non-ASCII key
    const auto p = parse_environment_probe(text, "probe.log");
    CHECK(p.entries == std::map<std::string, std::string>{{"cudnn", "9.1.0"},
                                                          {"shell", "$(touch /tmp/x); `id`"}});
    REQUIRE(p.warnings.size() == 9);
    CHECK_THAT(p.warnings[0], Catch::StartsWith("probe.log:1: rejected (key does not start"));
    CHECK_THAT(p.warnings[1], Catch::StartsWith("probe.log:2: rejected (key has characters"));
    CHECK_THAT(p.warnings[3], Catch::StartsWith("probe.log:4: rejected (value has control"));
    CHECK_THAT(p.warnings[4], Catch::StartsWith("probe.log:5: rejected (value longer than"));
    CHECK_THAT(p.warnings[6], Catch::StartsWith("probe.log:8: rejected (repeated key)"));
    for (const auto& w : p.warnings) {
        CHECK(w.find("set-output") == std::string::npos);
        CHECK(w.find('\x1b') == std::string::npos);
    }
}

TEST_CASE("environment probe: an entrypoint banner before the probe's start line is skipped",
          "[environment]") {
    // What `docker run` of an nvidia/cuda-based image prints before the command's output.
    const std::string banner = "\n==========\n== CUDA ==\n==========\n\nCUDA Version 12.2.0\n\n"
                               "Container image Copyright (c) NVIDIA CORPORATION.\n\n"
                               "This container image is governed by a license.\n"
                               "By pulling and using the container, you accept its terms:\n"
                               "https://developer.nvidia.com/ngc/nvidia-deep-learning-container-"
                               "license\n\nA copy of the license is in this container.\n\n";
    const auto p = parse_environment_probe(banner + std::string(k_env_probe_start) +
                                               "\npython=3.11.2\njax=0.4.14\nno equals sign\n",
                                           "env-probe.log");
    CHECK(p.entries == std::map<std::string, std::string>{{"python", "3.11.2"}, {"jax", "0.4.14"}});
    // Only the probe's own lines are judged; their numbers are those of the log.
    REQUIRE(p.warnings.size() == 1);
    CHECK_THAT(p.warnings[0], Catch::StartsWith("env-probe.log:19: rejected (expected key=value)"));
}

TEST_CASE("environment probe: at most k_env_entries_max entries", "[environment]") {
    std::string text;
    for (std::size_t i = 0; i < k_env_entries_max + 5; ++i)
        text += "k" + std::to_string(i) + "=v\n";
    const auto p = parse_environment_probe(text, "p");
    CHECK(p.entries.size() == k_env_entries_max);
    CHECK(p.warnings.size() == 5);
}

TEST_CASE("environment diff: changed, added and removed keys, commits are not environment",
          "[environment]") {
    std::map<std::string, std::string> b = k_env_a;
    b["cudnn"] = "9.2.0";
    b.erase("nccl");
    b["cublas"] = "12.4.5.8";
    b["commit.jax"] = "deadbeef";
    const auto d = environment_diff(k_env_a, b);
    CHECK(d == std::vector<EnvironmentChange>{{"cublas", "", "12.4.5.8"},
                                              {"cudnn", "9.1.0", "9.2.0"},
                                              {"nccl", "2.21.5", ""}});
    CHECK(environment_diff(k_env_a, k_env_a).empty());
    CHECK(environment_component_name("cudnn") == "cuDNN");
    CHECK(environment_component_name("my_key") == "my_key");
}

TEST_CASE("attribution: environment only, source only, both, unknown, none", "[environment]") {
    const std::map<std::string, std::string> c1 = {{"jax", "aaaaaaa111"}, {"xla", "bbbbbbb222"}};
    auto c2 = c1;
    c2["xla"] = "ccccccc333";
    auto env_b = k_env_a;
    env_b["cudnn"] = "9.2.0";

    SECTION("same commits, cuDNN changed: environmental") {
        const auto a = attribute_change(fp(c1, k_env_a), fp(c1, env_b));
        CHECK(a.cause == Cause::environment);
        CHECK(a.components == std::vector<std::string>{"cudnn"});
        CHECK(a.changed_repos.empty());
        CHECK_THAT(describe_attribution(a),
                   Catch::StartsWith("environmental") && Catch::Contains("cuDNN 9.1.0 → 9.2.0"));
    }
    SECTION("a short sha equals its full form") {
        auto shortc = c1;
        shortc["jax"] = "aaaaaaa";
        CHECK(attribute_change(fp(shortc, k_env_a), fp(c1, env_b)).cause == Cause::environment);
    }
    SECTION("different commits, same environment: source") {
        const auto a = attribute_change(fp(c1, k_env_a), fp(c2, k_env_a));
        CHECK(a.cause == Cause::source);
        CHECK(a.changed_repos == std::vector<std::string>{"xla"});
        CHECK(a.diff.empty());
    }
    SECTION("different commits, environment unrecorded: source") {
        const auto a = attribute_change(fp(c1, {}), fp(c2, k_env_a));
        CHECK(a.cause == Cause::source);
        CHECK_FALSE(a.environment_known);
        CHECK_THAT(describe_attribution(a), Catch::Contains("not recorded"));
    }
    SECTION("both changed") {
        const auto a = attribute_change(fp(c1, k_env_a), fp(c2, env_b));
        CHECK(a.cause == Cause::both);
        CHECK_THAT(describe_attribution(a),
                   Catch::Contains("both") && Catch::Contains("good build's environment"));
    }
    SECTION("commits unknown on one side: unknown, the diff still shown") {
        const auto a = attribute_change(fp({}, k_env_a), fp(c1, env_b));
        CHECK(a.cause == Cause::unknown);
        CHECK(a.diff.size() == 1);
        CHECK_THAT(describe_attribution(a),
                   Catch::Contains("commits are unknown") && Catch::Contains("cuDNN"));
    }
    SECTION("packages built from the compared repos follow the sources: not environment") {
        // jax 0.4.14.dev20230824 → dev20230825 between two nightlies built from other commits.
        auto ga = k_env_a, ba = k_env_a;
        ga["jaxlib"] = "0.4.14.dev20230824";
        ba["jaxlib"] = "0.4.14.dev20230825";
        ba["jax"] = "0.4.15";
        ba["jax_cuda12_plugin"] = "0.4.15";
        // ...and so does the image itself: a new nightly has a new digest.
        ga["image.digest"] = "sha256:1";
        ba["image.digest"] = "sha256:2";
        const auto a = attribute_change(fp(c1, ga), fp(c2, ba));
        CHECK(a.cause == Cause::source);
        CHECK(a.components.empty());
        CHECK(a.diff.size() == 1); // the digest, still listed
        CHECK(a.built_from_sources.size() == 3);
        CHECK_THAT(describe_attribution(a), Catch::StartsWith("sources changed (xla); the "
                                                              "recorded environment is identical"));
        // ...and with cuDNN changed too, only cuDNN is the environment.
        ba["cudnn"] = "9.2.0";
        const auto both = attribute_change(fp(c1, ga), fp(c2, ba));
        CHECK(both.cause == Cause::both);
        CHECK(both.components == std::vector<std::string>{"cudnn"});
        CHECK(describe_attribution(both).find("jax") == std::string::npos);
        CHECK(built_from_repo("jaxlib", "jax"));
        CHECK(built_from_repo("jax_cuda12_pjrt", "jax"));
        CHECK_FALSE(built_from_repo("jaxtyping", "jax"));
        CHECK_FALSE(built_from_repo("flax", "jax"));
    }
    SECTION("nothing differs: none") {
        CHECK(attribute_change(fp(c1, k_env_a), fp(c1, k_env_a)).cause == Cause::none);
    }
    SECTION("only the image digest differs: environmental, component 'image'") {
        auto ga = k_env_a, ba = k_env_a;
        ga["image.digest"] = "sha256:1";
        ba["image.digest"] = "sha256:2";
        const auto a = attribute_change(fp(c1, ga), fp(c1, ba));
        CHECK(a.cause == Cause::environment);
        CHECK(a.components == std::vector<std::string>{"image"});
        CHECK_THAT(describe_attribution(a), Catch::Contains("image digest sha256:1 → sha256:2"));
    }
    SECTION("image metadata is not named when a probed component differs") {
        auto ga = k_env_a, ba = env_b;
        ga["image.digest"] = "sha256:1";
        ba["image.digest"] = "sha256:2";
        const auto a = attribute_change(fp(c1, ga), fp(c1, ba));
        CHECK(a.components == std::vector<std::string>{"cudnn"});
        CHECK(describe_attribution(a).find("digest") == std::string::npos);
    }
}

TEST_CASE("build fingerprint: latest records, commit.* entries and the image digest",
          "[environment]") {
    Measurement first, second;
    first.commits = {{"jax", "aaaaaaa"}};
    first.environment = {{"cudnn", "9.1.0"}};
    first.digest = "sha256:old";
    second.environment = {{"cudnn", "9.2.0"}};
    second.digest = "sha256:new";
    auto f = build_fingerprint({first, second});
    CHECK(f.commits == std::map<std::string, std::string>{{"jax", "aaaaaaa"}});
    CHECK(f.environment.at("cudnn") == "9.2.0");
    CHECK(f.environment.at("image.digest") == "sha256:new");

    Measurement probed;
    probed.environment = {{"commit.xla", "0123456789"}, {"cuda", "12.4"}};
    f = build_fingerprint({probed});
    CHECK(f.commits == std::map<std::string, std::string>{{"xla", "0123456789"}});
    CHECK(build_fingerprint({}).environment.empty());
}
