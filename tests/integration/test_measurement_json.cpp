#include "adapters/json/measurement_json.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

using namespace perfsweep;

TEST_CASE("measurements round-trip through JSON, hostile text included", "[adapters][json]") {
    core::Measurement m;
    m.benchmark = "MLUPS3d.py 256 200";
    m.metric = "MLUPS";
    m.unit = "MLUPS";
    m.values = {577.3, 577.1, 1e-3};
    m.label = "2023-08-24";
    m.timestamp = "2023-08-24T13:00:00Z";
    m.stage = core::Stage::daily;
    m.image = "ghcr.io/nvidia/jax:nightly-2023-08-24";
    m.commits = {{"jax", "abc"}, {"xla", "def"}};
    m.runner = {{"gpu", "H200"}, {"hostname", "a\"b\n$(x)"}};
    m.status = core::Status::ok;
    m.log = "logs/2023-08-24.log";
    auto back = adapters::measurement_from_json(adapters::measurement_to_json(m), "t");
    CHECK(back.values == m.values);
    CHECK(back.commits == m.commits);
    CHECK(back.runner == m.runner);
    CHECK(back.stage == core::Stage::daily);
    CHECK(adapters::measurement_to_json(back) == adapters::measurement_to_json(m));
}

TEST_CASE("bad measurement JSON names the place and the field", "[adapters][json]") {
    auto message = [](const std::string& json) {
        try {
            adapters::measurement_from_json(json, "h.jsonl:7");
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    CHECK(message("{").find("h.jsonl:7: invalid JSON") == 0);
    CHECK(message(R"({"label":"x","status":"ok","values":[1]})").find("'metric'") !=
          std::string::npos);
    CHECK(message(R"({"metric":"m","label":"x","status":"weird"})").find("'status'") !=
          std::string::npos);
    CHECK(message(R"({"metric":"m","label":"x","status":"ok","values":["a"]})").find("numbers") !=
          std::string::npos);
}
