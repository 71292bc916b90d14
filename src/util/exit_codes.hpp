#pragma once
// The process exit-code contract, documented in README "Exit codes".

namespace perfsweep {

/// Exit codes shared by every command.
enum ExitCode : int {
    exit_ok = 0,           ///< success; no regression
    exit_regression = 1,   ///< a regression was found (investigate: only with --fail-on-regression)
    exit_usage = 2,        ///< usage or input error
    exit_infra = 3,        ///< infrastructure error (runtime, git, network, filesystem)
    exit_inconclusive = 4, ///< not enough data to decide
    exit_improvement = 5,  ///< detect: the latest level is significantly better
    exit_probe_bad = 1,    ///< probe: bad (git bisect run)
    exit_probe_skip = 125, ///< probe: this state cannot be judged (git bisect run's skip)
    exit_probe_abort = 128, ///< probe: usage or infrastructure error; aborts git bisect run
};

} // namespace perfsweep
