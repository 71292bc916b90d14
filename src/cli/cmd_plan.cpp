#include "app/fanout.hpp"
#include "cli/context.hpp"
#include "cli/history_option.hpp"
#include "cli/output.hpp"
#include "util/error.hpp"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>

namespace perfsweep::cli {

namespace {

struct PlanFlags {
    std::string stage = "daily", from, to, image, history, benchmark;
    bool exclude_measured = false;
    int max_points = 0;
};

void execute(const PlanFlags& f, Context& ctx) {
    auto& a = ctx.adapters;
    if (f.stage == "hourly")
        throw_usage("--stage hourly: not supported by `perfsweep plan` yet; list the hourly "
                    "states with `perfsweep hourly --plan` (each state needs a build, so the "
                    "hourly stage fans out best over --gpus or the Slurm runtime)");
    if (f.stage != "daily")
        throw_usage("--stage '" + f.stage + "': expected daily");
    if (!a.matrix_json)
        throw_infra("no matrix JSON writer is available in this build");
    auto history = open_history_option(a, f.history);
    if (f.exclude_measured && f.benchmark.empty())
        throw_usage("--exclude-measured needs --benchmark NAME (the benchmark whose measured "
                    "dates are left out)");
    app::PlanOptions o;
    o.from = f.from;
    o.to = f.to;
    o.image = f.image;
    o.benchmark = f.benchmark;
    o.exclude_measured = f.exclude_measured;
    o.max_points = f.max_points;
    const auto plan = app::plan_daily_matrix(o, history.get());
    for (const auto& note : plan.notes)
        a.progress->line(note);
    a.progress->line("plan: " + std::to_string(plan.entries.size()) + " matrix entries for " +
                     std::to_string(plan.candidates) + " dates " + f.from + " .. " + f.to);
    write_json(a.matrix_json(plan.entries) + "\n");
    std::fflush(stdout);
    ctx.exit_code = exit_ok;
}

} // namespace

void add_plan(CLI::App& app, Context& ctx) {
    auto f = std::make_shared<PlanFlags>();
    auto* cmd = app.add_subcommand(
        "plan", "Print the points of a stage as a GitHub Actions matrix (JSON) for fan-out");
    cmd->add_option("--stage", f->stage, "daily (hourly: use `perfsweep hourly --plan`)")
        ->capture_default_str();
    cmd->add_option("--from", f->from, "First date YYYY-MM-DD")->required();
    cmd->add_option("--to", f->to, "Last date YYYY-MM-DD")->required();
    cmd->add_option("--image", f->image,
                    "Image template with {date} or {yyyy} {mm} {dd}, e.g. "
                    "ghcr.io/nvidia/jax:nightly-{date}");
    cmd->add_option("--history", f->history, "History to read measured dates from");
    cmd->add_option("--benchmark", f->benchmark, "Benchmark name, to match history records");
    cmd->add_flag("--exclude-measured", f->exclude_measured,
                  "Leave out dates already measured ok in --history for --benchmark");
    cmd->add_option("--max-points", f->max_points,
                    "At most N dates spread evenly, both ends included (the coarse round)")
        ->capture_default_str();
    cmd->callback([f, &ctx] { execute(*f, ctx); });
}

} // namespace perfsweep::cli
