#include "app/demo/demo.hpp"

#include "app/dashboard.hpp"
#include "app/options.hpp"
#include "util/error.hpp"

namespace perfsweep::app {

std::string quote_word(const std::string& word) {
    std::string out = "'";
    for (char c : word) {
        if (c == '\'')
            out += "'\\''";
        else
            out += c;
    }
    return out + "'";
}

DemoCommand resolve_demo(const OptionValues& v) {
    DemoCommand c;
    c.options.dir = v.text("output-dir");
    c.json = v.flag("json");
    return c;
}

OptionValues demo_investigate_values(const ports::DemoWorld& world, const std::string& dir) {
    const std::string exe = quote_word(world.self_exe);
    OptionValues v(*find_command_spec("investigate"));
    v.set("history", dir + "/history.jsonl");
    v.set("runtime", "none");
    v.set("image", world.nightlies + "/{date}");
    // Deterministic noise (from label and repeat): the offline demo must tell the same story on
    // every machine and every run (with a fresh draw per run, detect on 8 history points missed
    // the 7 % drop in about 1 demo of 40: see the closing note on small-n detection).
    v.set("test", exe + " demo-bench measure --deterministic --nightly {image} --label {date} "
                        "--repeat {repeat}");
    v.set("metric", "MLUPS");
    v.set("unit", "MLUPS");
    v.set("benchmark", "MLUPS3d.py 256 200 (demo)");
    v.set("logs", dir + "/logs");
    v.set("timeout", "60s");
    v.set("env-probe", "none");
    v.set("commits-probe", "cat {image}/manifest.txt");
    v.set("record", "2023-08-24"); // today's nightly
    std::vector<std::string> repos;
    for (const auto& [name, path] : world.repos)
        repos.push_back(name + "=" + path);
    v.set("repo", repos);
    v.set("step", "1h");
    v.set_flag("to-commit");
    v.set("build", exe + " demo-bench build --compiler {path:compiler}");
    v.set("hourly-test", exe + " demo-bench measure --deterministic --framework {path:framework} "
                               "--compiler {path:compiler} --label {time} --repeat {repeat}");
    v.set("state", dir + "/state");
    v.set("output-dir", dir + "/report");
    v.set("key", "demo");
    v.set("threshold", "0.015"); // the earlier framework drop is 2 %: report it as a change point
    v.check();
    return v;
}

DemoResult run_demo(const DemoOptions& options, ports::Adapters& a, ResultDecoder decode) {
    DemoResult out;
    out.dir = options.dir;
    for (int n = 2; a.files.exists(out.dir); ++n)
        out.dir = options.dir + "-" + std::to_string(n);
    a.files.make_dirs(out.dir);
    auto& progress = a.progress;
    progress.line("perfsweep demo: building two source repos and 10 nightlies in " + out.dir +
                  "/world");
    const auto world = a.demo_world.create(out.dir + "/world");
    const std::string dir = world.root.substr(0, world.root.size() - std::string("/world").size());

    // The demo's investigation, as the options a user would give `perfsweep investigate`:
    // resolved by the same rules as the command line (app/options.cpp).
    const auto values = demo_investigate_values(world, dir);
    InvestigateOptions o = resolve_investigate(values, {}).options;
    o.reproduce = "perfsweep demo --output-dir " + dir;
    const auto& d = o.daily_runner;

    // The nightly job's earlier runs: 2023-08-15 .. 08-21 and 08-23 were recorded (the runner was
    // offline on the 22nd). They are real runs of the simulated benchmark, with their commits.
    for (const auto& [from, to] : {std::pair<std::string, std::string>{"2023-08-15", "2023-08-21"},
                                   {"2023-08-23", "2023-08-23"}}) {
        progress.line("== earlier nightly jobs: recording " + from + " .. " + to);
        auto runner = a.runners.make(d);
        auto probe = a.runners.make(commits_probe_runner(d, o.commits_probe));
        auto history = a.histories.open(o.history);
        DailyOptions past;
        past.dates = resolve_date_range(from, to);
        past.benchmark = d.benchmark;
        past.sweep = o.daily.sweep;
        past.sweep.strategy = core::SweepStrategy::exhaustive;
        run_daily(past, a, {*runner, probe.get(), history.get()});
    }

    // Today's nightly job: record 2023-08-24, then investigate.
    out.investigate = run_investigate(o, a);

    // The history's dashboard: every point, the change points and the investigation's marks.
    DashboardRequest dash;
    dash.history = o.history;
    dash.out_dir = dir + "/dashboard";
    dash.title = "perfsweep demo";
    dash.threshold.value = o.threshold;
    out.dashboard = run_dashboard(dash, a, decode).index_path;
    return out;
}

} // namespace perfsweep::app
