#include "app/issue_request.hpp"

#include "core/exit_code.hpp"
#include "report/markdown.hpp"

namespace perfsweep::app {
namespace {

constexpr const char* k_example = "```perfsweep\nfrom: 2023-08-01\nto: 2023-09-30\nmetric: MLUPS\n"
                                  "threshold: 2%\n```";

std::string accepted_comment(const core::IssueRequestValues& v) {
    std::string s = "### perfsweep: request accepted\n\nInvestigating " + v.from + " .. " + v.to;
    if (!v.metric.empty())
        s += ", metric " + report::escape_markdown(v.metric);
    if (!v.threshold.empty())
        s += ", threshold " + v.threshold;
    if (v.mode == core::to_string(core::RunMode::exit_code))
        s += ", judged by the test's exit status (crash and failure hunt)";
    return s + ". The report follows in a separate comment.\n";
}

} // namespace

std::string refusal_comment(const std::vector<std::string>& reasons) {
    std::string s = "### perfsweep: request refused\n\nNothing was run, because:\n\n";
    for (const auto& r : reasons)
        s += "- " + report::escape_markdown(r) + "\n";
    s += "\nAn investigation can be requested by an author with write access to this repository, "
         "with exactly one fenced block that sets only these keys (each optional except `from` "
         "and `to`; everything else comes from the workflow):\n\n";
    return s + k_example + "\n";
}

IssueRequestOutcome handle_issue_request(ports::CodeHost& host, const core::IssueEvent& ev,
                                         const IssueRequestOptions& opt) {
    IssueRequestOutcome out;
    const std::string repo = opt.repo.empty() ? ev.repo : opt.repo;
    if (!core::plausible_login(ev.login))
        out.reasons.push_back("the author's login is not a GitHub login");
    else if (!core::association_may_request(ev.association))
        out.reasons.push_back("the author's association with the repository is " +
                              core::quote_safe_word(ev.association) +
                              "; OWNER, MEMBER or COLLABORATOR is required");
    else {
        out.permission = host.collaborator_permission(repo, ev.login);
        if (!core::permission_may_request(out.permission))
            out.reasons.push_back("the author has '" + out.permission +
                                  "' access to the repository; write, maintain or admin is "
                                  "required");
    }
    if (out.reasons.empty()) {
        auto parsed = core::parse_issue_request(ev.body);
        out.reasons = std::move(parsed.problems);
        out.values = parsed.values;
    }
    out.accepted = out.reasons.empty();
    if (!opt.comment)
        return out;
    CommentRequest req;
    req.repo = repo;
    req.number = ev.number;
    req.key = opt.key;
    if (!out.accepted) {
        req.body = refusal_comment(out.reasons);
        out.note = post_sticky_comment(host, req);
        return out;
    }
    // Accepted: turn an earlier refusal into an acknowledgement, but do not add a comment.
    const std::string marker = report::marker_for_key(opt.key);
    const std::string author = comment_author(host);
    for (const auto& c : host.list_comments(repo, ev.number))
        if (c.author == author && c.body.find(marker) != std::string::npos) {
            req.body = accepted_comment(out.values);
            out.note = post_sticky_comment(host, req);
            break;
        }
    return out;
}

} // namespace perfsweep::app
