#include "core/series.hpp"

#include <catch2/catch.hpp>

using namespace perfsweep;

TEST_CASE("a GPU's class drops the vendor words and folds blanks", "[core][series]") {
    CHECK(core::gpu_class("NVIDIA H100 80GB HBM3") == "H100 80GB HBM3");
    CHECK(core::gpu_class("  NVIDIA  A100-SXM4-80GB ") == "A100-SXM4-80GB");
    CHECK(core::gpu_class("Tesla V100-SXM2-16GB") == "V100-SXM2-16GB");
    CHECK(core::gpu_class("NVIDIA GeForce RTX 4090") == "RTX 4090");
    CHECK(core::gpu_class("") == "");
}

TEST_CASE("a series is benchmark, metric and testbed; H100 and A100 points never pool",
          "[core][series]") {
    core::Measurement h100;
    h100.benchmark = "lbm";
    h100.metric = "MLUPS";
    h100.runner["gpu"] = "NVIDIA H100 80GB HBM3";
    core::Measurement a100 = h100;
    a100.runner["gpu"] = "NVIDIA A100-SXM4-80GB";
    CHECK(core::series_key(h100) != core::series_key(a100));
    CHECK(core::series_key(h100).testbed == "H100 80GB HBM3");
    core::Measurement named = a100;
    named.runner["testbed"] = "dgx-a";
    CHECK(core::testbed_of(named) == "dgx-a");
    core::Measurement unknown;
    unknown.benchmark = "lbm";
    unknown.metric = "MLUPS";
    CHECK(core::to_string(core::series_key(unknown)) == "lbm · MLUPS");
    CHECK(core::to_string(core::series_key(h100)) == "lbm · MLUPS · H100 80GB HBM3");
}
