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

/// How a night ended, for the sticky issue of a scheduled job.
enum class NightState {
    regression, ///< the issue is opened (or its report updated)
    healthy,    ///< no regression (or an improvement): an open issue is told it recovered
    undecided   ///< inconclusive: the issue is left alone
};

/// The one issue a scheduled job keeps about a regression (found again by its marker).
struct StickyIssueRequest {
    std::string repo;                ///< OWNER/NAME
    std::string key = "default";     ///< marker key: <!-- perfsweep:KEY --> in the issue body
    std::string title;               ///< title of a new issue
    std::vector<std::string> labels; ///< labels of a new issue (the first one narrows the search)
    /// Which regression the report is about (e.g. "MLUPS 2023-08-25..2023-08-26"): an issue
    /// about the same regression that someone closed is not opened again (closed issues are
    /// searched by the first label only; without labels this check is skipped).
    std::string regression_id;
    bool close_on_recovery = false; ///< healthy night: close the issue (else only say so)
    int max_create_attempts = 3;    ///< creations with an unknown outcome are re-checked, retried
};

/// What happened to the sticky issue.
struct StickyIssueResult {
    /// issue-created | issue-updated | unchanged | closed-earlier (the same regression's issue
    /// was closed by someone: left closed) | recovery-noted | issue-closed | none
    std::string action = "none";
    long long number = 0;
    std::string url;
};

/// Open, update, or report the recovery on the sticky issue of `req.key` for a night that ended
/// in `state`. `report` is the body (the marker is added); `recovery_note` the comment posted
/// (and updated in place) on a healthy night. Issues count only when opened by the token's user.
StickyIssueResult update_sticky_issue(ports::CodeHost& host, const StickyIssueRequest& req,
                                      NightState state, const std::string& report,
                                      const std::string& recovery_note);

/// Whether a run triggered by `event_name` reports into the sticky issue when it names no PR or
/// issue: schedule, workflow_dispatch, push, repository_dispatch and workflow_run do.
bool reports_to_sticky_issue(const std::string& event_name);

/// The default title of the sticky issue: "perfsweep: METRIC regression".
std::string sticky_issue_title(const std::string& metric);

/// The default label of the sticky issue (a label of its own, so that an issue-triggered
/// workflow listening for another label is not started by it).
inline constexpr const char* k_sticky_issue_label = "perfsweep";

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
