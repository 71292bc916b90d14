// `perfsweep hourly`: narrow a good→bad window over JAX/XLA (any repos) to an hour, then a commit.

#include "adapters/json/result_json.hpp"
#include "app/hourly.hpp"
#include "app/jax_toolbox.hpp"
#include "app/options.hpp"
#include "app/report.hpp"
#include "cli/context.hpp"
#include "cli/output.hpp"
#include "core/exit_policy.hpp"
#include "report/hourly_text.hpp"
#include "report/result_json.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

#include <cstdio>
#include <tuple>

namespace perfsweep::cli {

namespace {

void print_hourly(const app::HourlyRequest& req, const core::HourlyResult& result, Context& ctx) {
    if (req.json)
        write_json(report::render_json(result));
    else
        write_inert(report::render_hourly_text(result));
    ctx.exit_code = core::hourly_exit_code(result);
}

} // namespace

void run_hourly(const app::OptionValues& values, Context& ctx) {
    auto& a = ctx.adapters;
    auto req = app::resolve_hourly(values);
    auto& o = req.options;
    a.secrets.protect_env(o.token_env); // the builds and benchmarks must not inherit the token
    if (!req.from_result.empty()) {
        const auto& path = req.from_result;
        std::tie(o.from, o.to) = app::hourly_window_of(
            adapters::read_result_document(a.files.read_text(path), path), path);
    }
    o.secrets = a.secrets.values();
    if (!req.runner) {
        print_hourly(req, app::plan_hourly(o, a), ctx);
        return;
    }
    print_hourly(req, app::run_source_search(o, *req.runner, req.jax_toolbox, a), ctx);
}

} // namespace perfsweep::cli
