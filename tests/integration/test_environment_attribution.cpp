// Environment attribution in-process (investigate, daily and run's use cases, options resolved
// by the CLI's rules) with the real local adapters: the fake docker answering each simulated
// nightly's environment (tests/support/fake_docker, env.json) found on PATH by the process
// runner, real child processes and a real git repo for the hourly stage.

#include "adapters/json/measurement_json.hpp"
#include "adapters/process/process_runner.hpp"
#include "adapters/system/local_files.hpp"
#include "app/daily.hpp"
#include "app/investigate.hpp"
#include "app/jax_toolbox.hpp"
#include "app/options.hpp"
#include "app/run_point.hpp"
#include "core/exit_policy.hpp"
#include "report/result_json.hpp"
#include "support/command_values.hpp"
#include "support/env_guard.hpp"
#include "support/json_doc.hpp"
#include "support/local_world.hpp"
#include "support/recording_progress.hpp"
#include "support/temp_dir.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>
#include <rapidjson/document.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

using namespace perfsweep;
using namespace perfsweep::test;
namespace fs = std::filesystem;

namespace {

const std::string k_image = "ghcr.io/nvidia/jax:nightly-{date}";
const std::vector<std::string> k_dates = {"2023-08-21", "2023-08-22", "2023-08-23"};

std::string image(const std::string& date) {
    return "ghcr.io/nvidia/jax:nightly-" + date;
}

std::string json_string(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\')
            out += '\\';
        if (c == '\n') {
            out += "\\n";
            continue;
        }
        if (c == '\x1b') {
            out += "\\u001b";
            continue;
        }
        out += c;
    }
    return out + "\"";
}

/// A simulated registry of nightlies: every date is a local image; `env` gives each date's probe
/// output and labels. The benchmark is slower from 2023-08-22 on.
struct World {
    TempDir dir{"perfsweep-envfp"};
    std::string bin = dir.file("bin"), state = dir.file("state"), log = dir.file("calls.jsonl");
    std::string bench = dir.file("bench.sh");
    std::unique_ptr<EnvGuard> path, docker_log, docker_state; ///< the fake docker, first on PATH

    World() {
        fs::create_directories(bin);
        fs::create_directories(state);
        fs::create_symlink(std::string(PERFSWEEP_SOURCE_DIR) + "/tests/support/fake_docker",
                           bin + "/docker");
        std::string images;
        for (const auto& d : k_dates)
            images += image(d) + "\n";
        write_file(state + "/images", images);
        write_file(bench, "if [[ \"$PERFSWEEP_DATE\" > 2023-08-21 ]]; then b=450; else b=500; fi\n"
                          "echo \"MLUPS: $b.$PERFSWEEP_REPEAT\"\n");
        path = std::make_unique<EnvGuard>("PATH", bin + ":" + std::getenv("PATH"));
        docker_log = std::make_unique<EnvGuard>("FAKE_DOCKER_LOG", log);
        docker_state = std::make_unique<EnvGuard>("FAKE_DOCKER_STATE", state);
    }
    /// Each date's probe text and labels.
    void environments(const std::map<std::string, std::pair<std::string, std::string>>& by_date) {
        std::string j = "{";
        for (const auto& [date, e] : by_date)
            j += (j.size() > 1 ? "," : "") + json_string(image(date)) +
                 ":{\"probe\":" + json_string(e.first) + ",\"labels\":" + e.second + "}";
        write_file(state + "/env.json", j + "}");
    }
    /// cuDNN 9.1.0 up to 2023-08-21, 9.2.0 from 2023-08-22 (CUDA unchanged).
    void cudnn_update() {
        std::map<std::string, std::pair<std::string, std::string>> m;
        for (const auto& d : k_dates)
            m[d] = {"cuda=12.4.1\ncudnn=" + std::string(d > "2023-08-21" ? "9.2.0" : "9.1.0") +
                        "\njax=0.4.31\n",
                    "{\"org.opencontainers.image.version\":\"nightly\"}"};
        environments(m);
    }
    std::string calls() const { return fs::exists(log) ? read_file(log) : std::string(); }
    /// investigate over the three nightlies (docker, exhaustive, 2 repeats), then `extra`.
    std::vector<std::string> investigate_args(const std::vector<std::string>& extra) const {
        std::vector<std::string> a = {"--history",  dir.file("h.jsonl"),
                                      "--record",   k_dates.back(),
                                      "--from",     k_dates.front(),
                                      "--to",       k_dates.back(),
                                      "--image",    k_image,
                                      "--runtime",  "docker",
                                      "--test",     "bash " + bench,
                                      "--strategy", "exhaustive",
                                      "--repeats",  "2",
                                      "--logs",     dir.file("logs")};
        a.insert(a.end(), extra.begin(), extra.end());
        return a;
    }
};

