#pragma once
// The result of the daily stage (`perfsweep daily`), shared by the JSON writer and the report.

#include "core/exit_code.hpp"
#include "core/model.hpp"
#include "core/sweep_plan.hpp"

#include <string>
#include <vector>

namespace perfsweep::core {

/// The daily sweep: the planner's view plus the measurement records of every date.
struct DailyResult {
    std::string from;                                   ///< first date (publisher's calendar)
    std::string to;                                     ///< last date
    std::string image;                                  ///< image template
    std::string benchmark;                              ///< benchmark name
    std::string metric;                                 ///< metric name
    std::string unit;                                   ///< metric unit
    Direction direction = Direction::higher_is_better;  ///< of the metric
    SweepResult sweep;                                  ///< points, boundaries, runs
    std::vector<std::vector<Measurement>> measurements; ///< per candidate, in run order
    long resumed_runs = 0;                              ///< runs read back from the state dir
    std::vector<std::string> warnings;                  ///< history problems, ...
    /// Exit-code mode: the first failing run of each regression's first bad nightly.
    std::vector<FailureLog> failure_logs;
};

} // namespace perfsweep::core
