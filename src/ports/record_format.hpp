#pragma once
// Port: the text formats of measurement records at perfsweep's edges — the history record line
// (`record --json`, `run --json`), `merge` inputs and the JSON-based import formats. The stage use
// cases never see it: they hand measurements to a HistoryStore.

#include "core/import_formats.hpp"
#include "core/model.hpp"

#include <string>
#include <vector>

namespace perfsweep::ports {

/// Reads and writes measurement records.
class RecordFormat {
public:
    virtual ~RecordFormat() = default;
    /// `m` as one history record (one line, no newline).
    virtual std::string record_line(const core::Measurement& m) const = 0;
    /// Every record of a `merge` input `text` read from `source`: one record object (possibly
    /// pretty-printed) or one per line. Throws a usage error naming `source` (and line).
    virtual std::vector<core::Measurement> read_records(const std::string& text,
                                                        const std::string& source) const = 0;
    /// The measurements of a JSON-based import (`format` benchmark_action or jsonl) read from
    /// `file`; errors name file:line.
    virtual std::vector<core::Measurement>
    read_import(const std::string& text, const std::string& file, core::ImportFormat format,
                const core::ImportDefaults& defaults) const = 0;
};

} // namespace perfsweep::ports
