#pragma once
// Issue-triggered runs: who may ask for an investigation from an issue, and the strict parser of
// the ```perfsweep fenced block (from, to, metric, threshold, mode) in an untrusted issue/comment
// body.
// Pure: no I/O. Nothing here ever returns hostile text unescaped: problems quote a key only when
// it is a plain word, and never quote a value.

#include <optional>
#include <string>
#include <vector>

namespace perfsweep::core {

/// The five values an issue may set; everything else comes from the workflow and its config.
struct IssueRequestValues {
    std::string from;      ///< YYYY-MM-DD (a real calendar date)
    std::string to;        ///< YYYY-MM-DD, after `from`
    std::string metric;    ///< [A-Za-z][A-Za-z0-9_.]{0,63}; empty when not given
    std::string threshold; ///< a fraction such as "0.02" ("2%" is converted); empty when not given
    std::string mode;      ///< "metric" or "exit-code" (a crash/failure hunt); empty when not given
};

/// What an `issues` or `issue_comment` event says about the request (all of it untrusted).
struct IssueEvent {
    std::string event_name;  ///< "issues" or "issue_comment"
    std::string repo;        ///< repository.full_name
    long long number = 0;    ///< issue.number (also a PR's number)
    std::string login;       ///< who wrote the text: issue.user.login or comment.user.login
    std::string association; ///< their author_association
    std::string body;        ///< the issue body or the comment body
};

/// The parse outcome: values when `problems` is empty.
struct IssueRequestParse {
    IssueRequestValues values;
    std::vector<std::string> problems; ///< safe to show: plain words and line numbers only
};

/// Parse the only ```perfsweep fenced block of `body` (CRLF tolerated). Lines are `key: value`,
/// blank, or `# comment`. Refused (a problem each): no block or several blocks, an unknown or
/// repeated key, a value not of its key's form, a missing from/to, from >= to, a block over 4 KiB.
IssueRequestParse parse_issue_request(const std::string& body);

/// True when `association` (the payload's author_association) is OWNER, MEMBER or COLLABORATOR.
bool association_may_request(const std::string& association);

/// True when a collaborator-permission API `permission` is admin, maintain or write.
bool permission_may_request(const std::string& permission);

/// True when `login` has the shape of a GitHub login ([A-Za-z0-9-]{1,39}, optionally "[bot]").
bool plausible_login(const std::string& login);

/// `text` if it is 1-32 characters of [A-Za-z0-9_-], else a neutral description ("a key with other
/// characters"): what a refusal may quote.
std::string quote_safe_word(const std::string& text);

} // namespace perfsweep::core
