#pragma once
// What a stage spent: benchmark runs and source builds, counted once, the same way in the JSON,
// the report and the budgets (--max-runs counts runs, --max-builds builds).

namespace perfsweep::core {

/// GPU work of one stage (or of several, summed).
struct Spend {
    long runs = 0; ///< benchmark runs executed (a failed or timed-out run counts; a missing image,
                   ///< a commits probe or an environment probe does not)
    long builds = 0;         ///< source builds executed (a failed build counts)
    long resumed_runs = 0;   ///< of `runs`, those an earlier, interrupted invocation executed
    long resumed_builds = 0; ///< of `builds`, those an earlier, interrupted invocation executed
    long reused_values = 0;  ///< values taken as evidence (history, an earlier stage), not run
    long avoided_runs = 0;   ///< runs the evidence spared: known values stood in for them
    /// builds spared: a known state was not rebuilt (the evidence), or a kept build of a state
    /// built before was put back instead (`restored_builds`)
    long avoided_builds = 0;
    long restored_builds = 0; ///< of `avoided_builds`, kept builds put back (core/build_store)
    double seconds = 0;       ///< wall time (a whole investigation's)

    /// Add `o` field by field.
    Spend& operator+=(const Spend& o) {
        runs += o.runs;
        builds += o.builds;
        resumed_runs += o.resumed_runs;
        resumed_builds += o.resumed_builds;
        reused_values += o.reused_values;
        avoided_runs += o.avoided_runs;
        avoided_builds += o.avoided_builds;
        restored_builds += o.restored_builds;
        seconds += o.seconds;
        return *this;
    }
    /// Spends compare field by field (tests).
    bool operator==(const Spend&) const = default;
};

} // namespace perfsweep::core
