#include "app/record.hpp"
#include "cli/context.hpp"
#include "cli/flag_values.hpp"
#include "cli/output.hpp"
#include "util/error.hpp"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>

namespace perfsweep::cli {

namespace {
struct RecordFlags {
    app::RecordRequest request;
    std::string direction = "higher";
    std::string status;
    std::string match = "all";
};
} // namespace

void add_record(CLI::App& app, Context& ctx) {
    auto flags = std::make_shared<RecordFlags>();
    auto& r = flags->request;
    auto* cmd = app.add_subcommand(
        "record", "Append one measurement to a history: values given with --value, or extracted "
                  "from benchmark output with --output-file (- = stdin)");
    cmd->add_option("--history", r.history, "History to append to (JSON Lines file)")->required();
    cmd->add_option("--benchmark", r.base.benchmark, "Benchmark name, e.g. 'MLUPS3d.py 256 200'");
    cmd->add_option("--metric", r.base.metric, "Metric name, e.g. MLUPS")->required();
    cmd->add_option("--unit", r.base.unit, "Unit of the metric");
    cmd->add_option("--direction", flags->direction, "higher|lower is better (default higher)");
    cmd->add_option("--value", r.values, "A measured value (repeat for repeats)");
    cmd->add_option("--output-file", r.output_file,
                    "Benchmark output to extract the metric from (- = stdin)");
    cmd->add_option("--metric-regex", r.metric_regex,
                    "ECMAScript regex with one capture group (default '<METRIC>:\\s*<number>')");
    cmd->add_option("--match", flags->match,
                    "Which matches to keep when the output has several: all|first|last");
    cmd->add_option("--label", r.base.label, "Point label, e.g. 2023-08-24 (default: today, UTC)");
    cmd->add_option("--image", r.base.image, "Image reference the benchmark ran in");
    cmd->add_option("--digest", r.base.digest, "Image digest");
    cmd->add_option("--commit", r.commits, "Source commit NAME=SHA (repeatable)");
    cmd->add_option("--runner", r.runner, "Runner fingerprint KEY=VAL (repeatable)");
    cmd->add_option("--status", flags->status, "ok|failed|timeout|missing (default ok)");
    cmd->add_option("--reason", r.base.reason, "Why the measurement is not ok");
    cmd->add_option("--log", r.base.log, "Path of the run's log file");
    cmd->callback([&ctx, flags] {
        app::RecordRequest req = flags->request;
        req.base.direction = direction_flag(flags->direction);
        if (!flags->status.empty())
            req.status = flags->status;
        if (flags->match == "all")
            req.match = app::MatchPolicy::all;
        else if (flags->match == "first")
            req.match = app::MatchPolicy::first;
        else if (flags->match == "last")
            req.match = app::MatchPolicy::last;
        else
            throw_usage("--match '" + flags->match + "': expected all, first or last");
        const core::Measurement m = app::run_record(req, ctx.adapters);
        print_inert("recorded %s %s: %s (%zu value%s) into %s\n", m.label.c_str(), m.metric.c_str(),
                    std::string(core::to_string(m.status)).c_str(), m.values.size(),
                    m.values.size() == 1 ? "" : "s", req.history.c_str());
        ctx.exit_code = exit_ok;
    });
}

} // namespace perfsweep::cli
