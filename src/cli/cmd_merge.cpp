#include "app/fanout.hpp"
#include "cli/context.hpp"
#include "cli/history_option.hpp"
#include "cli/output.hpp"
#include "report/daily_text.hpp"
#include "report/result_json.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>

namespace perfsweep::cli {

namespace {

struct MergeFlags {
    std::vector<std::string> inputs, positional;
    std::string stage = "daily", history, from, to, benchmark;
    double alpha = 0.01, min_change = 0.02;
    bool json = false;
};

void execute(const MergeFlags& f, Context& ctx) {
    auto& a = ctx.adapters;
    if (f.stage != "daily")
        throw_usage("--stage '" + f.stage + "': expected daily");
    if (!a.measurement_from_json || !a.expand_result_files)
        throw_infra("no JSON decoder is available in this build");
    auto paths = f.inputs;
    paths.insert(paths.end(), f.positional.begin(), f.positional.end());
    if (paths.empty())
        throw_usage("merge: give the result files (or a directory of them) with --inputs");
    std::vector<app::MergeInput> inputs;
    for (const auto& p : paths)
        for (const auto& file : a.expand_result_files(p))
            inputs.push_back({file, a.files->read_text(file)});

    auto history = open_history_option(a, f.history);
    app::MergeOptions o;
    o.from = f.from;
    o.to = f.to;
    o.benchmark = f.benchmark;
    o.sweep.alpha = f.alpha;
    o.sweep.min_change = f.min_change;
    const auto r = app::merge_points(inputs, o, a.measurement_from_json, history.get());

    for (const auto& w : r.daily.warnings)
        a.progress->line("warning: " + w);
    a.progress->line("merged " + std::to_string(r.records) + " records from " +
                     std::to_string(inputs.size()) + " files");
    if (history)
        a.progress->line("history " + history->describe() + ": appended " +
                         std::to_string(r.appended) + ", " + std::to_string(r.already) +
                         " already there, " + std::to_string(r.from_history) +
                         " dates taken from it");
    if (!r.next.empty())
        a.progress->line(
            std::to_string(r.next.size()) +
            " dates to measure next (refine the changed intervals): " + util::join(r.next, ", "));
    if (f.json)
        write_json(report::render_json(r.daily));
    else
        write_inert(report::render_daily(r.daily));
    std::fflush(stdout);
    bool undecided = false;
    for (const auto& b : r.daily.sweep.boundaries)
        undecided = undecided || b.kind == core::ChangeKind::unknown;
    ctx.exit_code = undecided ? exit_inconclusive : exit_ok;
}

} // namespace

void add_merge(CLI::App& app, Context& ctx) {
    auto f = std::make_shared<MergeFlags>();
    auto* cmd = app.add_subcommand(
        "merge", "Combine the per-point results of matrix jobs into the history and a daily "
                 "result");
    cmd->add_option("--inputs", f->inputs,
                    "Result files (`perfsweep run --json` output or JSON Lines) or directories")
        ->expected(1, -1);
    cmd->add_option("files", f->positional, "More result files or directories");
    cmd->add_option("--stage", f->stage, "daily")->capture_default_str();
    cmd->add_option("--history", f->history,
                    "Append the records it lacks (same label+benchmark+timestamp are skipped)");
    cmd->add_option("--from", f->from, "First date (default: the earliest merged date)");
    cmd->add_option("--to", f->to, "Last date (default: the latest merged date)");
    cmd->add_option("--benchmark", f->benchmark, "Merge only this benchmark's records");
    cmd->add_option("--alpha", f->alpha, "Significance level of the two-sample test")
        ->capture_default_str();
    cmd->add_option("--min-change", f->min_change, "Smallest relative change to report")
        ->capture_default_str();
    cmd->add_flag("--json", f->json, "Print the result as JSON (the `daily --json` format)");
    cmd->callback([f, &ctx] { execute(*f, ctx); });
}

} // namespace perfsweep::cli
