#pragma once
// The GitHub `issues` / `issue_comment` event payload (GITHUB_EVENT_PATH) as an issue request.

#include "core/issue_request.hpp"
#include "ports/issue_events.hpp"

#include <string>

namespace perfsweep::adapters {

/// Read the request of event `event_name` from payload `json` (read from `source`). For
/// `issue_comment` the comment's author and body, else the issue's. An empty `event_name` is
/// inferred (a payload with a `comment` object is an issue_comment). Throws a usage error naming
/// `source` and the JSON path when a field is missing or of the wrong type.
core::IssueEvent issue_event_from_json(const std::string& event_name, const std::string& json,
                                       const std::string& source);

/// The issue-event port over issue_event_from_json.
class JsonIssueEventReader final : public ports::IssueEventReader {
public:
    /// issue_event_from_json(event_name, text, source).
    core::IssueEvent read(const std::string& event_name, const std::string& text,
                          const std::string& source) const override {
        return issue_event_from_json(event_name, text, source);
    }
};

} // namespace perfsweep::adapters
