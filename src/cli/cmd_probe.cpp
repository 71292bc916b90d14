// `perfsweep probe`: measure one source state (the current checkout by default) and exit
// 0 good / 1 bad / 125 skip, or >= 128 to abort `git bisect run` (usage and infra errors too).

#include "app/run_point.hpp"
#include "cli/context.hpp"
#include "cli/history_option.hpp"
#include "cli/runner_flags.hpp"
#include "core/exit_code.hpp"
#include "core/probe_decision.hpp"
#include "core/stats.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <memory>

namespace perfsweep::cli {

namespace {

struct ProbeFlags {
    RunnerFlags runner;
    std::string label = "probe";
    std::string history, good_label, reference, threshold = "0.05";
    std::vector<std::string> good_values;
    int repeats = 1;
};

double parse_number(const std::string& text, const std::string& flag) {
    const auto v = util::parse_double(text);
    if (!v || !std::isfinite(*v))
        throw_usage(flag + " '" + text + "': expected a number");
    return *v;
}

// The good level of metric mode: --good-value values, --reference, or the history's latest ok
// record of the benchmark.
double good_level(const ProbeFlags& f, const ports::RunnerConfig& cfg, Context& ctx) {
    const int given = (!f.good_values.empty() ? 1 : 0) + (!f.reference.empty() ? 1 : 0) +
                      (!f.history.empty() ? 1 : 0);
    if (given != 1)
        throw_usage("probe (metric mode): give exactly one reference: --good-value V (repeatable),"
                    " --reference V with --threshold, or --history FILE");
    if (!f.good_values.empty()) {
        std::vector<double> v;
        for (const auto& g : f.good_values)
            v.push_back(parse_number(g, "--good-value"));
        return core::median(v);
    }
    if (!f.reference.empty())
        return parse_number(f.reference, "--reference");
    auto store = open_history_option(ctx.adapters, f.history); // not empty here
    const auto load = store->load();
    const std::string bench = cfg.benchmark.empty() ? cfg.test_command : cfg.benchmark;
    // With --good-label: every ok value recorded under that label (e.g. the last good nightly
    // investigate named), pooled; without: the latest ok record.
    std::vector<double> pooled;
    for (auto it = load.records.rbegin(); it != load.records.rend(); ++it)
        if (it->status == core::Status::ok && !it->values.empty() && it->exit_codes.empty() &&
            it->benchmark == bench && it->metric == cfg.metric) {
            if (f.good_label.empty())
                return core::median(it->values);
            if (it->label == f.good_label)
                pooled.insert(pooled.end(), it->values.begin(), it->values.end());
        }
    if (!pooled.empty())
        return core::median(pooled);
    throw_usage("--history " + f.history + ": no ok record of benchmark '" + bench +
                "' with metric '" + cfg.metric + "'" +
                (f.good_label.empty() ? "" : " and label '" + f.good_label + "'") +
                " to use as the good level (set --benchmark)");
}

void execute(ProbeFlags& f, Context& ctx) {
    auto& a = ctx.adapters;
    if (!a.make_runner)
        throw_infra("no runner is available in this build");
    const auto cfg = runner_config(f.runner);
    const auto mode = cfg.exit_code_mode ? core::RunMode::exit_code : core::RunMode::metric;
    if (f.repeats < 1)
        throw_usage("--repeats " + std::to_string(f.repeats) + ": expected 1 or more");
    core::ProbeReference ref;
    ref.mode = mode;
    ref.direction = cfg.direction;
    if (!f.good_label.empty() && f.history.empty())
        throw_usage("--good-label '" + f.good_label + "': needs --history (the records it names)");
    if (mode == core::RunMode::metric) {
        ref.threshold = parse_number(f.threshold, "--threshold");
        if (!(ref.threshold >= 0 && ref.threshold < 1))
            throw_usage("--threshold '" + f.threshold +
                        "': expected a fraction in [0, 1), e.g. "
                        "0.05 for 5 %");
        ref.good_level = good_level(f, cfg, ctx);
        if (*ref.good_level == 0)
            throw_usage("probe: the good level is 0; a relative threshold needs a non-zero level");
    } else if (!f.good_values.empty() || !f.reference.empty() || !f.history.empty())
        throw_usage("probe --mode exit-code: --good-value, --reference and --history are for the "
                    "metric mode; the exit status decides here");

    ports::PointRequest req;
    req.repeats = f.repeats;
    req.label = f.label;
    req.stage = core::Stage::commit;
    auto runner = a.make_runner(cfg);
    const auto m =
        app::run_point(*runner, cfg.build_command.empty() ? nullptr : runner.get(), req, nullptr);
    const auto d = core::decide_probe(m, ref);
    const std::string who = f.label == "probe" ? "probe" : "probe " + f.label;
    std::printf("%s: %s (%s)%s\n", who.c_str(), std::string(core::to_string(d.verdict)).c_str(),
                d.why.c_str(), m.log.empty() ? "" : ("; log " + m.log).c_str());
    std::fflush(stdout);
    switch (d.verdict) {
    case core::ExitVerdict::good:
        ctx.exit_code = exit_ok;
        break;
    case core::ExitVerdict::bad:
        ctx.exit_code = exit_probe_bad;
        break;
    case core::ExitVerdict::skip:
        ctx.exit_code = exit_probe_skip;
        break;
    case core::ExitVerdict::abort:
        throw_infra("probe " + f.label + ": " + d.why);
    }
}

} // namespace

void add_probe(CLI::App& app, Context& ctx) {
    auto f = std::make_shared<ProbeFlags>();
    auto* cmd = app.add_subcommand(
        "probe", "Measure one source state and exit 0 good / 1 bad / 125 skip (for git bisect "
                 "run); usage and infrastructure errors exit 128");
    using O = RunnerOption;
    add_runner_flags(
        cmd, f->runner,
        {{O::test, "Test command template (split once, no shell), e.g. 'python3 b.py'"},
         {O::mode, "metric | exit-code"}});
    cmd->add_option("--good-value", f->good_values,
                    "Metric mode: a known good value (repeatable; their median is the level)");
    cmd->add_option("--reference", f->reference, "Metric mode: the good level (with --threshold)");
    cmd->add_option("--history", f->history,
                    "Metric mode: the good level is the latest ok record of the benchmark here");
    cmd->add_option("--good-label", f->good_label,
                    "With --history: the good level is every ok value recorded under this label "
                    "(e.g. investigate's last-good nightly), not the latest record");
    cmd->add_option("--threshold", f->threshold,
                    "Metric mode: relative change that is bad, e.g. 0.05 for 5 % worse")
        ->capture_default_str();
    add_runner_flags(
        cmd, f->runner,
        {O::runtime,
         {O::image, "Image to test in (container runtimes)"},
         {O::build, "Build command run first; a failed build is a skip (125)"},
         {O::keep_container, "docker/podman: one container; build and test run with exec"}});
    cmd->add_option("--label", f->label, "Label of the state (logs go under it)")
        ->capture_default_str();
    cmd->add_option("--repeats", f->repeats, "Runs of the test")->capture_default_str();
    add_runner_flags(
        cmd, f->runner,
        {O::warmup,
         {O::timeout, "Per-run timeout (a timeout is a skip)"},
         O::metric,
         O::metric_regex,
         {O::benchmark, "Benchmark name (to match --history records; default: the test command)"},
         O::direction,
         O::logs,
         O::mount,
         O::env,
         {O::workdir, "Working directory (default: the current one)"}});
    cmd->callback([f, &ctx] { execute(*f, ctx); });
}

} // namespace perfsweep::cli
