// The Catch2 main, compiled once. A test binary started with PERFSWEEP_TEST_BINARY_RUNS_CLI=1 is
// perfsweep itself: run_perfsweep's exec-free children set it, so a program they start as
// /proc/self/exe (the demo's benchmark, `perfsweep demo-bench`) runs the CLI, as it would from
// the real binary.
#define CATCH_CONFIG_RUNNER
#include "main.hpp"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

namespace {

/// A registry of runs in flight private to this test process (ctest runs many at once): the
/// default one (/tmp/perfsweep-runs-UID) is shared by every perfsweep of the user, so a test's
/// runner would end, or wait for, the runs another test's killed perfsweep left (a stray
/// "waited ..." line, a Slurm job cancelled twice). Removed when this process ends.
struct PrivateRunRegistry {
    std::string dir;
    pid_t owner = ::getpid();
    PrivateRunRegistry() {
        const char* set = std::getenv("PERFSWEEP_RUN_DIR");
        if (set && *set)
            return;
        std::string tmpl =
            (std::filesystem::temp_directory_path() / "perfsweep-test-runs-XXXXXX").string();
        if (::mkdtemp(tmpl.data()) == nullptr)
            return; // the default registry then, as before
        dir = tmpl;
        ::setenv("PERFSWEEP_RUN_DIR", dir.c_str(), 1);
    }
    ~PrivateRunRegistry() {
        std::error_code ec;
        if (!dir.empty() && ::getpid() == owner)
            std::filesystem::remove_all(dir, ec);
    }
    PrivateRunRegistry(const PrivateRunRegistry&) = delete;
    PrivateRunRegistry& operator=(const PrivateRunRegistry&) = delete;
};

} // namespace

int main(int argc, char** argv) {
    const char* cli = std::getenv("PERFSWEEP_TEST_BINARY_RUNS_CLI");
    if (cli && std::strcmp(cli, "1") == 0)
        return perfsweep_main(argc, argv);
#ifdef PERFSWEEP_TEST_ASAN_RUNTIME
    // The programs the tests exec (the perfsweep binary, hundreds of times) run without the leak
    // check at their exit: it stops every thread under ptrace and scans the heap, about a third
    // of the start-up and exit cost of a sanitized perfsweep (167 -> 113 ms for `perfsweep
    // version`). This process parsed its options already and keeps its own leak check, which
    // covers the same code run in-process and in the exec-free forked children.
    // PERFSWEEP_TEST_CHILD_LEAKS=1 keeps the check in the exec'd programs too.
    const char* keep = std::getenv("PERFSWEEP_TEST_CHILD_LEAKS");
    if (!(keep && std::strcmp(keep, "1") == 0)) {
        const char* asan = std::getenv("ASAN_OPTIONS");
        std::string opts = asan ? asan : "";
        opts += opts.empty() ? "detect_leaks=0" : ":detect_leaks=0";
        ::setenv("ASAN_OPTIONS", opts.c_str(), 1);
    }
#endif
    const PrivateRunRegistry registry;
    return Catch::Session().run(argc, argv);
}
