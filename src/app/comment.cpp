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
            for (const auto& i : host.list_open_issues(req.repo, label))
                if (i.body.find(marker) != std::string::npos) {
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
