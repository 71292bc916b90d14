#include "app/report.hpp"
#include "cli/context.hpp"
#include "cli/output.hpp"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>

namespace perfsweep::cli {

void add_report(CLI::App& app, Context& ctx) {
    auto req = std::make_shared<app::ReportRequest>();
    auto* cmd = app.add_subcommand(
        "report", "Render a stage result (detect, daily, hourly, investigate) as markdown or JSON");
    cmd->add_option("--input", req->input, "Result JSON file ('-' = stdin)")->required();
    cmd->add_option("--format", req->format, "markdown (default) or json")
        ->check(CLI::IsMember({"markdown", "json"}));
    cmd->add_option("--key", req->key, "Sticky-comment key written as <!-- perfsweep:KEY -->");
    cmd->add_option("--output", req->output, "Write the report to this file instead of stdout");
    cmd->callback([&ctx, req] {
        const std::string out = app::make_report(ctx.adapters, *req);
        if (req->output.empty())
            req->format == "json" ? write_json(out) : write_inert(out);
        ctx.exit_code = exit_ok;
    });
}

} // namespace perfsweep::cli