/// `perfsweep investigate ARGS` in `w`: the pipeline with the real local adapters.
Ran investigate(LocalWorld& w, const std::vector<std::string>& args) {
    return run_in(w, [&](Ran& r) {
        auto req = app::resolve_investigate(command_values("investigate", options_of_args(args)),
                                            {"", &w.actions});
        auto& o = req.options;
        app::prepare_source_runner(o.hourly_runner, o.hourly_options, req.jax_toolbox, w.repos,
                                   w.files, &o.commits_probe);
        const auto res = app::run_investigate(o, w.adapters);
        r.out = res.markdown;
        r.exit_code = res.exit_code;
    });
}

/// `perfsweep run ARGS --json` in `w`: one point with the real process runner; `out` is the
/// measurement's JSON line.
Ran run_point(LocalWorld& w, const std::vector<std::string>& args) {
    return run_in(w, [&](Ran& r) {
        const auto req = app::resolve_run(command_values("run", options_of_args(args)),
                                          static_cast<util::UnixSeconds>(w.clock.now()));
        auto runner = w.runners.make(req.runner);
        const auto ms = app::run_point_metrics(*runner, nullptr, req.point, nullptr);
        REQUIRE(ms.size() == 1);
        r.out = adapters::measurement_to_json(ms[0]);
        r.exit_code = core::point_exit_code(ms[0].status);
    });
}

/// `perfsweep daily ARGS --json` in `w`.
Ran daily(LocalWorld& w, const std::vector<std::string>& args) {
    return run_in(w, [&](Ran& r) {
        auto req = app::resolve_daily(command_values("daily", options_of_args(args)));
        auto runner = w.runners.make(req.runner);
        std::unique_ptr<ports::BuildingRunner> probe;
        if (req.commits_probe)
            probe = w.runners.make(*req.commits_probe);
        auto res = app::run_daily(req.options, w.adapters, {*runner, probe.get(), nullptr});
        r.out = report::render_json(res);
        r.exit_code = core::sweep_exit_code(res);
    });
}

/// The Actions step outputs `w` recorded, as GITHUB_OUTPUT's lines "name=value".
std::string outputs_text(const LocalWorld& w) {
    std::string out;
    for (const auto& [k, v] : w.actions.outputs)
        out += k + "=" + v + "\n";
    return out;
}

} // namespace

