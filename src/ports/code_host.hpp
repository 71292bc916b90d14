#pragma once
// Port: the code host's issue/PR conversation API (GitHub REST), as perfsweep needs it.

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace perfsweep::ports {

/// An issue or PR comment.
struct HostComment {
    long long id = 0;
    std::string body;
    std::string author; ///< login, e.g. "github-actions[bot]"
    std::string url;    ///< html URL
};

/// An issue.
struct HostIssue {
    long long number = 0;
    std::string title;
    std::string body;
    std::string url;
    std::string author;         ///< login of the user who opened it
    std::string state = "open"; ///< open | closed
};

/// A change to an issue; only the fields that are set are sent.
struct IssueUpdate {
    std::optional<std::string> body;
    std::optional<std::string> state;        ///< open | closed
    std::optional<std::string> state_reason; ///< completed | not_planned | reopened
};

/// Issue and comment operations on one host. Reads and idempotent writes are retried by the
/// implementation; creations are not (a retried POST could duplicate), see create_*.
class CodeHost {
public:
    virtual ~CodeHost() = default;
    /// Login of the token's user; nullopt when the token cannot tell (an Actions GITHUB_TOKEN).
    virtual std::optional<std::string> current_user() = 0;
    /// Every comment of issue/PR `number` in `repo` ("owner/name"), all pages, oldest first.
    virtual std::vector<HostComment> list_comments(const std::string& repo, long long number) = 0;
    /// Create a comment. nullopt when the outcome is unknown (server error or dropped connection
    /// after sending): the caller must re-list before trying again.
    virtual std::optional<HostComment> create_comment(const std::string& repo, long long number,
                                                      const std::string& body) = 0;
    /// Replace the body of comment `id`.
    virtual HostComment update_comment(const std::string& repo, long long id,
                                       const std::string& body) = 0;
    /// Issues of `repo` in `state` (open, closed or all; all pages), newest first; only those
    /// with `label` when not empty. Pull requests are left out.
    virtual std::vector<HostIssue> list_issues(const std::string& repo, const std::string& label,
                                               const std::string& state) = 0;
    /// Change issue `number` (body, state); idempotent, retried like a read.
    virtual HostIssue update_issue(const std::string& repo, long long number,
                                   const IssueUpdate& update) = 0;
    /// Open an issue; nullopt when the outcome is unknown (see create_comment).
    virtual std::optional<HostIssue> create_issue(const std::string& repo, const std::string& title,
                                                  const std::string& body,
                                                  const std::vector<std::string>& labels) = 0;
    /// The repository role of `login` in `repo`: admin, maintain, write, triage, read or none
    /// (none also when the user is unknown). Retried like a read.
    virtual std::string collaborator_permission(const std::string& repo,
                                                const std::string& login) = 0;
};

/// Opens the code host.
class CodeHosts {
public:
    virtual ~CodeHosts() = default;
    /// The code host (GitHub REST API at GITHUB_API_URL) with the token from environment variable
    /// `token_env`. Throws a usage error when the token is missing.
    virtual std::unique_ptr<CodeHost> open(const std::string& token_env) = 0;
};

} // namespace perfsweep::ports
