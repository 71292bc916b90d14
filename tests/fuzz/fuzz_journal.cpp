// The resume journal of every stage (core/journal): parsed or refused with an error naming the
// file and line; an accepted journal, written back, reads back to the same events, and writing
// that again gives the same text (a canonical form after one round).

#include "core/journal.hpp"
#include "fuzz_support.hpp"

using namespace perfsweep;

namespace {

std::string write_back(const core::Journal& j) {
    std::string s = core::journal_header(j.stage, j.settings);
    for (const auto& e : j.events)
        s += core::journal_record(e);
    return s;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text = fuzz::text_of(data, size);
    core::Journal j;
    if (!fuzz::accepts([&] { j = core::parse_journal(text, "journal.tsv"); }, "journal.tsv:"))
        return 0;
    std::string once;
    fuzz::check(fuzz::accepts([&] { once = write_back(j); }),
                "an accepted journal cannot be written back", text);
    core::Journal again;
    fuzz::check(fuzz::accepts([&] { again = core::parse_journal(once, "journal.tsv"); }),
                "a written-back journal is refused", once);
    fuzz::check(again.stage == j.stage && again.settings == j.settings &&
                    again.events.size() == j.events.size(),
                "the header or the number of events changed on a round trip", once);
    for (std::size_t i = 0; i < j.events.size(); ++i) {
        const auto &a = j.events[i], &b = again.events[i];
        fuzz::check(a.kind == b.kind && a.point == b.point && a.runs == b.runs && a.ok == b.ok &&
                        a.reason == b.reason && a.measurement.values == b.measurement.values &&
                        a.measurement.commits == b.measurement.commits &&
                        a.measurement.environment == b.measurement.environment &&
                        a.measurement.status == b.measurement.status,
                    "an event changed on a round trip", once);
    }
    fuzz::check(write_back(again) == once, "writing back is not stable", once);
    return 0;
}
