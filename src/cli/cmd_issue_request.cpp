#include "adapters/json/issue_event_json.hpp"
#include "app/options_data.hpp"
#include "cli/context.hpp"
#include "util/error.hpp"

#include <cstdio>

namespace perfsweep::cli {

void run_issue_request(const app::OptionValues& values, Context& ctx) {
    auto& a = ctx.adapters;
    auto c = app::resolve_issue_request(values);
    const std::string path = c.event.empty() ? env_text("GITHUB_EVENT_PATH") : c.event;
    if (path.empty())
        throw_usage("issue-request: no --event FILE and GITHUB_EVENT_PATH is not set");
    const auto ev = adapters::issue_event_from_json(
        c.event_name.empty() ? env_text("GITHUB_EVENT_NAME") : c.event_name,
        a.files.read_text(path), path);
    auto& opt = c.options;
    if (opt.repo.empty())
        opt.repo = !env_text("GITHUB_REPOSITORY").empty() ? env_text("GITHUB_REPOSITORY") : ev.repo;
    auto host = a.code_hosts.open(c.token_env);
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
        a.actions.annotate("error", "perfsweep: issue request refused", why);
        a.actions.set_outputs({{"accepted", "false"}, {"comment-url", url}});
        ctx.exit_code = exit_usage;
        return;
    }
    const auto& v = res.values;
    std::printf("from=%s\nto=%s\nmetric=%s\nthreshold=%s\nmode=%s\nissue=%lld\n", v.from.c_str(),
                v.to.c_str(), v.metric.c_str(), v.threshold.c_str(), v.mode.c_str(), ev.number);
    a.actions.set_outputs({{"accepted", "true"},
                           {"from", v.from},
                           {"to", v.to},
                           {"metric", v.metric},
                           {"threshold", v.threshold},
                           {"mode", v.mode},
                           {"issue", std::to_string(ev.number)}});
    ctx.exit_code = exit_ok;
}

} // namespace perfsweep::cli
