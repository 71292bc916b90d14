// The Catch2 main, compiled once. A test binary started with PERFSWEEP_TEST_BINARY_RUNS_CLI=1 is
// perfsweep itself: run_perfsweep's exec-free children set it, so a program they start as
// /proc/self/exe (the demo's benchmark, `perfsweep demo-bench`) runs the CLI, as it would from
// the real binary.
#define CATCH_CONFIG_RUNNER
#include "main.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <cstring>

int main(int argc, char** argv) {
    const char* cli = std::getenv("PERFSWEEP_TEST_BINARY_RUNS_CLI");
    if (cli && std::strcmp(cli, "1") == 0)
        return perfsweep_main(argc, argv);
    return Catch::Session().run(argc, argv);
}
