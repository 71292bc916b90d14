#pragma once
// Evidence (pure): what determines a benchmark value, and the lookup of values already measured.
// A value is determined by the source commits of every repo, the build recipe (the image's own
// build, or a rebuild command), the image, the runner and the benchmark series; a stage asks the
// evidence (the history's records) before it runs anything, so no stage measures a known state
// again. The same sources built by another recipe or in another image are the same state once one
// confirming run agrees (evidence_confirmed).

#include "core/model.hpp"

#include <map>
#include <string>
#include <vector>

namespace perfsweep::core {

/// What determines a value.
struct EvidenceKey {
    std::map<std::string, std::string> commits; ///< repo → commit (full or abbreviated SHA)
    std::string recipe;                         ///< "" = the image's own build; else the rebuild
    std::string image;                          ///< image reference ("" = none)
    std::string digest;                         ///< image digest, when known
    std::string runner;                         ///< fingerprint_key of the runner
    std::string benchmark;                      ///< the series: benchmark name
    std::string metric;                         ///< and metric
};

/// The key of what determined `m`'s values (its commits, recipe, image, runner and series).
EvidenceKey evidence_key(const Measurement& m);

/// How a stored key relates to a wanted one.
enum class EvidenceMatch {
    none,         ///< another series, runner, or other commits of a wanted repo
    same_sources, ///< the same sources, runner and series, built by another recipe or image
    exact,        ///< every field the same: the value is the wanted state's
};

/// How `have` relates to `want`. Commits match when one SHA abbreviates the other (7 or more hex
/// digits); every repo of `want` must be in `have` (`have` may name more: the image's other
/// sources, then it is same_sources at best). Images compare by digest when both know theirs,
/// else by reference.
EvidenceMatch match_evidence(const EvidenceKey& want, const EvidenceKey& have);

/// What the evidence knows about one wanted state.
struct Evidence {
    std::vector<double> exact;        ///< values of exactly that state, in record order
    std::vector<double> same_sources; ///< values of the same sources built otherwise
    std::vector<std::string> labels;  ///< the labels the same_sources values came from
};

/// The values in `records` for `want`: ok records with values (metric records, or exit-code
/// records when `pass_fail`) whose key matches; same_sources ones only from images in
/// `admissible_images` (references whose environment is the wanted one's apart from the sources).
Evidence find_evidence(const std::vector<Measurement>& records, const EvidenceKey& want,
                       const std::vector<std::string>& admissible_images, bool pass_fail);

/// Whether `fresh` (the confirming runs of a rebuilt state) agree with `evidence` (values of the
/// same sources built by another recipe): the fresh median lies within the evidence's prediction
/// interval at `alpha`, or within a quarter of `step` (the level change being narrowed, 0 =
/// unknown) of the evidence's median. False when either is empty.
bool evidence_confirmed(const std::vector<double>& evidence, const std::vector<double>& fresh,
                        double step, double alpha);

} // namespace perfsweep::core
