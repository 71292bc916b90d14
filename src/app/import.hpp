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

/// Reads the JSON-based import formats (benchmark-action, jsonl) of `text` from `file`: a plain
/// function of the adapters layer (adapters::read_json_import), handed in by the CLI.
using JsonImportReader = std::vector<core::Measurement> (*)(const std::string& text,
                                                            const std::string& file,
                                                            core::ImportFormat format,
                                                            const core::ImportDefaults& defaults);

/// Read `file` ("-" = stdin) in `format` (auto-detected when empty) into measurements, applying
/// `defaults`; the JSON formats with `read_json`. Throws perfsweep::Error (usage) naming the file
/// and line on bad input.
std::vector<core::Measurement> read_measurements(const std::string& file,
                                                 std::optional<core::ImportFormat> format,
                                                 const core::ImportDefaults& defaults,
                                                 ports::Files& files, JsonImportReader read_json);

/// What `perfsweep import` needs.
struct ImportRequest {
    std::vector<std::string> inputs;
    std::optional<core::ImportFormat> format;
    core::ImportDefaults defaults;
    std::string history;
    std::string testbed;                  ///< --testbed, stored as every record's runner["testbed"]
    JsonImportReader read_json = nullptr; ///< the JSON formats' reader (set by the CLI)
};

/// What an import did.
struct ImportOutcome {
    std::size_t read = 0;     ///< records read from the inputs
    std::size_t appended = 0; ///< records appended to the history
    std::size_t already = 0;  ///< records the history already held (a re-import): not appended
};

/// Parse every input completely, then append to the history, in one atomic append, the records
/// it does not hold yet (nothing is written when any input is bad; a re-import adds nothing).
ImportOutcome run_import(const ImportRequest& request, ports::Adapters& adapters);

} // namespace perfsweep::app
