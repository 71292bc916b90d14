#pragma once
// github-action-benchmark's data.js / JSON history ("window.BENCHMARK_DATA = {...}") as
// measurements.

#include "core/import_formats.hpp"
#include "core/model.hpp"

#include <string>
#include <vector>

namespace perfsweep::adapters {

/// Parse `text` (data.js with its `window.BENCHMARK_DATA =` prefix, or the bare JSON) from `file`.
/// Each bench of each entry becomes one measurement: benchmark = `defaults.benchmark` or the suite
/// name, metric = bench name, label = the first 12 characters of commit.id, timestamp =
/// commit.timestamp (or the entry's `date`), commits["repo"] = commit.id. Entries are ordered by
/// `date` (stable). Throws perfsweep::Error (usage) naming `file` and the JSON path.
std::vector<core::Measurement> parse_benchmark_action(const std::string& text,
                                                      const std::string& file,
                                                      const core::ImportDefaults& defaults);

} // namespace perfsweep::adapters
