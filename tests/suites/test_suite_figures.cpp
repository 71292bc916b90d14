#include "support/env_guard.hpp"
#include "support/figures.hpp"
#include "support/temp_dir.hpp"

#include <catch2/catch.hpp>

using namespace perfsweep::test;

TEST_CASE("report_figure prints the figure line and appends it to $PERFSWEEP_FIGURES",
          "[suites][figures]") {
    TempDir dir;
    const auto file = dir.file("figures.txt");
    EnvGuard guard("PERFSWEEP_FIGURES", file);
    report_figure("selftest", {{"cases", "2"}, {"lost", "0"}});
    report_figure("selftest", {{"cases", "3"}});
    CHECK(read_file(file) == "FIGURE selftest: cases=2 lost=0\nFIGURE selftest: cases=3\n");
}

TEST_CASE("suite_scale reads PERFSWEEP_SUITE_SCALE", "[suites][figures]") {
    {
        EnvGuard guard("PERFSWEEP_SUITE_SCALE", "");
        CHECK(suite_scale() == 1);
    }
    EnvGuard guard("PERFSWEEP_SUITE_SCALE", "7");
    CHECK(suite_scale() == 7);
}
