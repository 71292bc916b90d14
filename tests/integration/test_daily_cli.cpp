// End-to-end: the real perfsweep binary sweeps a simulated nightly range with --runtime none and
// examples/scenarios/simbench.py (real child processes, real files, real kill -9).

#include "support/temp_dir.hpp"

#include <catch2/catch.hpp>
#include <rapidjson/document.h>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

using namespace perfsweep::test;
namespace fs = std::filesystem;

namespace {

const std::string k_sim = std::string(PERFSWEEP_SOURCE_DIR) + "/examples/scenarios/simbench.py";

// A short scenario: 16 days from 2023-08-10, a 8 % drop on day 9 (08-19), day 5 broken.
std::string write_scenario(const TempDir& dir) {
    const auto path = dir.file("scenario.json");
    write_file(path, R"({"name":"tiny","start":"2023-08-10","days":16,"base":500,"noise":0.003,
 "levels":[{"from":9,"level":0.92}],"broken":[5],"missing":[12],"noisy":[]})");
    return path;
}

std::vector<std::string> daily_args(const TempDir& dir, const std::string& scenario,
                                    std::vector<std::string> extra) {
    std::vector<std::string> a = {"daily",
                                  "--from",
                                  "2023-08-10",
                                  "--to",
                                  "2023-08-25",
                                  "--runtime",
                                  "none",
                                  "--test",
                                  "python3 -S " + k_sim + " " + scenario +
                                      " {date} --counter-dir " + dir.file("counts"),
                                  "--repeats",
                                  "2",
                                  "--min-span",
                                  "4",
                                  "--logs",
                                  dir.file("logs")};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
}

rapidjson::Document parse(const std::string& text) {
    rapidjson::Document d;
    d.Parse(text.c_str());
    REQUIRE_FALSE(d.HasParseError());
    REQUIRE(d.IsObject());
    return d;
}

int count_files(const std::string& dir, const std::string& prefix) {
    if (!fs::exists(dir))
        return 0;
    int n = 0;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().filename().string().rfind(prefix, 0) == 0)
            ++n;
    return n;
}

} // namespace

TEST_CASE("daily finds the drop across a broken day and records the build commits",
          "[daily][e2e]") {
    TempDir dir("perfsweep-daily");
    const auto scen = write_scenario(dir);
    auto r = run_perfsweep(daily_args(
        dir, scen,
        {"--json", "--commits-probe", "python3 -S " + k_sim + " " + scen + " {date} --commits"}));
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    auto d = parse(r.out);
    REQUIRE(d["boundaries"].Size() == 1);
    const auto& b = d["boundaries"][0];
    CHECK(std::string(b["kind"].GetString()) == "regression");
    CHECK(std::string(b["first_after"].GetString()) == "2023-08-19");
    CHECK(std::string(b["last_before"].GetString()) == "2023-08-18");
    CHECK(b["relative_change"].GetDouble() == Approx(-0.08).margin(0.01));
    CHECK(std::string(b["first_after_commits"]["jax"].GetString()).size() == 40);
    CHECK(std::string(b["first_after_commit_times"]["xla"].GetString()) == "2023-08-19T09:30:00Z");
    CHECK(d["points"].Size() == 16);
    CHECK(d["runs"].GetInt() < d["exhaustive_runs"].GetInt());
    CHECK(d["exhaustive_runs"].GetInt() == 32);
    CHECK(d["complete"].GetBool());
}

TEST_CASE("daily resumes after kill -9 without rerunning or losing a finished run",
          "[daily][e2e]") {
    TempDir dir("perfsweep-daily-kill");
    const auto scen = write_scenario(dir);
    auto args = daily_args(dir, scen, {"--strategy", "exhaustive", "--state", dir.file("state")});
    // Start the sweep, wait until a few runs are committed, kill -9 it mid-sweep.
    std::vector<std::string> argv = {PERFSWEEP_EXE};
    argv.insert(argv.end(), args.begin(), args.end());
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        std::vector<char*> cargv;
        for (auto& s : argv)
            cargv.push_back(s.data());
        cargv.push_back(nullptr);
        std::freopen("/dev/null", "w", stdout);
        std::freopen("/dev/null", "w", stderr);
        ::execv(cargv[0], cargv.data());
        ::_exit(127);
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (count_files(dir.file("state"), "run-") < 3 &&
           std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    REQUIRE(WIFSIGNALED(status));
    const int committed = count_files(dir.file("state"), "run-");
    REQUIRE(committed >= 3);
    REQUIRE(committed < 16); // it was really killed mid-sweep

    args.push_back("--json");
    auto r = run_perfsweep(args);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    auto d = parse(r.out);
    CHECK(d["resumed_runs"].GetInt() >= 2 * (committed - 2)); // missing days cost no runs
    // Every date measured exactly once per repeat: nothing rerun, nothing lost.
    for (const auto& p : d["points"].GetArray()) {
        const std::string status_s = p["status"].GetString();
        if (status_s == "ok")
            CHECK(p["values"].Size() == 2);
        else
            CHECK((status_s == "failed"));
    }
    CHECK(d["boundaries"].Size() == 1);
    CHECK(count_files(dir.file("state"), "run-") == 16);
}

TEST_CASE("daily with --gpus 0,1 runs parallel rounds and reuses history on a second sweep",
          "[daily][e2e]") {
    TempDir dir("perfsweep-daily-gpus");
    const auto scen = write_scenario(dir);
    auto r = run_perfsweep(
        daily_args(dir, scen, {"--json", "--gpus", "0,1", "--history", dir.file("h.jsonl")}));
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    auto d = parse(r.out);
    REQUIRE(d["boundaries"].Size() == 1);
    CHECK(std::string(d["boundaries"][0]["first_after"].GetString()) == "2023-08-19");
    const int first_runs = d["runs"].GetInt();

    // Same benchmark, same runner: the history points are reused, nothing new is needed.
    auto r2 = run_perfsweep(daily_args(dir, scen, {"--json", "--history", dir.file("h.jsonl")}));
    INFO(r2.err);
    REQUIRE(r2.exit_code == 0);
    auto d2 = parse(r2.out);
    CHECK(d2["reused_values"].GetInt() > 0);
    CHECK(d2["runs"].GetInt() < first_runs);
    REQUIRE(d2["boundaries"].Size() == 1);
    CHECK(std::string(d2["boundaries"][0]["first_after"].GetString()) == "2023-08-19");
}

TEST_CASE("daily rejects bad dates naming the flag", "[daily][e2e]") {
    TempDir dir("perfsweep-daily-bad");
    auto r = run_perfsweep({"daily", "--from", "2023-02-30", "--to", "2023-03-05", "--runtime",
                            "none", "--test", "true"});
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("--from '2023-02-30'") != std::string::npos);
    r = run_perfsweep({"daily", "--from", "2023-03-05", "--to", "2023-03-01", "--runtime", "none",
                       "--test", "true"});
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("before --from") != std::string::npos);
}
