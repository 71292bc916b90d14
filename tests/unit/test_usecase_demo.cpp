// `perfsweep demo` in-process: a demo never reuses a taken output directory (the real world and
// pipeline run once, in tests/integration/test_investigate_demo.cpp).
#include "adapters/json/result_json.hpp"
#include "app/demo/demo.hpp"
#include "support/fakes/world.hpp"

#include <catch2/catch.hpp>

using namespace perfsweep;

TEST_CASE("demo in-process: a taken output directory gets the next free suffix",
          "[usecase][demo]") {
    fakes::World w; // its demo world refuses, naming where it was asked to build
    app::DemoOptions o;
    o.dir = "out/demo";
    CHECK_THROWS_WITH(app::run_demo(o, w.adapters, adapters::read_result_document),
                      Catch::Contains("'out/demo/world'"));
    CHECK(w.files.exists("out/demo"));
    CHECK_THROWS_WITH(app::run_demo(o, w.adapters, adapters::read_result_document),
                      Catch::Contains("'out/demo-2/world'"));
    w.files.write_atomic("out/demo-3", "a file, not a directory");
    CHECK_THROWS_WITH(app::run_demo(o, w.adapters, adapters::read_result_document),
                      Catch::Contains("'out/demo-4/world'"));
}
