#include "adapters/process/process_runner.hpp"
#include "adapters/system/local_files.hpp"
#include "support/child_exec.hpp"
#include "support/env_guard.hpp"
#include "support/recording_progress.hpp"
#include "support/temp_dir.hpp"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <thread>

using namespace perfsweep;

namespace {

/// A fake docker/podman on PATH with its call log and image/container state.
struct FakeEngine {
    test::TempDir dir{"perfsweep-fake-docker"};
    std::string bin = dir.file("bin");
    std::string state = dir.file("state");
    std::string log = dir.file("calls.jsonl");
    std::unique_ptr<test::EnvGuard> path, log_env, state_env;

    explicit FakeEngine(const std::vector<std::string>& remote,
                        const std::vector<std::string>& local = {}) {
        std::filesystem::create_directories(bin);
        std::filesystem::create_directories(state);
        const std::string src = std::string(PERFSWEEP_SOURCE_DIR) + "/tests/support/fake_docker";
        for (const char* tool : {"docker", "podman"})
            std::filesystem::create_symlink(src, bin + "/" + tool);
        std::string r, l;
        for (const auto& i : remote)
            r += i + "\n";
        for (const auto& i : local)
            l += i + "\n";
        test::write_file(state + "/remote", r);
        test::write_file(state + "/images", l);
        path = std::make_unique<test::EnvGuard>("PATH", bin + ":" + std::getenv("PATH"));
        log_env = std::make_unique<test::EnvGuard>("FAKE_DOCKER_LOG", log);
        state_env = std::make_unique<test::EnvGuard>("FAKE_DOCKER_STATE", state);
    }

    /// Every call as one line, words separated by '|', with the random container names and the
    /// run time replaced by fixed text.
    std::vector<std::string> calls() const {
        std::vector<std::string> out;
        if (!std::filesystem::exists(log))
            return out;
        std::istringstream in(test::read_file(log));
        std::string line;
        static const std::regex name(R"(perfsweep-(run|kept)-[0-9]+-[0-9]+-[0-9]+)");
        static const std::regex time(R"(PERFSWEEP_TIME=[0-9TZ:-]+)");
        static const std::regex quoted(R"(",\s*")");
        while (std::getline(in, line)) {
            line = std::regex_replace(line, name, "perfsweep-$1-NAME");
            line = std::regex_replace(line, time, "PERFSWEEP_TIME=T");
            line = std::regex_replace(line, quoted, "|");
            out.push_back(line.substr(2, line.size() - 4)); // drop [" and "]
        }
        return out;
    }
};

struct Env {
    test::TempDir dir{"perfsweep-container"};
    test::RecordingProgress progress;
    adapters::SystemClock clock;
    std::string script;
    Env() {
        script = dir.file("bench.sh");
        test::write_file(script, "echo \"MLUPS: 7${PERFSWEEP_REPEAT}\"\n");
    }
    ports::RunnerConfig config(const std::string& runtime) {
        ports::RunnerConfig c;
        c.runtime = runtime;
        c.image = "ghcr.io/nvidia/jax:nightly-{date}";
        c.test_command = "bash " + script;
        c.logs_dir = dir.file("logs");
        c.timeout_s = 20;
        c.grace_s = 1;
        return c;
    }
    static ports::PointRequest point(const std::string& date) {
        ports::PointRequest r;
        r.label = date;
        r.values = {{"date", date}};
        return r;
    }
};

const std::string k_img = "ghcr.io/nvidia/jax:nightly-2023-08-24";

} // namespace

