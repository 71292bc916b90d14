#pragma once
// Port: reading a result document (JSON) back into the result model, where a file is read
// (`report --input`, `hourly --from-result`). Writing is pure (report/result_json).

#include "core/report_model.hpp"

#include <string>
#include <string_view>

namespace perfsweep::ports {

/// Parses result documents.
class ResultReader {
public:
    virtual ~ResultReader() = default;
    /// The document in `text`, read from `source`. Throws a usage error naming `source`, the JSON
    /// path and what was expected.
    virtual core::ResultDocument read(std::string_view text, const std::string& source) const = 0;
};

} // namespace perfsweep::ports
