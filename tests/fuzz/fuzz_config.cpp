// The TOML config file (`perfsweep --config FILE`, read by CLI11 through perfsweep's own app
// setup in cli::run, with every subcommand registered): any file is accepted or refused with a
// usage error (exit 2), never an internal error or a crash. The subcommand is `version`, so no
// adapter is used and nothing runs: every port of the bundle is a stub that refuses.

#include "cli/cli.hpp"
#include "fuzz_support.hpp"
#include "util/error.hpp"
#include "util/exit_codes.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <iostream>
#include <string>

using namespace perfsweep;

namespace {

[[noreturn]] void unused() {
    throw_infra("fuzz_config: `version` uses no port");
}

struct NoFiles final : ports::Files {
    std::string read_text(const std::string&) override { unused(); }
    void write_atomic(const std::string&, const std::string&) override { unused(); }
    bool exists(const std::string&) override { unused(); }
    void make_dirs(const std::string&) override { unused(); }
    void remove_tree(const std::string&) override { unused(); }
    void point_link(const std::string&, const std::string&) override { unused(); }
    std::vector<std::string> result_files(const std::string&) override { unused(); }
    std::unique_ptr<ports::DirLock> lock_dir(const std::string&, const std::string&) override {
        unused();
    }
};
struct NoProgress final : ports::Progress {
    void line(std::string_view) override { unused(); }
    void untrusted_block(std::string_view, std::string_view) override { unused(); }
};
struct NoClock final : ports::Clock {
    double now() override { unused(); }
    void sleep(double) override { unused(); }
};
struct NoActions final : ports::ActionsRunner {
    bool in_actions() const override { return false; }
    void set_outputs(const std::map<std::string, std::string>&) override { unused(); }
    void append_summary(const std::string&) override { unused(); }
    void annotate(const std::string&, const std::string&, const std::string&) override { unused(); }
    void add_mask(const std::string&) override { unused(); }
    ports::EventTarget event_target() override { unused(); }
};
struct NoHistories final : ports::HistoryStores {
    std::unique_ptr<ports::HistoryStore> open(const std::string&) override { unused(); }
};
struct NoRunners final : ports::Runners {
    std::unique_ptr<ports::BuildingRunner> make(const ports::RunnerConfig&) override { unused(); }
};
struct NoRepos final : ports::SourceRepos {
    std::unique_ptr<ports::SourceRepo> open(const std::string&, const std::string&) override {
        unused();
    }
};
struct NoHosts final : ports::CodeHosts {
    std::unique_ptr<ports::CodeHost> open(const std::string&) override { unused(); }
};
struct NoSecrets final : ports::Secrets {
    void protect_env(const std::string&) override { unused(); }
    std::vector<std::string> values() override { unused(); }
};
struct NoDemo final : ports::DemoWorldMaker {
    ports::DemoWorld create(const std::string&) override { unused(); }
};

std::string config_path() {
    static const std::string path = [] {
        const char* tmp = std::getenv("TMPDIR");
        return std::string(tmp && *tmp ? tmp : "/tmp") + "/perfsweep-fuzz-config-" +
               std::to_string(::getpid()) + ".toml";
    }();
    return path;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string path = config_path();
    {
        const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        fuzz::check(fd >= 0, "cannot write the config file", path);
        std::size_t done = 0;
        while (done < size) {
            const auto n = ::write(fd, data + done, size - done);
            fuzz::check(n > 0, "short write", path);
            done += static_cast<std::size_t>(n);
        }
        ::close(fd);
    }
    std::string a0 = "perfsweep", a1 = "--config", a2 = path, a3 = "version";
    char* argv[] = {a0.data(), a1.data(), a2.data(), a3.data(), nullptr};
    static NoFiles files;
    static NoProgress progress;
    static NoClock clock;
    static NoActions actions;
    static NoHistories histories;
    static NoRunners runners;
    static NoRepos repos;
    static NoHosts hosts;
    static NoSecrets secrets;
    static NoDemo demo;
    ports::Adapters adapters{files,   progress, clock, actions, histories,
                             runners, repos,    hosts, secrets, demo};
    // CLI11 and perfsweep print their messages on stdout/stderr: silence them per input.
    std::fflush(stdout);
    std::fflush(stderr);
    const int saved_out = ::dup(1), saved_err = ::dup(2);
    const int null_fd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    ::dup2(null_fd, 1);
    ::dup2(null_fd, 2);
    const int rc = cli::run(4, argv, adapters);
    std::cout.flush();
    std::fflush(stdout);
    std::fflush(stderr);
    ::dup2(saved_out, 1);
    ::dup2(saved_err, 2);
    ::close(saved_out);
    ::close(saved_err);
    ::close(null_fd);
    fuzz::check(rc == exit_ok || rc == exit_usage,
                "a config file gave an exit code other than 0 or 2", std::to_string(rc));
    return 0;
}
