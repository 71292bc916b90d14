// The daily result read by the hourly stage (adapters/json/result_json, core::regression_window)
// and the simulated-nightly scenarios (adapters/json/scenario_json): parsed or refused with an
// error naming the file.

#include "adapters/json/result_json.hpp"
#include "adapters/json/scenario_json.hpp"
#include "fuzz_support.hpp"

using namespace perfsweep;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string json = fuzz::text_of(data, size);
    core::DailyWindow w;
    if (fuzz::accepts(
            [&] {
                const auto doc = adapters::read_result_document(json, "daily.json");
                if (const auto* d = std::get_if<core::DailyResult>(&doc))
                    w = core::regression_window(*d, "daily.json");
            },
            "daily.json")) {
        fuzz::check(w.last_good_label.empty() || (!w.good_times.empty() && !w.bad_times.empty()),
                    "a window without commit times was accepted");
    }
    fuzz::accepts([&] { adapters::scenario_from_json(json, "scenario.json"); }, "scenario.json");
    return 0;
}