TEST_CASE("docker: check without pulling layers, pull, run --rm, remove the pulled image",
          "[runner][docker]") {
    FakeEngine fake({k_img});
    Env env;
    auto c = env.config("docker");
    c.gpus = {"3"};
    c.mounts = {"/data:/data:ro"};
    c.workdir = "/";
    c.env = {{"XLA_FLAGS", "--xla_foo=1 $(x)"}};
    {
        adapters::ProcessRunner runner(c, env.progress, env.clock);
        auto m = runner.run_points({Env::point("2023-08-24")});
        REQUIRE(m.size() == 1);
        CHECK(m[0].status == core::Status::ok);
        CHECK(m[0].values == std::vector<double>{71});
        CHECK(m[0].image == k_img);
        CHECK(m[0].digest.rfind("sha256:", 0) == 0);
    }
    const std::string run =
        "docker|run|--rm|--name|perfsweep-run-NAME|--gpus|device=3|-v|/data:/data:ro|-e|"
        "PERFSWEEP_DATE=2023-08-24|-e|PERFSWEEP_GPU=3|-e|PERFSWEEP_IMAGE=" +
        k_img +
        "|-e|PERFSWEEP_LABEL=2023-08-24|-e|PERFSWEEP_REPEAT=1|-e|PERFSWEEP_TIME=T|-e|"
        "PERFSWEEP_WORKDIR=/|-e|XLA_FLAGS=--xla_foo=1 $(x)|-w|/|" +
        k_img + "|bash|" + env.script;
    CHECK(fake.calls() == std::vector<std::string>{
                              "docker|image|inspect|--format|{{.Id}}|" + k_img,
                              "docker|manifest|inspect|" + k_img,
                              "docker|pull|--quiet|" + k_img,
                              "docker|image|inspect|--format|{{index .RepoDigests 0}}|" + k_img,
                              run,
                              "docker|rmi|" + k_img,
                          });
}

TEST_CASE("docker: a missing nightly is 'missing' within seconds and runs nothing",
          "[runner][docker]") {
    FakeEngine fake({});
    Env env;
    adapters::ProcessRunner runner(env.config("docker"), env.progress, env.clock);
    auto m = runner.run_points({Env::point("2023-08-25")});
    CHECK(m[0].status == core::Status::missing);
    CHECK_THAT(m[0].reason,
               Catch::Contains("nightly-2023-08-25") && Catch::Contains("no such manifest"));
    CHECK(m[0].values.empty());
    const auto calls = fake.calls();
    REQUIRE(calls.size() == 2);
    CHECK(calls[1] == "docker|manifest|inspect|ghcr.io/nvidia/jax:nightly-2023-08-25");
}

TEST_CASE("podman: CDI GPUs, local images are neither pulled nor removed", "[runner][docker]") {
    FakeEngine fake({}, {k_img});
    Env env;
    auto c = env.config("podman");
    c.gpus = {"0"};
    {
        adapters::ProcessRunner runner(c, env.progress, env.clock);
        CHECK(runner.run_points({Env::point("2023-08-24")})[0].status == core::Status::ok);
    }
    const auto calls = fake.calls();
    REQUIRE(calls.size() == 3);
    CHECK(calls[2].rfind("podman|run|--rm|--name|perfsweep-run-NAME|--device|nvidia.com/gpu=0|-e|",
                         0) == 0);
    for (const auto& call : calls)
        CHECK(call.find("rmi") == std::string::npos);
}

TEST_CASE("kept container: one container, exec build and tests, stop and rm at the end",
          "[runner][docker][kept]") {
    FakeEngine fake({k_img});
    Env env;
    auto c = env.config("docker");
    c.kept_container = true;
    c.keep_images = true;
    c.gpus = {"0", "1"};
    c.build_command = "bash -c 'echo building {commit:xla}'";
    {
        adapters::ProcessRunner runner(c, env.progress, env.clock);
        auto req = Env::point("2023-08-24");
        req.values["commit:xla"] = "abc";
        auto step = runner.build(req);
        CHECK(step.ok);
        CHECK(test::read_file(step.log) == "building abc\n");
        auto m = runner.run_points({req, req});
        CHECK(m[0].status == core::Status::ok);
        CHECK(m[1].values == std::vector<double>{71});
    }
    const auto calls = fake.calls();
    REQUIRE(calls.size() == 10);
    CHECK(calls[2] == "docker|pull|--quiet|" + k_img);
    CHECK(calls[4] == "docker|run|-d|--init|--name|perfsweep-kept-NAME|--gpus|\\\"device=0,1\\\"|" +
                          k_img + "|sleep|infinity");
    CHECK(calls[5].rfind("docker|exec|-e|CUDA_VISIBLE_DEVICES=0|-e|PERFSWEEP_COMMIT_XLA=abc|", 0) ==
          0);
    CHECK_THAT(calls[5], Catch::EndsWith("|perfsweep-kept-NAME|bash|-c|echo building abc"));
    CHECK_THAT(calls[6], Catch::Contains("|-e|CUDA_VISIBLE_DEVICES=") &&
                             Catch::EndsWith("|perfsweep-kept-NAME|bash|" + env.script));
    // The two points ran on the two GPUs of the pool, each seeing its own device.
    CHECK(calls[6].find("CUDA_VISIBLE_DEVICES=0") != calls[7].find("CUDA_VISIBLE_DEVICES=0"));
    CHECK_THAT(calls[7], Catch::Contains("|-e|CUDA_VISIBLE_DEVICES=") &&
                             Catch::EndsWith("|perfsweep-kept-NAME|bash|" + env.script));
    CHECK(calls[8] == "docker|stop|-t|10|perfsweep-kept-NAME");
    CHECK(calls[9] == "docker|rm|-f|perfsweep-kept-NAME");
    CHECK(test::read_file(fake.state + "/containers").empty());
}

