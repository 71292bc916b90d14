#include "app/run_point.hpp"
#include "cli/context.hpp"
#include "cli/history_option.hpp"
#include "cli/output.hpp"
#include "cli/runner_flags.hpp"
#include "core/exit_code.hpp"
#include "report/point_table.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>

namespace perfsweep::cli {

namespace {

struct RunFlags {
    RunnerFlags runner;
    std::string label, date, history, stage = "record";
    int repeats = 1;
    bool json = false;
    std::vector<std::string> commits, paths;
};

// "NAME=VALUE" → pair; the flag is named in the error.
std::pair<std::string, std::string> key_value(const std::string& text, const std::string& flag) {
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0)
        throw_usage(flag + " '" + text + "': expected NAME=VALUE");
    return {text.substr(0, eq), text.substr(eq + 1)};
}

void execute(RunFlags& f, Context& ctx) {
    auto& a = ctx.adapters;
    if (!a.make_runner)
        throw_infra("no runner is available in this build");
    auto cfg = runner_config(f.runner);
    if (f.repeats < 1)
        throw_usage("--repeats " + std::to_string(f.repeats) + ": expected 1 or more");

    ports::PointRequest req;
    req.repeats = f.repeats;
    const auto stage = core::parse_stage(f.stage);
    if (!stage)
        throw_usage("--stage '" + f.stage + "': expected record, daily, hourly or commit");
    req.stage = *stage;
    if (!f.date.empty()) {
        if (!util::parse_date(f.date))
            throw_usage("--date '" + f.date + "': expected a calendar date YYYY-MM-DD");
        req.values["date"] = f.date;
    }
    for (const auto& kv : f.commits) {
        auto [name, sha] = key_value(kv, "--commit");
        req.values["commit:" + name] = sha;
        req.commits[name] = sha;
    }
    for (const auto& kv : f.paths) {
        auto [name, path] = key_value(kv, "--path");
        req.values["path:" + name] = path;
    }
    req.label = !f.label.empty() ? f.label
                : !f.date.empty()
                    ? f.date
                    : util::format_iso8601(static_cast<util::UnixSeconds>(a.clock->now()));

    auto history = open_history_option(a, f.history);
    auto runner = a.make_runner(cfg);
    auto m = app::run_point(*runner, cfg.build_command.empty() ? nullptr : runner.get(), req,
                            history.get());
    if (m.metric.empty()) { // a failed build never reached the runner
        m.metric = cfg.metric;
        m.unit = cfg.unit.empty() ? cfg.metric : cfg.unit;
        m.benchmark = cfg.benchmark.empty() ? cfg.test_command : cfg.benchmark;
        m.direction = cfg.direction;
    }
    if (f.json) {
        if (!a.measurement_json)
            throw_infra("no JSON encoder is available in this build");
        write_json(a.measurement_json(m) + "\n");
    } else {
        write_inert(report::render_points({m}));
        if (history)
            print_inert("recorded in %s\n", history->describe().c_str());
    }
    std::fflush(stdout);
    ctx.exit_code = m.status == core::Status::ok ? exit_ok : exit_inconclusive;
}

} // namespace

void add_run(CLI::App& app, Context& ctx) {
    auto f = std::make_shared<RunFlags>();
    auto* cmd = app.add_subcommand(
        "run",
        "Run the benchmark for one point (repeats, timeout, runtime) and print or record it");
    using O = RunnerOption;
    add_runner_flags(cmd, f->runner, {O::runtime, O::image, O::test, O::build, O::keep_container});
    cmd->get_option("--test")->required();
    cmd->add_option("--label", f->label, "Label of the point (default: --date, else now)");
    cmd->add_option("--date", f->date, "Date of the point, YYYY-MM-DD ({date}, {yyyy}...)");
    cmd->add_option("--stage", f->stage, "record | daily | hourly | commit")->capture_default_str();
    cmd->add_option("--repeats", f->repeats, "Values wanted")->capture_default_str();
    add_runner_flags(cmd, f->runner,
                     {O::warmup, O::timeout, O::gpus, O::metric, O::metric_regex, O::unit,
                      O::benchmark, O::direction, O::logs});
    cmd->add_option("--history", f->history, "Append the measurement to this history");
    cmd->add_flag("--json", f->json, "Print the measurement as JSON");
    add_runner_flags(cmd, f->runner, {O::mount, O::env_probe, O::env, O::workdir});
    cmd->add_option("--commit", f->commits, "NAME=SHA for {commit:NAME} (repeatable)");
    cmd->add_option("--path", f->paths, "NAME=DIR for {path:NAME} (repeatable)");
    add_runner_flags(cmd, f->runner, {O::keep_images, O::srun_arg, O::mode});
    cmd->callback([f, &ctx] { execute(*f, ctx); });
}

} // namespace perfsweep::cli
