#pragma once
// The GitHub `issues` / `issue_comment` event payload (GITHUB_EVENT_PATH) as an issue request.

#include "core/issue_request.hpp"

#include <string>

namespace perfsweep::adapters {

/// Read the request of event `event_name` from payload `json` (read from `source`). For
/// `issue_comment` the comment's author and body, else the issue's. An empty `event_name` is
/// inferred (a payload with a `comment` object is an issue_comment). Throws a usage error naming
/// `source` and the JSON path when a field is missing or of the wrong type.
core::IssueEvent issue_event_from_json(const std::string& event_name, const std::string& json,
                                       const std::string& source);

} // namespace perfsweep::adapters
