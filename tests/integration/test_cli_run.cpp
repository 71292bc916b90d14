#include "adapters/process/process_runner.hpp"
#include "cli/cli.hpp"
#include "support/fakes/world.hpp"
#include "support/temp_dir.hpp"

#include <catch2/catch.hpp>

#include <filesystem>

using namespace perfsweep;

namespace {

struct CliEnv {
    test::TempDir dir{"perfsweep-cli-run"};
    std::string bench(const std::string& body) {
        const auto p = dir.file("bench.sh");
        test::write_file(p, body);
        return "bash " + p;
    }
};

/// The real runners (ProcessRunner) in a bundle of fakes: `perfsweep run` in-process.
class RealRunners final : public ports::Runners {
public:
    explicit RealRunners(fakes::World& w) : m_w(w) {}
    std::unique_ptr<ports::BuildingRunner> make(const ports::RunnerConfig& config) override {
        return std::make_unique<adapters::ProcessRunner>(config, m_w.progress, m_w.clock);
    }

private:
    fakes::World& m_w;
};

/// `perfsweep ARGS...` through cli::run with real runs, the history and files in memory.
int run_in_process(fakes::World& w, std::vector<std::string> args) {
    RealRunners runners(w);
    ports::Adapters a{w.files, w.progress, w.clock,      w.actions, w.histories,
                      runners, w.repos,    w.code_hosts, w.secrets, w.demo_world};
    args.insert(args.begin(), "perfsweep");
    std::vector<char*> argv;
    for (auto& s : args)
        argv.push_back(s.data());
    return cli::run(static_cast<int>(argv.size()), argv.data(), a);
}

} // namespace

TEST_CASE("perfsweep run with several metrics: one series each, all recorded; a missing one fails",
          "[cli][run][series]") {
    CliEnv e;
    fakes::World w;
    const auto cmd = e.bench("echo \"MLUPS_128: 55${PERFSWEEP_REPEAT}\"\necho noise\n"
                             "echo \"MLUPS_256: 56${PERFSWEEP_REPEAT}\"\n");
    const std::vector<std::string> base = {"run",
                                           "--test",
                                           cmd,
                                           "--repeats",
                                           "2",
                                           "--date",
                                           "2024-05-01",
                                           "--env-probe",
                                           "none",
                                           "--logs",
                                           e.dir.file("logs"),
                                           "--history",
                                           "h.jsonl",
                                           "--benchmark",
                                           "lbm"};
    auto with = [&](std::vector<std::string> more) {
        auto args = base;
        args.insert(args.end(), more.begin(), more.end());
        return args;
    };
    const auto& h = w.histories.at("h.jsonl").records;
    SECTION("--metric repeated") {
        CHECK(run_in_process(w, with({"--metric", "MLUPS_128", "--metric", "MLUPS_256"})) == 0);
        REQUIRE(h.size() == 2);
        CHECK(h[0].metric == "MLUPS_128");
        CHECK(h[0].values == std::vector<double>{551, 552});
        CHECK(h[1].metric == "MLUPS_256");
        CHECK(h[1].values == std::vector<double>{561, 562});
        for (const auto& m : h) {
            CHECK(m.status == core::Status::ok);
            CHECK(m.benchmark == "lbm");
            CHECK(m.label == "2024-05-01");
        }
    }
    SECTION("a --metric-regex with a name group: a series per name it matched") {
        CHECK(run_in_process(w, with({"--metric-regex", R"((?<name>MLUPS_\d+):\s*([0-9.]+))"})) ==
              0);
        REQUIRE(h.size() == 2);
        CHECK(h[0].metric == "MLUPS_128");
        CHECK(h[1].metric == "MLUPS_256");
        CHECK(h[1].values == std::vector<double>{561, 562});
    }
    SECTION("a metric the output lacks: its point fails (exit 4), the others are kept") {
        CHECK(run_in_process(w, with({"--metric", "MLUPS_128", "--metric", "GFLOPS"})) == 4);
        REQUIRE(h.size() == 2);
        CHECK(h[0].status == core::Status::ok);
        CHECK(h[1].metric == "GFLOPS");
        CHECK(h[1].status == core::Status::failed);
        CHECK(h[1].values.empty());
    }
}

TEST_CASE("perfsweep run prints a table of repeats with median and spread", "[cli][run]") {
    CliEnv e;
    const auto cmd = e.bench("echo \"MLUPS: 10${PERFSWEEP_REPEAT}\"\n");
    auto r =
        test::run_perfsweep({"run", "--runtime", "none", "--repeats", "3", "--warmup", "1",
                             "--test", cmd, "--date", "2023-08-24", "--logs", e.dir.file("logs")});
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("median ± sd") && Catch::Contains("2023-08-24") &&
                          Catch::Contains("101 102 103") && Catch::Contains("102 ± 1 MLUPS") &&
                          Catch::Contains(" ok ") && Catch::Contains(e.dir.file("logs")));
    CHECK_THAT(r.err, Catch::Contains("warmup 1/1") && Catch::Contains("run 3/3"));
    CHECK(std::filesystem::exists(e.dir.file("logs/2023-08-24/warmup-1.log")));
    CHECK(std::filesystem::exists(e.dir.file("logs/2023-08-24/run-3.log")));
}

