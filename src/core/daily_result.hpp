#pragma once
// The result of the daily stage (`perfsweep daily`): part of the result model (core/report_model)
// that the markdown and JSON renderers of src/report draw.

#include "core/exit_code.hpp"
#include "core/model.hpp"
#include "core/sweep_plan.hpp"

#include <cstddef>
#include <map>
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

/// What the records of one nightly say about its build (the latest record that carries each part).
struct PointBuild {
    std::string image;                               ///< image reference
    std::string digest;                              ///< image digest, when known
    std::map<std::string, std::string> commits;      ///< repo → sha (core::build_fingerprint's)
    std::map<std::string, std::string> commit_times; ///< repo → ISO 8601 committer time
    std::map<std::string, std::string> environment;  ///< the build's environment fingerprint
};

/// The build of point `index` of `r` (empty when it has no record).
PointBuild point_build(const DailyResult& r, std::size_t index);

/// The good→bad window of a daily result: the recorded commits and committer times (ISO 8601) of
/// the last good and first bad builds of its regression boundary.
struct DailyWindow {
    std::string last_good_label; ///< e.g. "2023-08-24"
    std::string first_bad_label;
    std::map<std::string, std::string> good_commits; ///< repo → sha
    std::map<std::string, std::string> bad_commits;
    std::map<std::string, std::string> good_times; ///< repo → ISO 8601 committer time
    std::map<std::string, std::string> bad_times;
};

/// The window of `boundary` (default: `r`'s latest regression, the one its report shows and
/// investigate narrows (core/narrow), else its first boundary) for
/// the hourly stage (`hourly --from-result`). Throws a usage error naming `where` when there is no
/// boundary or its builds have no recorded commit times.
DailyWindow regression_window(const DailyResult& r, const std::string& where,
                              const Boundary* boundary = nullptr);

} // namespace perfsweep::core