TEST_CASE("investigate: an environmental change skips the hourly stage and says so",
          "[environment][docker]") {
    World w;
    w.cudnn_update();
    const std::string out = w.dir.file("out");
    LocalWorld lw;
    lw.actions.active = true; // inside Actions: the step outputs are written
    const auto r =
        investigate(lw, w.investigate_args({"--commits-probe", "echo jax 0123456789abcdef0123",
                                            "--repo", "jax=" + w.dir.file("no-such-clone"),
                                            "--build", "true", "--output-dir", out}));
    INFO(r.err);
    CHECK(r.exit_code != 2);
    CHECK(r.exit_code != 3);
    CHECK_THAT(r.err, Catch::Contains("hourly skipped: nightlies 2023-08-21 and 2023-08-22 were "
                                      "built from the same source commits"));
    CHECK(w.calls().find("\"-d\"") == std::string::npos); // no kept container: no hourly build
    const auto md = read_file(out + "/report.md");
    CHECK_THAT(md, Catch::Contains("environmental: the source commits are identical") &&
                       Catch::Contains("### Environment") &&
                       Catch::Contains("| cuDNN | 9.1.0 | 9.2.0 |"));
    // result.json: the daily boundary found the day and attributes it to cuDNN alone.
    const auto d = parse_json_object(read_file(out + "/result.json"));
    REQUIRE(d["daily"].Size() == 1);
    const auto& daily = d["daily"][0];
    REQUIRE(daily["boundaries"].Size() == 1);
    const auto& b = daily["boundaries"][0];
    CHECK(std::string(b["last_before"].GetString()) == "2023-08-21");
    CHECK(std::string(b["first_after"].GetString()) == "2023-08-22");
    const auto& a = b["attribution"];
    CHECK(std::string(a["cause"].GetString()) == "environment");
    REQUIRE(a["components"].Size() == 1);
    CHECK(std::string(a["components"][0].GetString()) == "cudnn");
    REQUIRE(a["environment_diff"].Size() == 2); // cuDNN, and each nightly's own image digest
    CHECK(std::string(a["environment_diff"][0]["name"].GetString()) == "cuDNN");
    CHECK(std::string(a["environment_diff"][0]["before"].GetString()) == "9.1.0");
    CHECK(std::string(a["environment_diff"][0]["after"].GetString()) == "9.2.0");
    CHECK(std::string(a["environment_diff"][1]["component"].GetString()) == "image.digest");
    CHECK(d["hourly"].Size() == 0);
    // The regression was narrowed to the day, without an hourly stage.
    REQUIRE(d["regressions"].Size() == 1);
    CHECK(d["regressions"][0]["hourly"].IsNull());
    // Each point records its fingerprint: probe entries, labels and the digest.
    const auto& p = daily["points"][0];
    CHECK(std::string(p["environment"]["cudnn"].GetString()) == "9.1.0");
    CHECK(std::string(p["environment"]["label.org.opencontainers.image.version"].GetString()) ==
          "nightly");
    CHECK(p["environment"].HasMember("image.digest"));
    // Probed once per image, not per repeat (2 repeats per date): 3 probes, 3 label reads.
    const auto calls = w.calls();
    std::size_t probes = 0, labels = 0;
    for (std::size_t at = 0;
         (at = calls.find("# perfsweep-env-probe: prints", at)) != std::string::npos; ++at)
        ++probes;
    for (std::size_t at = 0; (at = calls.find(".Config.Labels", at)) != std::string::npos; ++at)
        ++labels;
    CHECK(probes == 3);
    CHECK(labels == 3);
    // Budget used counts every benchmark run once (the record step's too), and the commits probe
    // (run after each date's first ok run) is not a benchmark run.
    std::size_t bench_runs = 0, commit_probes = 0;
    for (std::size_t at = 0; (at = calls.find("bench.sh", at)) != std::string::npos; ++at)
        ++bench_runs;
    for (std::size_t at = 0; (at = calls.find("0123456789abcdef0123", at)) != std::string::npos;
         ++at)
        ++commit_probes;
    CHECK(commit_probes > 0);
    CHECK_THAT(md, Catch::Contains("runs: " + std::to_string(bench_runs) + " "));
    const auto outputs = outputs_text(lw);
    CHECK_THAT(outputs, Catch::Contains("cause") && Catch::Contains("environment") &&
                            Catch::Contains("cudnn 9.1.0 -> 9.2.0"));
}

TEST_CASE("investigate: sources and environment both changed → hourly runs in the good image",
          "[environment][docker]") {
    World w;
    w.cudnn_update();
    // A real jax clone: c0 (good nightly) → c1 → c2 (bad nightly), an hour apart.
    const std::string repo = w.dir.file("jax");
    fs::create_directories(repo);
    auto git = [&](std::vector<std::string> args, const std::string& when = "") {
        std::vector<std::string> argv = {
            "git", "-C", repo, "-c", "user.name=Dev", "-c", "user.email=dev@example.com"};
        argv.insert(argv.end(), args.begin(), args.end());
        std::vector<std::string> env;
        if (!when.empty())
            env = {"GIT_AUTHOR_DATE=" + when, "GIT_COMMITTER_DATE=" + when};
        auto r = run_command(argv, env);
        REQUIRE(r.exit_code == 0);
        return std::string(r.out.substr(0, r.out.find('\n')));
    };
    git({"init", "-q", "-b", "main"});
    std::vector<std::string> sha;
    for (int i = 0; i < 3; ++i) {
        write_file(repo + "/f.txt", std::to_string(i) + "\n");
        git({"add", "-A"});
        git({"commit", "-q", "-m", "c" + std::to_string(i)},
            "2023-08-21T1" + std::to_string(i) + ":00:00Z");
        sha.push_back(git({"rev-parse", "HEAD"}));
    }
    for (const auto& d : k_dates)
        write_file(w.dir.file("commits-" + d + ".txt"),
                   "jax " + sha[d > "2023-08-21" ? 2 : 0] + "\n");
    const std::string out = w.dir.file("out");
    LocalWorld lw;
    const auto r = investigate(
        lw, w.investigate_args({"--commits-probe", "cat " + w.dir.file("commits-{date}.txt"),
                                "--repo", "jax=" + repo, "--ref", "main", "--build", "true",
                                "--output-dir", out}));
    INFO(r.err);
    CHECK(r.exit_code != 2);
    CHECK(r.exit_code != 3);
    CHECK_THAT(r.err, Catch::Contains("sources and environment both changed"));
    // The hourly stage rebuilt the sources in a kept container of the last good nightly.
    CHECK_THAT(w.calls(), Catch::Contains("\"run\", \"-d\"") &&
                              Catch::Contains(image("2023-08-21") + "\", \"sleep\", \"infinity\""));
    const auto md = read_file(out + "/report.md");
    CHECK_THAT(md, Catch::Contains("sources (jax) and environment both changed") &&
                       Catch::Contains("inside the last good nightly's image"));
}

