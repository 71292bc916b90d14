#pragma once
// Reading examples/scenarios/*.json (simulated nightly ranges) for the bench and the tests.

#include "core/sweep_scenario.hpp"

#include <string>

namespace perfsweep::adapters {

/// Parse one scenario; throws a usage error naming `where` and the bad field.
core::SweepScenario scenario_from_json(const std::string& text, const std::string& where);

} // namespace perfsweep::adapters
