// The slurm runtime on a real single-node Slurm (tests/support/slurm; skipped where Slurm cannot
// start): points as srun job steps, the srun command line (a recording srun on PATH), and the
// hourly search's held allocation, which a SIGKILL of the search does not leave running (the
// search runs in-process in a forked test process, test::hourly_in_process).

#include "adapters/process/process_runner.hpp"
#include "adapters/system/local_files.hpp"
#include "support/child_exec.hpp"
#include "support/env_guard.hpp"
#include "support/git_repo.hpp"
#include "support/local_world.hpp"
#include "support/recording_progress.hpp"
#include "support/temp_dir.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <regex>
#include <thread>

using namespace perfsweep;

namespace {

/// A real single-node Slurm for one test; stopped in the destructor whatever happens.
class SlurmCluster {
public:
    SlurmCluster() {
        const std::string support = std::string(PERFSWEEP_SOURCE_DIR) + "/tests/support/slurm/";
        m_stop = support + "stop.sh";
        auto r = test::run_command({"bash", support + "start.sh", m_dir.path().string()});
        m_started_rc = r.exit_code;
        m_message = r.err;
        if (r.exit_code == 0)
            m_conf = std::make_unique<test::EnvGuard>("SLURM_CONF", m_dir.file("slurm.conf"));
    }
    ~SlurmCluster() { test::run_command({"bash", m_stop, m_dir.path().string()}); }
    SlurmCluster(const SlurmCluster&) = delete;
    SlurmCluster& operator=(const SlurmCluster&) = delete;
    /// Whether the cluster runs. Where Slurm cannot run on this machine (start.sh exits 77: not
    /// installed, no root) it says SKIPPED; any other failure to start fails the test.
    bool usable() const {
        if (m_started_rc == 0)
            return true;
        REQUIRE(m_started_rc == 77);
        WARN("SKIPPED: " << m_message);
        return false;
    }

private:
    test::TempDir m_dir{"perfsweep-slurm"};
    std::string m_stop;
    int m_started_rc = -1;
    std::string m_message;
    std::unique_ptr<test::EnvGuard> m_conf;
};

} // namespace

TEST_CASE("slurm: points run as srun job steps on a real single-node cluster", "[runner][slurm]") {
    SlurmCluster cluster;
    if (!cluster.usable())
        return;
    test::TempDir dir{"perfsweep-slurm-run"};
    test::RecordingProgress progress;
    adapters::SystemClock clock;
    const auto script = dir.file("bench.sh");
    test::write_file(script, "echo \"job=$SLURM_JOB_ID date=$PERFSWEEP_DATE\"\n"
                             "echo \"MLUPS: 1${PERFSWEEP_REPEAT}.5\"\n");
    ports::RunnerConfig c;
    c.runtime = "slurm";
    c.test_command = "bash " + script;
    c.logs_dir = dir.file("logs");
    c.timeout_s = 60;
    adapters::ProcessRunner runner(c, progress, clock);
    ports::PointRequest p;
    p.label = "2023-08-24";
    p.values = {{"date", "2023-08-24"}};
    p.repeats = 2;
    auto m = runner.run_points({p});
    REQUIRE(m.size() == 1);
    CHECK(m[0].status == core::Status::ok);
    CHECK(m[0].values == std::vector<double>{11.5, 12.5});
    const auto log = test::read_file(m[0].log);
    CHECK_THAT(log, Catch::Contains("date=2023-08-24"));
    CHECK(log.find("job=\n") == std::string::npos); // SLURM_JOB_ID was set: it ran under srun

    test::write_file(script, "echo 'MLUPS: 1'; exit 4\n");
    auto failed = runner.run_points({p});
    CHECK(failed[0].status == core::Status::failed);
    CHECK_THAT(failed[0].reason, Catch::Contains("exit code 4"));
}

