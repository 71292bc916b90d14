#include "app/comment.hpp"

#include "report/markdown.hpp"
#include "util/error.hpp"

#include <cctype>
#include <string_view>

namespace perfsweep::app {
namespace {

constexpr const char* k_actions_bot = "github-actions[bot]";

std::string with_marker(const std::string& body, const std::string& marker) {
    if (body.find(marker) != std::string::npos)
        return body;
    return marker + "\n" + body;
}

std::optional<ports::HostComment> find_ours(const std::vector<ports::HostComment>& comments,
                                            const std::string& marker, const std::string& author) {
    // The newest one wins if a human copied the marker; only comments by `author` count.
    for (auto it = comments.rbegin(); it != comments.rend(); ++it)
        if (it->author == author && it->body.find(marker) != std::string::npos)
            return *it;
    return std::nullopt;
}

void check_repo(const std::string& repo) {
    const auto slash = repo.find('/');
    auto ok_part = [](std::string_view s) {
        if (s.empty() || s == "." || s == "..")
            return false;
        for (char c : s)
            if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'))
                return false;
        return true;
    };
    if (slash == std::string::npos || !ok_part(std::string_view(repo).substr(0, slash)) ||
        !ok_part(std::string_view(repo).substr(slash + 1)))
        throw_usage("--repo '" + repo + "': expected OWNER/NAME");
}

} // namespace

bool reports_to_sticky_issue(const std::string& event_name) {
    for (const char* e :
         {"schedule", "workflow_dispatch", "push", "repository_dispatch", "workflow_run"})
        if (event_name == e)
            return true;
    return false;
}

std::string sticky_issue_title(const std::string& metric) {
    return "perfsweep: " + (metric.empty() ? std::string("performance") : metric) + " regression";
}

std::string comment_author(ports::CodeHost& host) {
    auto me = host.current_user();
    return me ? *me : k_actions_bot;
}

CommentResult post_sticky_comment(ports::CodeHost& host, const CommentRequest& req) {
    check_repo(req.repo);
    const std::string marker = report::marker_for_key(req.key);
    const std::string body = with_marker(req.body, marker);
    if (body.size() > report::k_comment_limit)
        throw_usage("comment body: " + std::to_string(body.size()) +
                    " characters; GitHub accepts at most " +
                    std::to_string(report::k_comment_limit) +
                    " (render it with 'perfsweep report', which trims)");
    if (!req.number && req.new_issue_title.empty())
        throw_usage("comment: no target; give --pr N, --issue N or --new-issue TITLE");
    const std::string author = comment_author(host);
    CommentResult res;
    long long number = req.number.value_or(0);
    if (!req.number) {
        // --new-issue: reuse an open issue that carries our marker, else open one (carefully).
        for (int attempt = 1;; ++attempt) {
            const auto label = req.labels.empty() ? std::string() : req.labels.front();
            std::optional<ports::HostIssue> found;
            // Only an issue that `author` opened: anyone can copy the marker into an issue of
            // their own (and the report would then be posted into theirs).
            for (const auto& i : host.list_issues(req.repo, label, "open"))
                if (i.author == author && i.body.find(marker) != std::string::npos) {
                    number = i.number;
                    found = i;
                    break;
                }
            if (found && attempt > 1 && found->body == body) {
                // Our own creation with an unknown outcome landed after all: the report is in
                // its body already, a comment would repeat it.
                res.action = "issue-created";
                res.number = found->number;
                res.url = found->url;
                return res;
            }
            if (number)
                break;
            if (attempt > req.max_create_attempts)
                throw_infra("GitHub: creating the issue in " + req.repo +
                            " kept failing with an unknown outcome");
            if (auto created = host.create_issue(req.repo, req.new_issue_title, body, req.labels)) {
                res.action = "issue-created";
                res.number = created->number;
                res.url = created->url;
                return res;
            }
            // Unknown outcome: the loop re-lists before trying again.
        }
    }
    res.number = number;
    for (int attempt = 1;; ++attempt) {
        const auto comments = host.list_comments(req.repo, number);
        if (auto ours = find_ours(comments, marker, author)) {
            const auto updated =
                ours->body == body ? *ours : host.update_comment(req.repo, ours->id, body);
            res.action = attempt == 1 ? "updated" : "created";
            res.comment_id = updated.id;
            res.url = updated.url.empty() ? ours->url : updated.url;
            return res;
        }
        if (attempt > req.max_create_attempts)
            throw_infra("GitHub: posting the comment on " + req.repo + "#" +
                        std::to_string(number) + " kept failing with an unknown outcome");
        if (auto created = host.create_comment(req.repo, number, body)) {
            res.action = "created";
            res.comment_id = created->id;
            res.url = created->url;
            return res;
        }
        // Unknown outcome (5xx or dropped connection): re-list; it may exist already.
    }
}

namespace {

// `<!-- perfsweep-regression: ID -->`, with ID kept to characters that cannot end the comment.
std::string regression_marker(const std::string& id) {
    std::string clean;
    for (char c : id) {
        const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' ||
                        c == ':' || c == '/' || c == ' ' ||
                        (c == '-' && (clean.empty() || clean.back() != '-'));
        clean += ok ? c : '_';
        if (clean.size() >= 200)
            break;
    }
    return "<!-- perfsweep-regression: " + clean + " -->";
}

// The newest issue in `issues` that carries `marker` and was opened by `author`.
std::optional<ports::HostIssue> find_issue(const std::vector<ports::HostIssue>& issues,
                                           const std::string& marker, const std::string& author) {
    for (const auto& i : issues) // newest first
        if (i.author == author && i.body.find(marker) != std::string::npos)
            return i;
    return std::nullopt;
}

} // namespace

StickyIssueResult update_sticky_issue(ports::CodeHost& host, const StickyIssueRequest& req,
                                      NightState state, const std::string& report,
                                      const std::string& recovery_note) {
    check_repo(req.repo);
    StickyIssueResult res;
    if (state == NightState::undecided)
        return res;
    const std::string marker = report::marker_for_key(req.key);
    const std::string status_key = req.key + ":status";
    const std::string author = comment_author(host);
    const std::string label = req.labels.empty() ? std::string() : req.labels.front();
    // The issue is looked up with the label first (one short list); labels that the token may
    // not set are dropped by GitHub, so an unlabelled search follows before concluding "none".
    auto find_open = [&]() -> std::optional<ports::HostIssue> {
        auto found = find_issue(host.list_issues(req.repo, label, "open"), marker, author);
        if (!found && !label.empty())
            found = find_issue(host.list_issues(req.repo, "", "open"), marker, author);
        return found;
    };
    auto open = find_open();

    if (state == NightState::healthy) {
        if (!open)
            return res; // a quiet night
        res.number = open->number;
        res.url = open->url;
        CommentRequest note;
        note.repo = req.repo;
        note.number = open->number;
        note.key = status_key;
        note.body = recovery_note;
        post_sticky_comment(host, note);
        res.action = "recovery-noted";
        if (req.close_on_recovery) {
            ports::IssueUpdate u;
            u.state = "closed";
            u.state_reason = "completed";
            host.update_issue(req.repo, open->number, u);
            res.action = "issue-closed";
        }
        return res;
    }

    std::string body = report.find(marker) == std::string::npos ? marker + "\n" + report : report;
    if (!req.regression_id.empty())
        body = regression_marker(req.regression_id) + "\n" + body;
    if (body.size() > report::k_comment_limit)
        throw_usage("issue body: " + std::to_string(body.size()) +
                    " characters; GitHub accepts at most " +
                    std::to_string(report::k_comment_limit));
    if (open) {
        res.number = open->number;
        res.url = open->url;
        res.action = "unchanged";
        if (open->body != body) {
            ports::IssueUpdate u;
            u.body = body;
            host.update_issue(req.repo, open->number, u);
            res.action = "issue-updated";
        }
        // A recovery noted on an earlier night is no longer true.
        for (const auto& c : host.list_comments(req.repo, open->number))
            if (c.author == author &&
                c.body.find(report::marker_for_key(status_key)) != std::string::npos) {
                CommentRequest note;
                note.repo = req.repo;
                note.number = open->number;
                note.key = status_key;
                note.body = "The regression is back: the report in the issue is current again.";
                post_sticky_comment(host, note);
                break;
            }
        return res;
    }
    if (!req.regression_id.empty() && !label.empty()) { // closed issues: only by label
        const std::string same = regression_marker(req.regression_id);
        for (const auto& i : host.list_issues(req.repo, label, "closed"))
            if (i.author == author && i.body.find(marker) != std::string::npos &&
                i.body.find(same) != std::string::npos) {
                res.action = "closed-earlier";
                res.number = i.number;
                res.url = i.url;
                return res;
            }
    }
    for (int attempt = 1;; ++attempt) {
        if (auto created = host.create_issue(req.repo, req.title, body, req.labels)) {
            res.action = "issue-created";
            res.number = created->number;
            res.url = created->url;
            return res;
        }
        // Unknown outcome: it may exist; look before trying again.
        if (auto landed = find_open()) {
            res.action = "issue-created";
            res.number = landed->number;
            res.url = landed->url;
            return res;
        }
        if (attempt >= req.max_create_attempts)
            throw_infra("GitHub: opening the issue in " + req.repo +
                        " kept failing with an unknown outcome");
    }
}

void publish_outputs(ports::ActionsRunner& runner,
                     const std::map<std::string, std::string>& outputs) {
    runner.set_outputs(outputs);
}

void append_summary(ports::ActionsRunner& runner, const std::string& markdown) {
    runner.append_summary(markdown);
}

void annotate(ports::ActionsRunner& runner, const std::string& level, const std::string& title,
              const std::string& message) {
    runner.annotate(level, title, message);
}

} // namespace perfsweep::app