TEST_CASE("run: hostile probe output and labels are rejected, nothing is executed",
          "[environment][docker]") {
    World w;
    const std::string marker = w.dir.file("PWNED");
    w.environments(
        {{"2023-08-21",
          {"cudnn=9.1.0\n::set-output name=cause::source\n::add-mask::x\nnccl=2.21\x1b[31m\n"
           "gpu name=H100\nshell=$(touch " +
               marker + ")\n" + std::string(300, 'k') + "=1\n",
           "{\"ok\":\"1\",\"bad\\nkey\":\"x\",\"evil\":\"a\\u001b]0;b\"}"}}});
    LocalWorld lw;
    const auto r =
        run_point(lw, {"--runtime", "docker", "--image", k_image, "--date", "2023-08-21", "--test",
                       "bash " + w.bench, "--logs", w.dir.file("logs"), "--json"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0); // a bad probe is a warning, never a failed measurement
    const auto m = parse_json_object(r.out);
    const auto& e = m["environment"];
    CHECK(std::string(e["cudnn"].GetString()) == "9.1.0");
    CHECK(std::string(e["shell"].GetString()) == "$(touch " + marker + ")");
    CHECK(std::string(e["label.ok"].GetString()) == "1");
    CHECK(e.MemberCount() == 3);
    CHECK_FALSE(fs::exists(marker));
    CHECK_THAT(r.err, Catch::Contains(":2: rejected") && Catch::Contains(":4: rejected") &&
                          Catch::Contains("2 label(s) rejected"));
    CHECK(r.err.find("set-output") == std::string::npos);
    CHECK(r.err.find('\x1b') == std::string::npos);
}

TEST_CASE("env-probe none records no environment and runs no probe", "[environment][docker]") {
    World w;
    w.cudnn_update();
    LocalWorld lw;
    const auto r = run_point(lw, {"--runtime", "docker", "--image", k_image, "--date", "2023-08-21",
                                  "--test", "bash " + w.bench, "--logs", w.dir.file("logs"),
                                  "--env-probe", "none", "--json"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK_FALSE(parse_json_object(r.out).HasMember("environment"));
    CHECK(w.calls().find("perfsweep-env-probe") == std::string::npos);
    CHECK(w.calls().find(".Config.Labels") == std::string::npos);
}

TEST_CASE("runtime none: a custom probe per date, a failing probe is only a warning",
          "[environment]") {
    TempDir dir("perfsweep-envfp-none");
    write_file(dir.file("env-2023-08-20.txt"), "cuda=12.3\n");
    LocalWorld lw;
    const auto ok = run_point(lw, {"--date", "2023-08-20", "--test", "echo MLUPS: 5", "--logs",
                                   dir.file("logs"), "--env-probe",
                                   "cat " + dir.file("env-{date}.txt"), "--json"});
    INFO(ok.err);
    REQUIRE(ok.exit_code == 0);
    CHECK(std::string(parse_json_object(ok.out)["environment"]["cuda"].GetString()) == "12.3");
    LocalWorld lw2;
    const auto bad = run_point(lw2, {"--date", "2023-08-21", "--test", "echo MLUPS: 5", "--logs",
                                     dir.file("logs"), "--env-probe",
                                     "cat " + dir.file("env-{date}.txt"), "--json"});
    INFO(bad.err);
    REQUIRE(bad.exit_code == 0);
    CHECK_FALSE(parse_json_object(bad.out).HasMember("environment"));
    CHECK_THAT(bad.err, Catch::Contains("warning: environment probe failed"));
}

TEST_CASE("slurm: the probe runs once as an srun job step, like the test", "[environment][slurm]") {
    const std::string support = std::string(PERFSWEEP_SOURCE_DIR) + "/tests/support/slurm/";
    TempDir cluster("perfsweep-envfp-slurm");
    const auto start = run_command({"bash", support + "start.sh", cluster.path().string()});
    struct Stop {
        std::string script, dir;
        ~Stop() { run_command({"bash", script, dir}); }
    } stop{support + "stop.sh", cluster.path().string()};
    if (start.exit_code != 0) {
        REQUIRE(start.exit_code == 77); // Slurm cannot run on this machine; anything else is a bug
        WARN("SKIPPED: " << start.err);
        return;
    }
    EnvGuard conf("SLURM_CONF", cluster.file("slurm.conf"));
    TempDir dir("perfsweep-envfp-slurm-run");
    write_file(dir.file("bench.sh"), "echo MLUPS: 1$PERFSWEEP_REPEAT\n");
    write_file(dir.file("probe.sh"), "echo slurm_job=$SLURM_JOB_ID\necho cuda=12.4.1\n");
    perfsweep::ports::RunnerConfig c;
    c.runtime = "slurm";
    c.test_command = "bash " + dir.file("bench.sh");
    c.env_probe = "bash " + dir.file("probe.sh");
    c.logs_dir = dir.file("logs");
    c.timeout_s = 60;
    RecordingProgress progress;
    perfsweep::adapters::SystemClock clock;
    perfsweep::adapters::ProcessRunner runner(c, progress, clock);
    perfsweep::ports::PointRequest req;
    req.label = "2023-08-21";
    req.values = {{"date", "2023-08-21"}};
    req.repeats = 2;
    const auto m = runner.run_points({req, req});
    REQUIRE(m.size() == 2);
    CHECK(m[0].environment.at("cuda") == "12.4.1");
    CHECK_FALSE(m[0].environment.at("slurm_job").empty()); // it ran inside a job step
    CHECK(m[1].environment == m[0].environment);           // probed once: the cached fingerprint
    CHECK(fs::exists(dir.file("logs/2023-08-21.env-probe/env-probe.log")));
    CHECK_FALSE(fs::exists(dir.file("logs/2023-08-21.env-probe.2")));
}

TEST_CASE("daily --commits-label: image labels name the commits without a probe run",
          "[environment][docker]") {
    // The nightlies carry their jax commit as the OCI revision label (read by `image inspect`,
    // never pulled for): the same commit on 08-21 and 08-22 with a cuDNN update between them is
    // environmental; 08-23's label is not a SHA and is ignored with a warning naming the label.
    World w;
    const std::string good = "0123456789abcdef0123456789abcdef01234567";
    std::map<std::string, std::pair<std::string, std::string>> m;
    for (const auto& d : k_dates)
        m[d] = {"cuda=12.4.1\ncudnn=" + std::string(d > "2023-08-21" ? "9.2.0" : "9.1.0") + "\n",
                "{\"org.opencontainers.image.revision\":\"" +
                    (d == "2023-08-23" ? std::string("$(touch x) main") : good) + "\"}"};
    w.environments(m);
    const std::vector<std::string> base = {"--from",     k_dates.front(),
                                           "--to",       k_dates.back(),
                                           "--image",    k_image,
                                           "--runtime",  "docker",
                                           "--test",     "bash " + w.bench,
                                           "--strategy", "exhaustive",
                                           "--repeats",  "2",
                                           "--logs",     w.dir.file("logs")};
    auto args = base;
    for (const auto& a : {"--commits-label", "jax=org.opencontainers.image.revision", "--json"})
        args.push_back(a);
    LocalWorld lw;
    const auto r = daily(lw, args);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const auto d = parse_json_object(r.out);
    const auto& pts = d["points"];
    REQUIRE(pts.Size() == 3);
    CHECK(std::string(pts[0]["commits"]["jax"].GetString()) == good);
    CHECK(std::string(pts[1]["commits"]["jax"].GetString()) == good);
    CHECK_FALSE(pts[2]["commits"].HasMember("jax"));
    REQUIRE(d["boundaries"].Size() == 1);
    const auto& attr = d["boundaries"][0]["attribution"];
    CHECK(std::string(attr["cause"].GetString()) == "environment");
    CHECK(attr["commits_known"].GetBool());
    CHECK_THAT(r.err, Catch::Contains("2023-08-23: image label 'org.opencontainers.image.revision' "
                                      "is not a commit SHA"));
    CHECK(r.err.find("touch x") == std::string::npos); // the untrusted value is not repeated
    CHECK(w.calls().find("\"pull\"") == std::string::npos);

    // Usage errors name the flag and what is expected; nothing runs.
    for (const auto& [bad, expect] : std::vector<std::pair<std::vector<std::string>, std::string>>{
             {{"--commits-label", "jax"}, "expected REPO=LABEL"},
             {{"--commits-label", "jax=a b"}, "expected REPO=LABEL"},
             {{"--commits-label", "jax=x", "--commits-label", "jax=y"}, "is given twice"},
             {{"--commits-label", "jax=x", "--env-probe", "none"}, "drop --env-probe none"},
             {{"--commits-label", "jax=x", "--runtime=none"}, "docker or podman"}}) {
        auto a = base;
        if (bad.back() == "--runtime=none")
            a.erase(a.begin() + 6, a.begin() + 8); // drop "--runtime docker"
        a.insert(a.end(), bad.begin(), bad.end());
        LocalWorld each;
        const auto e = daily(each, a);
        INFO(e.err);
        CHECK(e.exit_code == 2);
        CHECK_THAT(e.err, Catch::Contains("--commits-label") && Catch::Contains(expect));
    }
}

TEST_CASE("the built-in probe reads GPU, toolkit and wheels on the host (runtime none)",
          "[environment]") {
    // The real default script, run on this machine with stand-ins first on PATH and PYTHONPATH:
    // nvidia-smi and nvcc print what the real tools print; a jax[cuda] pip layout provides
    // dist-info directories only (nothing is imported).
    TempDir dir("perfsweep-envfp-host");
    const std::string bin = dir.file("bin"), site = dir.file("site");
    fs::create_directories(bin);
    for (const auto& d : {"jax-0.4.31.dist-info", "jaxlib-0.4.31.dist-info",
                          "nvidia_cuda_runtime_cu12-12.6.77.dist-info",
                          "nvidia_cublas_cu12-12.6.4.1.dist-info", "requests-2.31.0.dist-info"})
        fs::create_directories(site + "/" + d);
    write_file(bin + "/nvidia-smi",
               "#!/bin/sh\ncase \"$*\" in *driver_version*) echo 'NVIDIA H200, 580.159.04';;\n"
               "*) echo 'NVIDIA H200';; esac\n");
    write_file(bin + "/nvcc", "#!/bin/sh\necho 'nvcc: NVIDIA (R) Cuda compiler driver'\n"
                              "echo 'Cuda compilation tools, release 12.6, V12.6.85'\n");
    for (const auto& t : {"nvidia-smi", "nvcc"})
        fs::permissions(bin + "/" + t, fs::perms::owner_all);
    EnvGuard path("PATH", bin + ":" + std::getenv("PATH")), pythonpath("PYTHONPATH", site);
    LocalWorld lw;
    const auto r = run_point(lw, {"--label", "host", "--test", "echo MLUPS: 5", "--logs",
                                  dir.file("logs"), "--env-probe", "default", "--json"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const auto m = parse_json_object(r.out);
    REQUIRE(m.HasMember("environment"));
    const auto& e = m["environment"];
    auto get = [&](const char* k) {
        return e.HasMember(k) ? std::string(e[k].GetString()) : std::string("(absent)");
    };
    CHECK(get("gpu") == "NVIDIA H200");
    CHECK(get("driver") == "580.159.04");
    CHECK(get("gpu_count") == "1");
    CHECK(get("jax") == "0.4.31");
    CHECK(get("jaxlib") == "0.4.31");
    CHECK(get("nvidia_cuda_runtime_cu12") == "12.6.77");
    CHECK(get("requests") == "(absent)"); // only jax*, nvidia_*, flax, numpy are recorded
    CHECK_THAT(get("python"), Catch::Matches("[0-9]+\\.[0-9]+\\.[0-9]+"));
    if (!fs::exists("/usr/local/cuda/version.json")) { // a toolkit manifest would take precedence
        CHECK(get("cuda") == "12.6.85");
        CHECK(get("cudart") == "12.6.77");
        CHECK(get("cublas") == "12.6.4.1");
    }
}
