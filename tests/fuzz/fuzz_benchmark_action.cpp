// github-action-benchmark data.js / JSON (adapters/json/benchmark_action_json): parsed or refused
// with an error naming the file; every measurement has a label and finite values, and can be
// stored as a history line that parses back.

#include "adapters/json/benchmark_action_json.hpp"
#include "adapters/json/measurement_json.hpp"
#include "fuzz_support.hpp"

#include <cmath>

using namespace perfsweep;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0)
        return 0;
    core::ImportDefaults d;
    d.benchmark = (data[0] & 1) ? "bench" : "";
    d.direction =
        (data[0] & 2) ? core::Direction::lower_is_better : core::Direction::higher_is_better;
    const std::string body = fuzz::text_of(data + 1, size - 1);
    // With and without the data.js prefix.
    for (const std::string& text : {body, "window.BENCHMARK_DATA = " + body + ";\n"}) {
        std::vector<core::Measurement> ms;
        if (!fuzz::accepts([&] { ms = adapters::parse_benchmark_action(text, "data.js", d); },
                           "data.js"))
            continue;
        for (const auto& m : ms) {
            for (double v : m.values)
                fuzz::check(std::isfinite(v), "an imported value is not finite");
            const auto line = adapters::measurement_to_json(m);
            core::Measurement back;
            fuzz::check(fuzz::accepts([&] { back = adapters::measurement_from_json(line, "x"); }),
                        "an imported point cannot be stored in the history", line);
            fuzz::check(fuzz::same_after_round_trip(m, back, adapters::measurement_to_json),
                        "round trip changed it", line);
        }
    }
    return 0;
}