TEST_CASE("kept container: a failed build is a value and the container is still removed",
          "[runner][docker][kept]") {
    FakeEngine fake({}, {k_img});
    Env env;
    auto c = env.config("docker");
    c.kept_container = true;
    c.build_command = "bash -c 'echo broken; exit 2'";
    {
        adapters::ProcessRunner runner(c, env.progress, env.clock);
        auto step = runner.build(Env::point("2023-08-24"));
        CHECK_FALSE(step.ok);
        CHECK_THAT(step.reason, Catch::Contains("exit code 2"));
    }
    CHECK(test::read_file(fake.state + "/containers").empty());
    CHECK(fake.calls().back() == "docker|rm|-f|perfsweep-kept-NAME");
}

TEST_CASE("Ctrl-C stops the benchmark and removes the kept container", "[runner][docker][kept]") {
    FakeEngine fake({}, {k_img});
    Env env;
    test::write_file(env.script, "echo started\nsleep 120\n");
    const std::string test_cmd = "bash " + env.script, logs = env.dir.file("logs");
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        test::discard_output();
        ::execl(PERFSWEEP_EXE, PERFSWEEP_EXE, "run", "--runtime", "docker", "--keep-container",
                "--image", "ghcr.io/nvidia/jax:nightly-{date}", "--date", "2023-08-24", "--test",
                test_cmd.c_str(), "--logs", logs.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    const auto t0 = std::chrono::steady_clock::now();
    auto elapsed = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
    bool running = false;
    while (!running && elapsed() < 60) { // a loaded machine starts it slowly
        for (const auto& call : fake.calls())
            running = running || call.rfind("docker|exec|", 0) == 0;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    REQUIRE(running);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    ::kill(pid, SIGINT);
    const double interrupted_at = elapsed();
    int status = 0;
    ::waitpid(pid, &status, 0);
    CHECK(elapsed() - interrupted_at < 60); // it did not wait for the 120 s benchmark
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 3);
    CHECK(test::read_file(fake.state + "/containers").empty());
    CHECK(fake.calls().back() == "docker|rm|-f|perfsweep-kept-NAME");
}

TEST_CASE("one docker/podman option builder: GPU syntax per engine then mounts and env and workdir",
          "[runner][docker]") {
    using adapters::container_options;
    CHECK(container_options("docker", {"3"}, {}, {}, "") ==
          std::vector<std::string>{"--gpus", "device=3"});
    // docker parses --gpus as CSV: a device list is quoted to stay one field.
    CHECK(container_options("docker", {"0", "1"}, {"/d:/d:ro"}, {{"A", "1 2"}}, "/w") ==
          std::vector<std::string>{"--gpus", "\"device=0,1\"", "-v", "/d:/d:ro", "-e", "A=1 2",
                                   "-w", "/w"});
    CHECK(container_options("podman", {"0", "1"}, {}, {}, "") ==
          std::vector<std::string>{"--device", "nvidia.com/gpu=0", "--device", "nvidia.com/gpu=1"});
    CHECK(container_options("podman", {}, {}, {}, "").empty());
}
