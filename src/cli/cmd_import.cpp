#include "app/import.hpp"
#include "cli/context.hpp"
#include "cli/flag_values.hpp"
#include "cli/output.hpp"
#include "util/error.hpp"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>

namespace perfsweep::cli {

namespace {
struct ImportFlags {
    app::ImportRequest request;
    std::string format;
    std::string direction;
};
} // namespace

void add_import(CLI::App& app, Context& ctx) {
    auto flags = std::make_shared<ImportFlags>();
    auto* cmd = app.add_subcommand(
        "import", "Append measurements from csv, grep output, github-action-benchmark data or "
                  "JSON Lines files to a history (all files or nothing)");
    cmd->add_option("inputs", flags->request.inputs, "Files to import (- = stdin)")->required();
    cmd->add_option("--history", flags->request.history, "History to append to (JSON Lines file)")
        ->required();
    cmd->add_option("--format", flags->format,
                    "csv|grep|benchmark-action|jsonl (default: auto-detect per file)");
    cmd->add_option("--benchmark", flags->request.defaults.benchmark, "Benchmark name to record");
    cmd->add_option("--metric", flags->request.defaults.metric,
                    "Metric name (required for csv; grep infers it from the first line)");
    cmd->add_option("--unit", flags->request.defaults.unit, "Unit to record");
    cmd->add_option("--direction", flags->direction, "higher|lower is better (default higher)");
    cmd->callback([&ctx, flags] {
        app::ImportRequest req = flags->request;
        if (!flags->format.empty())
            req.format = import_format_flag(flags->format);
        if (!flags->direction.empty())
            req.defaults.direction = direction_flag(flags->direction);
        const auto r = app::run_import(req, ctx.adapters);
        print_inert("imported %zu measurement%s into %s (%zu already there)\n", r.appended,
                    r.appended == 1 ? "" : "s", req.history.c_str(), r.already);
        ctx.exit_code = exit_ok;
    });
}

} // namespace perfsweep::cli
