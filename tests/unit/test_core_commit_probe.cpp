#include "core/commit_probe.hpp"

#include <catch2/catch.hpp>

using namespace perfsweep::core;

TEST_CASE("commit probe lines: NAME SHA [TIME], NAME: SHA, NAME=SHA", "[core][probe]") {
    const auto p = parse_commit_probe("jax 0123456789abcdef0123456789abcdef01234567 "
                                      "2023-08-24T13:05:00Z\n"
                                      "/opt/xla-source: abcdef1\n"
                                      "flax=deadbeefcafe\n"
                                      "noise line with words\n"
                                      "bad NOTASHA\n");
    CHECK(p.commits.size() == 3);
    CHECK(p.commits.at("jax") == "0123456789abcdef0123456789abcdef01234567");
    CHECK(p.commit_times.at("jax") == "2023-08-24T13:05:00Z");
    CHECK(p.commits.at("xla") == "abcdef1");
    CHECK(p.commits.at("flax") == "deadbeefcafe");
    CHECK(p.commit_times.count("xla") == 0);
}

TEST_CASE("commit probe reads JAX-Toolbox git-clone.yaml", "[core][probe]") {
    const auto p =
        parse_commit_probe("jax:\n"
                           "  url: https://github.com/google/jax.git\n"
                           "  tracking_ref: main\n"
                           "  latest_verified_commit: 1111111111111111111111111111111111111111\n"
                           "  mode: git-clone\n"
                           "xla:\n"
                           "  url: https://github.com/openxla/xla.git\n"
                           "  latest_verified_commit: 2222222222222222222222222222222222222222\n");
    CHECK(p.commits.size() == 2);
    CHECK(p.commits.at("jax") == "1111111111111111111111111111111111111111");
    CHECK(p.commits.at("xla") == "2222222222222222222222222222222222222222");
}

TEST_CASE("commits from image labels: SHAs only, missing labels skipped", "[core][probe]") {
    const std::map<std::string, std::string> env = {
        {"label.org.opencontainers.image.revision", "0123456789abcdef0123456789abcdef01234567"},
        {"label.xla.rev", "ABCDEF0123"}, // upper case: not how git prints a SHA
        {"label.flax.rev", "v0.8.1"},    // a tag, not a SHA
        {"cudnn", "9.1.0"}};
    std::vector<std::string> not_sha;
    const auto c =
        perfsweep::core::commits_from_labels(env,
                                             {{"jax", "org.opencontainers.image.revision"},
                                              {"xla", "xla.rev"},
                                              {"flax", "flax.rev"},
                                              {"te", "te.rev"}},
                                             not_sha);
    REQUIRE(c.commits.size() == 1);
    CHECK(c.commits.at("jax") == "0123456789abcdef0123456789abcdef01234567");
    CHECK(not_sha == std::vector<std::string>{"flax.rev", "xla.rev"});
    CHECK(perfsweep::core::is_probe_name("org.opencontainers.image.revision"));
    CHECK_FALSE(perfsweep::core::is_probe_name("a b"));
    CHECK_FALSE(perfsweep::core::is_probe_name(""));
}
