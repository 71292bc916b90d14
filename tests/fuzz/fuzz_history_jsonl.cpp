// History JSON Lines (adapters/history/jsonl_store + adapters/json/measurement_json): any text is
// either loaded (valid records, torn lines skipped with a warning) or refused with an error naming
// file:line; every loaded record survives serialize → parse → serialize unchanged.

#include "adapters/history/jsonl_store.hpp"
#include "adapters/json/measurement_json.hpp"
#include "fuzz_support.hpp"

using namespace perfsweep;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text = fuzz::text_of(data, size);
    ports::HistoryLoad load;
    fuzz::accepts([&] { load = adapters::parse_history_jsonl(text, "fuzz.jsonl"); }, "fuzz.jsonl:");
    for (const auto& w : load.warnings)
        fuzz::check(w.find("fuzz.jsonl:") != std::string::npos, "warning names no file:line", w);
    for (const auto& m : load.records) {
        const std::string once = adapters::measurement_to_json(m);
        fuzz::check(once.find('\n') == std::string::npos, "a JSON Lines record holds a newline",
                    once);
        core::Measurement back;
        fuzz::check(fuzz::accepts([&] { back = adapters::measurement_from_json(once, "again"); }),
                    "a serialized record does not parse back", once);
        fuzz::check(fuzz::same_after_round_trip(m, back, adapters::measurement_to_json),
                    "round trip changed the record", once);
        // Loading the re-serialized line as a history gives the same single record.
        auto again = adapters::parse_history_jsonl(once + "\n", "again.jsonl");
        fuzz::check(again.records.size() == 1 && again.warnings.empty(),
                    "a serialized record is not one history line", once);
    }
    // One line on its own: the same decoder the daily state directory uses.
    const std::string line = fuzz::split_first_line(text).first;
    fuzz::accepts([&] { adapters::measurement_from_json(line, "state/run-1.txt:2"); },
                  "state/run-1.txt:2");
    return 0;
}
