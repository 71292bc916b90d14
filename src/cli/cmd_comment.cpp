#include "app/comment.hpp"
#include "cli/context.hpp"
#include "cli/output.hpp"
#include "util/error.hpp"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <memory>

namespace perfsweep::cli {

void add_comment(CLI::App& app, Context& ctx) {
    struct Opts {
        std::string repo, body_file, new_issue, key = "default", token_env = "GITHUB_TOKEN";
        long long pr = 0, issue = 0;
        std::vector<std::string> labels;
    };
    auto o = std::make_shared<Opts>();
    auto* cmd = app.add_subcommand(
        "comment",
        "Post or update the sticky perfsweep comment on a PR or issue (GitHub REST API)");
    cmd->add_option("--repo", o->repo, "OWNER/NAME (default: GITHUB_REPOSITORY)");
    auto* pr = cmd->add_option("--pr", o->pr, "Pull request number")->check(CLI::PositiveNumber);
    auto* is = cmd->add_option("--issue", o->issue, "Issue number")->check(CLI::PositiveNumber);
    auto* ni =
        cmd->add_option("--new-issue", o->new_issue,
                        "Open an issue with this title (or reuse the open one with the marker)");
    pr->excludes(is)->excludes(ni);
    is->excludes(ni);
    cmd->add_option("--label", o->labels, "Label for --new-issue (repeatable)");
    cmd->add_option("--body-file", o->body_file, "Markdown body ('-' = stdin)")->required();
    cmd->add_option("--key", o->key, "Sticky key: the marker <!-- perfsweep:KEY -->");
    cmd->add_option("--token-env", o->token_env, "Environment variable holding the token");
    cmd->callback([&ctx, o] {
        auto& a = ctx.adapters;
        app::CommentRequest req;
        req.repo = o->repo;
        if (req.repo.empty()) {
            const char* env = std::getenv("GITHUB_REPOSITORY");
            req.repo = env ? env : "";
        }
        if (req.repo.empty())
            throw_usage("comment: --repo OWNER/NAME is required (GITHUB_REPOSITORY is not set)");
        req.key = o->key;
        req.labels = o->labels;
        req.new_issue_title = o->new_issue;
        if (o->pr)
            req.number = o->pr;
        if (o->issue)
            req.number = o->issue;
        if (!req.number && req.new_issue_title.empty()) {
            const auto t = a.actions->event_target();
            if (!t.number)
                throw_usage("comment: no --pr, --issue or --new-issue, and " + t.why_none +
                            "; give one of them explicitly");
            req.number = t.number;
        }
        req.body = a.files->read_text(o->body_file);
        auto host = a.open_code_host(o->token_env);
        const auto res = app::post_sticky_comment(*host, req);
        print_inert("%s %s#%lld%s%s\n", res.action.c_str(), req.repo.c_str(), res.number,
                    res.url.empty() ? "" : " ", res.url.c_str());
        a.actions->set_outputs({{"comment-url", res.url}, {"number", std::to_string(res.number)}});
        ctx.exit_code = exit_ok;
    });
}

} // namespace perfsweep::cli
