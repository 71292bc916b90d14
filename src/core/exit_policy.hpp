#pragma once
// The exit-code policy of every command that decides something, in one place (the table is
// README "Exit codes"; the codes are util/exit_codes.hpp). Pure.

#include "core/daily_result.hpp"
#include "core/detect.hpp"
#include "core/hourly_result.hpp"
#include "core/model.hpp"

namespace perfsweep::core {

// exit_code_for(Verdict) (declared in core/detect.hpp) is `detect`'s: regression 1, improvement
// 5, no regression 0, inconclusive 4 (also for a missing or empty history).

/// `daily` and `merge`: 4 when the sweep did not finish (a budget, dates still to measure) or a
/// boundary stayed undecided; else 0.
int sweep_exit_code(const DailyResult& result);

/// `hourly`: 4 when the stage is inconclusive; else 0.
int hourly_exit_code(const HourlyResult& result);

/// `investigate` (and `demo`): a regression exits 1 only with --fail-on-regression (else 0),
/// inconclusive 4, anything else 0.
int investigate_exit_code(Verdict verdict, bool fail_on_regression);

/// `run`: 0 for an ok point, 4 for a point without a value.
int point_exit_code(Status status);

} // namespace perfsweep::core