TEST_CASE("slurm: the srun command line carries pyxis, GPU and user options", "[runner][slurm]") {
    test::TempDir dir{"perfsweep-fake-srun"};
    const auto bin = dir.file("bin");
    std::filesystem::create_directories(bin);
    const auto args = dir.file("srun.args");
    // A recording srun: writes its argv, then runs the command after the options.
    test::write_file(bin + "/srun", "#!/bin/bash\nprintf '%s\\n' \"$@\" > " + args +
                                        "\nwhile [[ $1 == -* ]]; do shift; done\nexec \"$@\"\n");
    std::filesystem::permissions(bin + "/srun", std::filesystem::perms::owner_all);
    test::EnvGuard path("PATH", bin + ":" + std::getenv("PATH"));
    test::RecordingProgress progress;
    adapters::SystemClock clock;
    ports::RunnerConfig c;
    c.runtime = "slurm";
    c.image = "nvcr.io#nvidia/jax:{date}";
    c.mounts = {"/data:/data"};
    c.workdir = "/work";
    c.gpus = {"0", "1"};
    c.srun_args = {"--partition=gpu"};
    c.test_command = "echo 'MLUPS: 3'";
    c.timeout_s = 90;
    c.grace_s = 10;
    c.logs_dir = dir.file("logs");
    adapters::ProcessRunner runner(c, progress, clock);
    ports::PointRequest p;
    p.label = "2023-08-24";
    p.values = {{"date", "2023-08-24"}};
    auto m = runner.run_points({p});
    CHECK(m[0].status == core::Status::ok);
    // The job name is unique per step (scancel --name ends exactly it if perfsweep is killed).
    const std::regex job("--job-name=perfsweep-[0-9]+-[0-9]+\n");
    CHECK(std::regex_replace(test::read_file(args), job, "--job-name=perfsweep-ID\n") ==
          "-N1\n-n1\n--job-name=perfsweep-ID\n--time=3\n--gpus=1\n"
          "--container-image=nvcr.io#nvidia/jax:2023-08-24\n"
          "--container-mounts=/data:/data\n--container-workdir=/work\n"
          "--partition=gpu\necho\nMLUPS: 3\n");
}

TEST_CASE("slurm: a held allocation has a time limit and does not outlive a SIGKILL of perfsweep",
          "[runner][slurm][sigkill]") {
    // Before: the allocation of a killed hourly search stayed RUNNING with TimeLimit UNLIMITED,
    // and the resumed search queued behind it forever.
    SlurmCluster cluster;
    if (!cluster.usable())
        return;
    test::TempDir dir{"perfsweep-slurm-held"};
    const auto repo = dir.file("src");
    std::filesystem::create_directories(repo);
    const long long t0 = 1692835200;
    test::git_at(repo, {"init", "-q", "-b", "main"}, t0);
    for (int h = 0; h < 3; ++h) {
        test::write_file(repo + "/n.txt", std::to_string(h) + "\n");
        test::git_at(repo, {"add", "-A"}, t0 + h * 3600);
        test::git_at(repo, {"commit", "-q", "-m", "c" + std::to_string(h)}, t0 + h * 3600 + 60);
    }
    test::git_at(repo, {"update-ref", "refs/remotes/origin/main", "main"}, t0);
    const auto started = dir.file("build-started");
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) { // the search, in a forked test process named perfsweep
        test::discard_output();
        ::prctl(PR_SET_NAME, "perfsweep", 0, 0, 0);
        ::_exit(test::hourly_in_process({"--repo", "src=" + repo, "--from",
                                         util::format_iso8601(t0 + 1800), "--to",
                                         util::format_iso8601(t0 + 3 * 3600), "--runtime", "slurm",
                                         "--build", "sh -c 'touch " + started + "; sleep 120'",
                                         "--test", "echo MLUPS: 1", "--logs", dir.file("logs")})
                    .exit_code);
    }
    auto job_line = [&] {
        const auto q = test::run_command({"squeue", "-h", "-o", "%i %j %T %l"});
        for (const auto& line : util::split(q.out, '\n'))
            if (line.find("perfsweep-hourly-" + std::to_string(pid)) != std::string::npos)
                return line;
        return std::string();
    };
    for (int i = 0; i < 600 && !std::filesystem::exists(started); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const std::string held = job_line();
    INFO("squeue: " << held);
    CHECK(held.find(" RUNNING ") != std::string::npos);
    CHECK(held.find("UNLIMITED") == std::string::npos);
    CHECK(held.find(" 1-00:00:00") != std::string::npos); // 24 h without --max-time
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    // Its guard cancels the allocation.
    std::string left = job_line();
    for (int i = 0; i < 300 && !left.empty() && left.find("COMPLETING") == std::string::npos &&
                    left.find("CANCELLED") == std::string::npos;
         ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        left = job_line();
    }
    INFO("after the kill: " << left);
    CHECK((left.empty() || left.find(" RUNNING ") == std::string::npos));
    if (!left.empty())
        test::run_command({"scancel", left.substr(0, left.find(' '))});
}
