#include "app/detect.hpp"
#include "cli/context.hpp"
#include "cli/flag_values.hpp"
#include "cli/output.hpp"
#include "report/detect_text.hpp"
#include "util/error.hpp"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>

namespace perfsweep::cli {

namespace {
struct DetectFlags {
    app::DetectRequest request;
    std::string format;
    std::string direction;
    std::string threshold = "0.02";
    bool json = false;
};
} // namespace

void add_detect(CLI::App& app, Context& ctx) {
    auto flags = std::make_shared<DetectFlags>();
    auto* cmd = app.add_subcommand(
        "detect", "Find change points in a metric's history and decide whether the latest level "
                  "is a regression (exit 1), an improvement (5), neither (0) or inconclusive (4)");
    cmd->add_option("--history", flags->request.history, "History to read (JSON Lines file)");
    cmd->add_option("--input", flags->request.input,
                    "Detect directly on a file: csv, grep output, benchmark-action data, jsonl "
                    "(- = stdin)");
    cmd->add_option("--format", flags->format,
                    "Format of --input: csv|grep|benchmark-action|jsonl (default: auto-detect)");
    cmd->add_option("--benchmark", flags->request.benchmark, "Benchmark to select");
    cmd->add_option("--metric", flags->request.metric,
                    "Metric to select (and the metric name for csv input)");
    cmd->add_option("--unit", flags->request.unit, "Unit for csv/grep input");
    cmd->add_option("--direction", flags->direction,
                    "higher|lower is better (overrides the stored direction)");
    cmd->add_option("--threshold", flags->threshold,
                    "Smallest change that counts: relative (0.02 or 2%; default 2%) or, from "
                    "100% on, a ratio of how much worse (150% or 1.5x)");
    cmd->add_flag("--json", flags->json, "Print the result as JSON");
    cmd->callback([&ctx, flags] {
        auto& a = ctx.adapters;
        app::DetectRequest req = flags->request;
        if (!flags->format.empty())
            req.format = import_format_flag(flags->format);
        if (!flags->direction.empty())
            req.direction = direction_flag(flags->direction);
        req.threshold = app::parse_threshold(flags->threshold);
        const app::DetectOutcome out = app::run_detect(req, a);
        for (const auto& w : out.warnings)
            a.progress->line("warning: " + w);
        const std::string text =
            flags->json ? a.detect_to_json(out.result) : report::render_detect_text(out.result);
        if (flags->json)
            write_json(text);
        else
            write_inert(text);
        if (a.actions) // the action's outputs (no-op outside GitHub Actions)
            a.actions->set_outputs(app::detect_outputs(out.result));
        ctx.exit_code = core::exit_code_for(out.result.verdict);
    });
}

} // namespace perfsweep::cli
