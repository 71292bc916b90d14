#include "app/options_data.hpp"
#include "cli/context.hpp"
#include "cli/output.hpp"

namespace perfsweep::cli {

void run_comment(const app::OptionValues& values, Context& ctx) {
    auto& a = ctx.adapters;
    auto c = app::resolve_comment(values, {env_text("GITHUB_REPOSITORY"), &a.actions});
    auto& req = c.request;
    req.body = a.files.read_text(c.body_file);
    auto host = a.code_hosts.open(c.token_env);
    const auto res = app::post_sticky_comment(*host, req);
    print_inert("%s %s#%lld%s%s\n", res.action.c_str(), req.repo.c_str(), res.number,
                res.url.empty() ? "" : " ", res.url.c_str());
    a.actions.set_outputs({{"comment-url", res.url}, {"number", std::to_string(res.number)}});
    ctx.exit_code = exit_ok;
}

} // namespace perfsweep::cli
