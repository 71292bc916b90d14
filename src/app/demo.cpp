#include "app/demo.hpp"

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

DemoResult run_demo(const DemoOptions& options, ports::Adapters& a) {
    if (!a.demo_world)
        throw_infra("demo: this build has no demo world adapter");
    DemoResult out;
    out.dir = options.dir;
    for (int n = 2; a.files->exists(out.dir); ++n)
        out.dir = options.dir + "-" + std::to_string(n);
    a.files->make_dirs(out.dir);
    auto& progress = *a.progress;
    progress.line("perfsweep demo: building two source repos and 10 nightlies in " + out.dir +
                  "/world");
    const auto world = a.demo_world->create(out.dir + "/world");
    const std::string dir = world.root.substr(0, world.root.size() - std::string("/world").size());
    const std::string exe = quote_word(world.self_exe);

    InvestigateOptions o;
    o.history = dir + "/history.jsonl";
    auto& d = o.daily_runner;
    d.runtime = "none";
    d.image = world.nightlies + "/{date}";
    // Deterministic noise (from label and repeat): the offline demo must tell the same story on
    // every machine and every run (with a fresh draw per run, detect on 8 history points missed
    // the 7 % drop in about 1 demo of 40: see the closing note on small-n detection).
    d.test_command = exe + " demo-bench measure --deterministic --nightly {image} --label {date} "
                           "--repeat {repeat}";
    d.metric = "MLUPS";
    d.unit = "MLUPS";
    d.benchmark = "MLUPS3d.py 256 200 (demo)";
    d.logs_dir = dir + "/logs";
    d.timeout_s = 60;
    o.commits_probe = "cat {image}/manifest.txt";
    o.daily.sweep.repeats = 3;
    o.daily.sweep.max_repeats = 12;

    // The nightly job's earlier runs: 2023-08-15 .. 08-21 and 08-23 were recorded (the runner was
    // offline on the 22nd). They are real runs of the simulated benchmark, with their commits.
    for (const auto& [from, to] : {std::pair<std::string, std::string>{"2023-08-15", "2023-08-21"},
                                   {"2023-08-23", "2023-08-23"}}) {
        progress.line("== earlier nightly jobs: recording " + from + " .. " + to);
        auto runner = a.make_runner(d);
        auto pc = d;
        pc.test_command = o.commits_probe;
        pc.logs_dir = d.logs_dir + "/probe";
        auto probe = a.make_runner(pc);
        auto history = a.open_history(o.history);
        DailyOptions past;
        past.from = from;
        past.to = to;
        past.benchmark = d.benchmark;
        past.sweep = o.daily.sweep;
        past.sweep.strategy = core::SweepStrategy::exhaustive;
        run_daily(past, *runner, probe.get(), *a.files, *a.clock, progress, history.get(),
                  MeasurementCodec{a.measurement_json, a.measurement_from_json});
    }

    // Today's nightly job: record 2023-08-24, then investigate.
    o.record_date = "2023-08-24";
    for (const auto& [name, path] : world.repos)
        o.hourly_options.repos.push_back({name, path, "origin/main"});
    o.hourly_options.step = 3600;
    o.hourly_options.repeats = 3;
    o.hourly_options.to_commit = true;
    auto& h = o.hourly_runner;
    h = d;
    h.image.clear();
    h.build_command = exe + " demo-bench build --compiler {path:compiler}";
    h.test_command = exe + " demo-bench measure --deterministic --framework {path:framework} "
                           "--compiler {path:compiler} --label {time} --repeat {repeat}";
    o.state_dir = dir + "/state";
    o.out_dir = dir + "/report";
    o.key = "demo";
    o.threshold = 0.015; // the earlier framework drop is 2 %: report it as a change point too
    o.reproduce = "perfsweep demo --dir " + dir;
    out.investigate = run_investigate(o, a);
    return out;
}

} // namespace perfsweep::app
