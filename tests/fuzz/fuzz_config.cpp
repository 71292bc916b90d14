// The TOML config file (`perfsweep --config FILE`, read by CLI11 through perfsweep's own app
// setup in cli::run, with every subcommand registered): any file is accepted or refused with a
// usage error (exit 2), never an internal error or a crash. The subcommand is `version`, so no
// adapter is needed and nothing runs.

#include "cli/cli.hpp"
#include "fuzz_support.hpp"
#include "util/exit_codes.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <iostream>
#include <string>

using namespace perfsweep;

namespace {

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
    ports::Adapters adapters; // `version` uses none
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
