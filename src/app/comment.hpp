#pragma once
// Use cases of the GitHub side: a sticky comment (upsert by hidden marker and author), and the
// runner contract (outputs, job summary, annotations) for the investigate command.

#include "ports/actions_runner.hpp"
#include "ports/code_host.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace perfsweep::app {

/// Where and what to post.
struct CommentRequest {
    std::string repo;                ///< OWNER/NAME
    std::optional<long long> number; ///< --pr / --issue (or from the event)
    std::string new_issue_title;     ///< --new-issue TITLE (reuses an open issue with the marker)
    std::vector<std::string> labels; ///< --label (for --new-issue)
    std::string body;                ///< the comment text (the marker is added when missing)
    std::string key = "default";     ///< marker key
    int max_create_attempts = 3;     ///< POSTs with an unknown outcome are re-checked, then retried
};

/// What happened.
struct CommentResult {
    std::string action; ///< "created", "updated", "issue-created"
    long long number = 0;
    long long comment_id = 0; ///< 0 when the report went into a new issue's body
    std::string url;
};

/// The login whose comments we may update: the token's user, else github-actions[bot].
std::string comment_author(ports::CodeHost& host);

/// Post or update the sticky comment. Never leaves two comments with the same marker by us:
/// after a POST with an unknown outcome it re-lists before posting again.
CommentResult post_sticky_comment(ports::CodeHost& host, const CommentRequest& req);

/// Write step outputs (no-op outside Actions).
void publish_outputs(ports::ActionsRunner& runner,
                     const std::map<std::string, std::string>& outputs);
/// Append the markdown report to the job summary (no-op outside Actions).
void append_summary(ports::ActionsRunner& runner, const std::string& markdown);
/// Emit an annotation: level "error" for a regression, "warning" for inconclusive results.
void annotate(ports::ActionsRunner& runner, const std::string& level, const std::string& title,
              const std::string& message);

} // namespace perfsweep::app
