#pragma once
// Use case: read measurement files (csv, grep output, github-action-benchmark data, JSON Lines)
// and append them to a history.

#include "core/import_formats.hpp"
#include "core/model.hpp"
#include "ports/adapters.hpp"

#include <optional>
#include <string>
#include <vector>

namespace perfsweep::app {

/// Read `file` ("-" = stdin) in `format` (auto-detected when empty) into measurements, applying
/// `defaults`. Throws perfsweep::Error (usage) naming the file and line on bad input.
std::vector<core::Measurement> read_measurements(const std::string& file,
                                                 std::optional<core::ImportFormat> format,
                                                 const core::ImportDefaults& defaults,
                                                 ports::Adapters& adapters);

/// What `perfsweep import` needs.
struct ImportRequest {
    std::vector<std::string> inputs;
    std::optional<core::ImportFormat> format;
    core::ImportDefaults defaults;
    std::string history;
};

/// Parse every input completely, then append all records to the history in one atomic append
/// (nothing is written when any input is bad). Returns the number of records appended.
std::size_t run_import(const ImportRequest& request, ports::Adapters& adapters);

} // namespace perfsweep::app
