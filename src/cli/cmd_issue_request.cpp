#include "app/issue_request.hpp"
#include "cli/context.hpp"
#include "util/error.hpp"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <memory>

namespace perfsweep::cli {
namespace {

std::string env_or(const char* name, const std::string& fallback = "") {
    const char* v = std::getenv(name);
    return v && *v ? v : fallback;
}

} // namespace

void add_issue_request(CLI::App& app, Context& ctx) {
    struct Opts {
        std::string event, event_name, repo, key = "issue-request", token_env = "GITHUB_TOKEN";
        bool no_comment = false;
    };
    auto o = std::make_shared<Opts>();
    auto* cmd = app.add_subcommand(
        "issue-request",
        "Accept or refuse an investigation requested in an issue: checks the author's write "
        "access and reads only the ```perfsweep block (from, to, metric, threshold, mode)");
    cmd->add_option("--event", o->event, "Event payload JSON (default: GITHUB_EVENT_PATH)");
    cmd->add_option("--event-name", o->event_name,
                    "issues or issue_comment (default: GITHUB_EVENT_NAME, else inferred)");
    cmd->add_option("--repo", o->repo, "OWNER/NAME (default: the event's repository)");
    cmd->add_option("--key", o->key, "Sticky key of the refusal comment");
    cmd->add_option("--token-env", o->token_env, "Environment variable holding the token");
    cmd->add_flag("--no-comment", o->no_comment, "Refuse without commenting on the issue");
    cmd->callback([&ctx, o] {
        auto& a = ctx.adapters;
        const std::string path = o->event.empty() ? env_or("GITHUB_EVENT_PATH") : o->event;
        if (path.empty())
            throw_usage("issue-request: no --event FILE and GITHUB_EVENT_PATH is not set");
        const auto ev =
            a.parse_issue_event(o->event_name.empty() ? env_or("GITHUB_EVENT_NAME") : o->event_name,
                                a.files->read_text(path), path);
        app::IssueRequestOptions opt;
        opt.repo = o->repo.empty() ? env_or("GITHUB_REPOSITORY", ev.repo) : o->repo;
        opt.key = o->key;
        opt.comment = !o->no_comment;
        auto host = a.open_code_host(o->token_env);
        const auto res = app::handle_issue_request(*host, ev, opt);
        const std::string url = res.note ? res.note->url : "";
        if (!res.accepted) {
            std::string why;
            for (const auto& r : res.reasons)
                why += (why.empty() ? "" : "; ") + r;
            std::fprintf(stderr, "perfsweep: issue-request refused (issue #%lld): %s\n", ev.number,
                         why.c_str());
            if (!url.empty())
                std::fprintf(stderr, "perfsweep: the reason was posted at %s\n", url.c_str());
            a.actions->annotate("error", "perfsweep: issue request refused", why);
            a.actions->set_outputs({{"accepted", "false"}, {"comment-url", url}});
            ctx.exit_code = exit_usage;
            return;
        }
        const auto& v = res.values;
        std::printf("from=%s\nto=%s\nmetric=%s\nthreshold=%s\nmode=%s\nissue=%lld\n",
                    v.from.c_str(), v.to.c_str(), v.metric.c_str(), v.threshold.c_str(),
                    v.mode.c_str(), ev.number);
        a.actions->set_outputs({{"accepted", "true"},
                                {"from", v.from},
                                {"to", v.to},
                                {"metric", v.metric},
                                {"threshold", v.threshold},
                                {"mode", v.mode},
                                {"issue", std::to_string(ev.number)}});
        ctx.exit_code = exit_ok;
    });
}

} // namespace perfsweep::cli
