#pragma once
// What `record` and `run` tell about the points they measured or read: a line per point without
// a value naming the input and the metric (stderr and, in GitHub Actions, a red annotation), the
// job summary, the step outputs, and the exit code (the worst point's).

#include "core/model.hpp"
#include "ports/adapters.hpp"

#include <string>
#include <vector>

namespace perfsweep::cli {

/// Report `points` of `command` ("record" or "run"; `where` names the output or history they were
/// read from or written to) and return the exit code: 0 when every point has a value, else 4
/// ("the point has no value": never "too little data").
int report_points(ports::Adapters& adapters, const std::string& command,
                  const std::vector<core::Measurement>& points, const std::string& where);

} // namespace perfsweep::cli
