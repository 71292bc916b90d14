// The daily result read by the hourly stage (adapters/json/hourly_json daily_window_from_json)
// and the simulated-nightly scenarios (adapters/json/scenario_json): parsed or refused with an
// error naming the file.

#include "adapters/json/hourly_json.hpp"
#include "adapters/json/scenario_json.hpp"
#include "fuzz_support.hpp"

using namespace perfsweep;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string json = fuzz::text_of(data, size);
    core::DailyWindow w;
    if (fuzz::accepts([&] { w = adapters::daily_window_from_json(json, "daily.json"); },
                      "daily.json")) {
        fuzz::check(!w.good_times.empty() && !w.bad_times.empty(),
                    "a window without commit times was accepted");
    }
    fuzz::accepts([&] { adapters::scenario_from_json(json, "scenario.json"); }, "scenario.json");
    return 0;
}
