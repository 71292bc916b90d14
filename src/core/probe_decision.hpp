#pragma once
// `perfsweep probe`: decide good / bad / skip / abort for one measured source state (pure), so
// that `git bisect run perfsweep probe ...` can use the exit status.

#include "core/exit_code.hpp"
#include "core/model.hpp"

#include <optional>
#include <string>

namespace perfsweep::core {

/// What a probe compares its measurement with.
struct ProbeReference {
    RunMode mode = RunMode::metric;                    ///< metric or exit-code
    std::optional<double> good_level;                  ///< metric mode: the known good level
    double threshold = 0.05;                           ///< metric mode: relative change that is bad
    Direction direction = Direction::higher_is_better; ///< metric mode: which way is better
};

/// The verdict and a one-line explanation.
struct ProbeDecision {
    ExitVerdict verdict = ExitVerdict::abort;
    std::string why;
};

/// Decide. Exit-code mode: an abort status aborts; a timeout, 124/125 or a failed build skip; a
/// test that did not run at all aborts (infrastructure); otherwise any failed run is bad and all
/// passing runs are good. Metric mode: a point that could not be measured (build failure, crash,
/// no metric, timeout, missing image) is a skip; otherwise the median of the values is bad when
/// it is worse than the good level by more than the threshold (relative), else good.
ProbeDecision decide_probe(const Measurement& m, const ProbeReference& ref);

} // namespace perfsweep::core