TEST_CASE("perfsweep run --json reports status, values and log, failures exit 4", "[cli][run]") {
    CliEnv e;
    auto ok = test::run_perfsweep({"run", "--test", e.bench("echo 'tflops: 2.5e1'\n"), "--metric",
                                   "tflops", "--json", "--logs", e.dir.file("logs"), "--label",
                                   "L1", "--commit", "xla=abc123"});
    CHECK(ok.exit_code == 0);
    CHECK_THAT(ok.out, Catch::Contains(R"("status":"ok")") &&
                           Catch::Contains(R"("values":[25.0])") &&
                           Catch::Contains(R"("log":")" + e.dir.file("logs/L1/run-1.log")) &&
                           Catch::Contains(R"("commits":{"xla":"abc123"})"));
    auto bad = test::run_perfsweep({"run", "--test", e.bench("echo 'MLUPS: 3'; exit 9\n"), "--json",
                                    "--logs", e.dir.file("logs")});
    CHECK(bad.exit_code == 4);
    CHECK_THAT(bad.out, Catch::Contains(R"("status":"failed")") &&
                            Catch::Contains(R"("values":[])") && Catch::Contains("exit code 9"));
}

TEST_CASE("perfsweep run rejects bad flags naming them", "[cli][run]") {
    CliEnv e;
    const auto cmd = e.bench("echo 'MLUPS: 1'\n");
    auto check = [&](std::vector<std::string> args, const std::string& needle) {
        args.insert(args.begin(), "run");
        // Some are refused once the run started (a placeholder): its log directory is made
        // first, here in the test's directory (the default ./perfsweep-logs was left in the
        // build tree).
        args.insert(args.end(), {"--logs", e.dir.file("logs")});
        auto r = test::run_perfsweep(args);
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains(needle));
    };
    check({"--test", cmd, "--timeout", "soon"}, "--timeout 'soon'");
    check({"--test", cmd, "--runtime", "lxc"}, "--runtime 'lxc'");
    check({"--test", cmd, "--runtime", "docker"}, "needs --image");
    check({"--test", "python3 x.py {dat}"}, "unknown placeholder {dat}");
    check({"--test", "python3 x.py {commit:XLA}"}, "--commit NAME=SHA");
    check({"--test", cmd, "--gpus", "0,x"}, "--gpus: 'x'");
    check({"--test", cmd, "--metric-regex", "MLUPS"}, "capture group");
    check({"--test", cmd, "--date", "2023-02-30"}, "--date '2023-02-30'");
}

TEST_CASE("inside GitHub Actions each run's log is folded and fenced from workflow commands",
          "[cli][run]") {
    CliEnv e;
    auto r =
        test::run_perfsweep({"run", "--test", e.bench("echo '::error::pwned'\necho 'MLUPS: 4'\n"),
                             "--label", "::warning::label", "--logs", e.dir.file("logs")},
                            {"GITHUB_ACTIONS=true"});
    CHECK(r.exit_code == 0);
    const auto group = r.err.find("::group::");
    const auto stop = r.err.find("::stop-commands::");
    const auto payload = r.err.find("::error::pwned");
    REQUIRE(group != std::string::npos);
    REQUIRE(stop != std::string::npos);
    REQUIRE(payload != std::string::npos);
    CHECK(group < stop);
    CHECK(stop < payload);
    CHECK(r.err.find("\n::warning::") == std::string::npos); // a label never starts a command
    CHECK(r.err.find("::endgroup::") > payload);
}

TEST_CASE("env flags: one --env rule for every command, messages never repeat a value",
          "[cli][run][env]") {
    CliEnv e;
    const auto cmd = e.bench("echo \"MLUPS: ${#EMPTY_OK}${OTHER}\"\n");
    // NAME= sets an empty variable (the benchmark sees it set); values reach the benchmark.
    auto ok = test::run_perfsweep({"run", "--test", cmd, "--env", "EMPTY_OK=", "--env", "OTHER=7",
                                   "--logs", e.dir.file("logs"), "--json"});
    INFO(ok.err);
    CHECK(ok.exit_code == 0);
    CHECK_THAT(ok.out, Catch::Contains(R"("values":[7.0])"));
    const std::string secret = "s3cr3t-value-4711";
    for (const std::string sub : {"run", "daily", "investigate", "probe"}) {
        auto bad = [&](std::vector<std::string> env_args, const std::string& needle) {
            std::vector<std::string> a = {sub, "--test", cmd};
            if (sub == "daily")
                a.insert(a.end(), {"--from", "2024-01-01", "--to", "2024-01-02"});
            if (sub == "investigate")
                a.insert(a.end(), {"--history", e.dir.file("h.jsonl")});
            if (sub == "probe")
                a.insert(a.end(), {"--reference", "1"});
            a.insert(a.end(), env_args.begin(), env_args.end());
            const auto r = test::run_perfsweep(a);
            INFO(sub << ": " << r.err);
            CHECK(r.exit_code == (sub == "probe" ? 128 : 2));
            CHECK_THAT(r.err, Catch::Contains(needle));
            CHECK(r.err.find(secret) == std::string::npos);
        };
        bad({"--env", "API_TOKEN=" + secret, "--env", "API_TOKEN=x"}, "API_TOKEN is given twice");
        bad({"--env", secret}, "--env #1: expected NAME=VALUE (no '=' found");
        bad({"--env", "OK=1", "--env", "1BAD=" + secret},
            "--env #2: expected NAME=VALUE with NAME");
        bad({"--env", "A-B=" + secret}, "NAME of letters, digits and '_'");
    }
}
