#pragma once
// GitHub REST API client over libcurl: auth and version headers, Link pagination, timeouts,
// retries with backoff, rate-limit waits through ports::Clock, token never printed.

#include "ports/clock.hpp"
#include "ports/code_host.hpp"
#include "util/version.hpp"

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>

namespace perfsweep::adapters {

/// Client settings.
struct GitHubOptions {
    std::string api_url = "https://api.github.com"; ///< GITHUB_API_URL (GHES: https://HOST/api/v3)
    std::string token;                              ///< never printed
    std::string user_agent = "perfsweep/" + std::string(util::version());
    double timeout_s = 60; ///< per request
    double connect_timeout_s = 10;
    int max_attempts = 5;    ///< per request, for retryable failures
    double backoff_s = 1;    ///< first retry delay, doubled each time
    double max_wait_s = 900; ///< longest rate-limit wait accepted; longer → error
    /// Largest reply body read (64 MiB: 100 comments of 65,536 4-byte characters fit); a longer
    /// one is an error, whatever its Content-Length said.
    std::size_t max_reply_bytes = 64u << 20;
};

/// The client settings of a process whose environment `get` reads: the token from `token_env`
/// (usage error when empty or unset), GITHUB_API_URL, PERFSWEEP_GITHUB_TIMEOUT_S, _BACKOFF_S and
/// _MAX_WAIT_S (usage error when not a number >= 0); what is unset keeps its default.
GitHubOptions github_options_from_env(const std::function<std::string(const std::string&)>& get,
                                      const std::string& token_env);

/// One HTTP exchange.
struct HttpReply {
    long status = 0;                            ///< 0 when no reply (transport error)
    std::map<std::string, std::string> headers; ///< lower-case names
    std::string body;
    std::string transport_error; ///< curl's message when status is 0
    bool too_large = false;      ///< the body or the headers went past their cap (status 0)
};

/// GitHub REST implementation of ports::CodeHost.
class GitHubClient final : public ports::CodeHost {
public:
    /// `clock` sleeps for backoff and rate-limit waits.
    GitHubClient(GitHubOptions options, ports::Clock& clock);
    ~GitHubClient() override;
    std::optional<std::string> current_user() override;
    std::vector<ports::HostComment> list_comments(const std::string& repo,
                                                  long long number) override;
    std::optional<ports::HostComment> create_comment(const std::string& repo, long long number,
                                                     const std::string& body) override;
    ports::HostComment update_comment(const std::string& repo, long long id,
                                      const std::string& body) override;
    std::vector<ports::HostIssue> list_issues(const std::string& repo, const std::string& label,
                                              const std::string& state) override;
    ports::HostIssue update_issue(const std::string& repo, long long number,
                                  const ports::IssueUpdate& update) override;
    std::optional<ports::HostIssue> create_issue(const std::string& repo, const std::string& title,
                                                 const std::string& body,
                                                 const std::vector<std::string>& labels) override;
    std::string collaborator_permission(const std::string& repo, const std::string& login) override;

    /// Perform `method` on `url` (absolute) once, without retries.
    HttpReply perform(const std::string& method, const std::string& url, const std::string& body);

private:
    /// The reply of a request after retries; nullopt for an ambiguous non-idempotent write.
    std::optional<HttpReply> request(const std::string& method, const std::string& url,
                                     const std::string& body, bool idempotent,
                                     bool return_403_404 = false);
    /// GET every page starting at `url`, following Link rel="next"; returns each page's body.
    std::vector<std::string> get_all_pages(const std::string& url);
    GitHubOptions m_opt;
    ports::Clock& m_clock;
};

/// The URL of rel="next" in a Link header, or "".
std::string next_link(const std::string& link_header);

/// Validate "OWNER/NAME"; throws a usage error naming `flag`.
void check_repo_name(const std::string& repo, const std::string& flag);

} // namespace perfsweep::adapters
