#pragma once
// Use case: an investigation requested from an issue. Checks the author (author_association and
// the collaborator-permission API), parses only the ```perfsweep block, and either accepts the
// four validated values or refuses with a sticky comment that explains why.

#include "app/comment.hpp"
#include "core/issue_request.hpp"
#include "ports/code_host.hpp"

#include <optional>
#include <string>
#include <vector>

namespace perfsweep::app {

/// How to handle the request.
struct IssueRequestOptions {
    std::string repo;                  ///< OWNER/NAME (default: the event's repository)
    std::string key = "issue-request"; ///< sticky-comment key of the refusal/acceptance note
    bool comment = true;               ///< post the refusal (and update an earlier one on accept)
};

/// What was decided.
struct IssueRequestOutcome {
    bool accepted = false;
    core::IssueRequestValues values;   ///< when accepted
    std::vector<std::string> reasons;  ///< when refused: safe text (no hostile text quoted)
    std::string permission;            ///< the API's answer, when it was asked
    std::optional<CommentResult> note; ///< the sticky comment posted or updated, if any
};

/// Decide on the request in `ev`. The body is parsed only when the author may request; nothing
/// from the body is echoed. Refusals post a sticky comment (unless `opt.comment` is false); an
/// acceptance updates an earlier refusal comment in place (never creates one).
IssueRequestOutcome handle_issue_request(ports::CodeHost& host, const core::IssueEvent& ev,
                                         const IssueRequestOptions& opt);

/// The markdown of the refusal comment for `reasons` (each escaped).
std::string refusal_comment(const std::vector<std::string>& reasons);

} // namespace perfsweep::app
