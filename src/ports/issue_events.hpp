#pragma once
// Port: reading a GitHub issues / issue_comment event payload as an issue request.

#include "core/issue_request.hpp"

#include <string>

namespace perfsweep::ports {

/// Reads event payloads.
class IssueEventReader {
public:
    virtual ~IssueEventReader() = default;
    /// The issue request in event payload `text` of event `event_name`, read from `source`.
    /// Throws a usage error naming `source` and the field.
    virtual core::IssueEvent read(const std::string& event_name, const std::string& text,
                                  const std::string& source) const = 0;
};

} // namespace perfsweep::ports
