#include "report/point_table.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace perfsweep;

TEST_CASE("the point table shows values, median ± sd, status with reason and log",
          "[report][points]") {
    core::Measurement ok;
    ok.label = "2023-08-24";
    ok.values = {501, 499, 500};
    ok.unit = "MLUPS";
    ok.log = "/logs/2023-08-24/run-3.log";
    core::Measurement bad;
    bad.label = "2023-08-25\nx";
    bad.status = core::Status::timeout;
    bad.reason = "run 1/3: timed out after 30m";
    const auto text = report::render_points({ok, bad});
    CHECK_THAT(text, Catch::Contains("median ± sd"));
    CHECK_THAT(text, Catch::Contains("501 499 500") && Catch::Contains("500 ± 1 MLUPS") &&
                         Catch::Contains("/logs/2023-08-24/run-3.log"));
    CHECK_THAT(text, Catch::Contains("2023-08-25 x") &&
                         Catch::Contains("timeout (run 1/3: timed out after 30m)"));
    // Three lines of table plus the header rule: a label's newline never splits a row.
    CHECK(std::count(text.begin(), text.end(), '\n') == 4);
}
