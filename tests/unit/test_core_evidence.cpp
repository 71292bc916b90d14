#include "core/evidence.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace perfsweep;
using namespace perfsweep::core;

namespace {

const std::string k_jax = "0123456789abcdef0123456789abcdef01234567";
const std::string k_xla = "89abcdef0123456789abcdef0123456789abcdef";

/// A nightly's record: the image's own build of jax and xla on an H200.
Measurement nightly(const std::string& date, std::vector<double> values) {
    Measurement m;
    m.benchmark = "lbm";
    m.metric = "MLUPS";
    m.label = date;
    m.stage = Stage::daily;
    m.image = "nightly:" + date;
    m.commits = {{"jax", k_jax}, {"xla", k_xla}};
    m.runner = {{"gpu", "H200"}, {"driver", "560"}, {"host", "a"}};
    m.values = std::move(values);
    return m;
}

/// What the hourly stage wants: jax and xla rebuilt by `build.sh` in the 09-05 nightly.
EvidenceKey rebuilt() {
    EvidenceKey k;
    k.commits = {{"jax", k_jax}, {"xla", k_xla}};
    k.recipe = "bash build.sh";
    k.image = "nightly:2023-09-05";
    k.runner = fingerprint_key({{"gpu", "H200"}, {"driver", "560"}, {"host", "b"}});
    k.benchmark = "lbm";
    k.metric = "MLUPS";
    return k;
}

} // namespace

TEST_CASE("evidence: a key is every field that determines a value", "[core][evidence]") {
    const auto m = nightly("2023-09-05", {100});
    auto want = evidence_key(m);
    CHECK(match_evidence(want, evidence_key(m)) == EvidenceMatch::exact);
    // Another hostname with the same GPU and driver is the same runner.
    auto other_host = m;
    other_host.runner["host"] = "b";
    CHECK(match_evidence(want, evidence_key(other_host)) == EvidenceMatch::exact);
    // The same sources built otherwise: by the rebuild recipe, or in another image.
    auto rebuilt_m = m;
    rebuilt_m.recipe = "bash build.sh";
    CHECK(match_evidence(want, evidence_key(rebuilt_m)) == EvidenceMatch::same_sources);
    auto other_image = m;
    other_image.image = "nightly:2023-09-06";
    CHECK(match_evidence(want, evidence_key(other_image)) == EvidenceMatch::same_sources);
    // The digest decides when both know theirs.
    auto a = m, b = other_image;
    a.digest = b.digest = "sha256:ab";
    CHECK(match_evidence(evidence_key(a), evidence_key(b)) == EvidenceMatch::exact);
    b.digest = "sha256:cd";
    b.image = a.image;
    CHECK(match_evidence(evidence_key(a), evidence_key(b)) == EvidenceMatch::same_sources);
    // Another commit of a wanted repo, another GPU, benchmark or metric: nothing.
    for (auto change : std::vector<void (*)(Measurement&)>{
             [](Measurement& x) { x.commits["xla"] = "fedcba9876543210fedcba9876543210fedcba98"; },
             [](Measurement& x) { x.commits.erase("jax"); },
             [](Measurement& x) { x.runner["gpu"] = "H100"; },
             [](Measurement& x) { x.benchmark = "lbm 256"; },
             [](Measurement& x) { x.metric = "MLUPS_fp16"; }}) {
        auto x = m;
        change(x);
        CHECK(match_evidence(want, evidence_key(x)) == EvidenceMatch::none);
    }
    // No commits wanted: no state to look up.
    want.commits.clear();
    CHECK(match_evidence(want, evidence_key(m)) == EvidenceMatch::none);
}

TEST_CASE("evidence: commits match abbreviated, extra repos of the image are another build",
          "[core][evidence]") {
    auto want = rebuilt();
    want.recipe.clear();
    auto m = nightly("2023-09-05", {100});
    m.commits["jax"] = k_jax.substr(0, 7); // an image label's short SHA
    CHECK(match_evidence(want, evidence_key(m)) == EvidenceMatch::exact);
    m.commits["jax"] = k_jax.substr(0, 6); // too short to trust
    CHECK(match_evidence(want, evidence_key(m)) == EvidenceMatch::none);
    m.commits["jax"] = k_jax;
    m.commits["te"] = "aaaaaaa"; // the image holds more sources than the repos wanted
    CHECK(match_evidence(want, evidence_key(m)) == EvidenceMatch::same_sources);
}

TEST_CASE("evidence: find_evidence pools exact values and admissible images' values",
          "[core][evidence]") {
    std::vector<Measurement> records;
    records.push_back(nightly("2023-09-05", {100, 101}));
    records.push_back(nightly("2023-09-05", {99}));
    records.push_back(nightly("2023-09-06", {98})); // same commits, another image
    auto failed = nightly("2023-09-05", {});
    failed.status = Status::failed;
    records.push_back(failed);
    auto codes = nightly("2023-09-05", {0, 0});
    codes.exit_codes = {0, 0}; // an exit-code record never mixes with metric values
    records.push_back(codes);
    auto hourly = nightly("2023-09-05T13:00:00Z", {97, 96});
    hourly.stage = Stage::hourly;
    hourly.recipe = "bash build.sh";
    hourly.image = "nightly:2023-09-05";
    records.push_back(hourly);

    const auto only_0905 = find_evidence(records, rebuilt(), {"nightly:2023-09-05"}, false);
    CHECK(only_0905.exact == std::vector<double>{97, 96});
    CHECK(only_0905.same_sources == std::vector<double>{100, 101, 99});
    CHECK(only_0905.labels == std::vector<std::string>{"2023-09-05"});

    const auto both =
        find_evidence(records, rebuilt(), {"nightly:2023-09-05", "nightly:2023-09-06"}, false);
    CHECK(both.same_sources == std::vector<double>{100, 101, 99, 98});
    CHECK(both.labels == std::vector<std::string>{"2023-09-05", "2023-09-06"});

    const auto none = find_evidence(records, rebuilt(), {}, false);
    CHECK(none.same_sources.empty());
    CHECK(none.exact.size() == 2);

    const auto pass_fail = find_evidence(records, rebuilt(), {"nightly:2023-09-05"}, true);
    CHECK(pass_fail.exact.empty());
    CHECK(pass_fail.same_sources == std::vector<double>{0, 0});
}

TEST_CASE("evidence: one confirming run agrees within the noise or a quarter of the step",
          "[core][evidence]") {
    const std::vector<double> nightly_values{577.0, 577.3, 576.8};
    // Within the prediction interval of the evidence's noise.
    CHECK(evidence_confirmed(nightly_values, {577.2}, 0, 0.01));
    // A recipe that costs 5 %: outside the noise; with a 7 % step to narrow it is more than a
    // quarter of it, with a 40 % step less.
    CHECK_FALSE(evidence_confirmed(nightly_values, {548.0}, 0, 0.01));
    CHECK_FALSE(evidence_confirmed(nightly_values, {548.0}, 40.0, 0.01));
    CHECK(evidence_confirmed(nightly_values, {548.0}, 230.0, 0.01));
    // Noise-free evidence: only the same value or the step's quarter.
    CHECK(evidence_confirmed({500, 500}, {500}, 0, 0.01));
    CHECK_FALSE(evidence_confirmed({500, 500}, {501}, 0, 0.01));
    CHECK(evidence_confirmed({500}, {501}, 8, 0.01));
    // Nothing to compare.
    CHECK_FALSE(evidence_confirmed({}, {500}, 100, 0.01));
    CHECK_FALSE(evidence_confirmed({500}, {}, 100, 0.01));
}
