// CSV and `grep METRIC` imports (core/import_formats) and format detection: any text is parsed or
// refused with an error naming the file; every imported value is finite, ok points have values,
// failed points have none, and each point serializes to a history line that parses back.

#include "adapters/json/measurement_json.hpp"
#include "core/import_formats.hpp"
#include "fuzz_support.hpp"

#include <cmath>

using namespace perfsweep;

namespace {

void check_points(const std::vector<core::Measurement>& ms) {
    for (const auto& m : ms) {
        fuzz::check(!m.label.empty(), "an imported point without a label");
        for (double v : m.values)
            fuzz::check(std::isfinite(v), "an imported value is not finite");
        if (m.status == core::Status::ok)
            fuzz::check(!m.values.empty(), "an ok point without values", m.label);
        else
            fuzz::check(m.values.empty(), "a failed point with values", m.label);
        const auto line = adapters::measurement_to_json(m);
        fuzz::check(fuzz::accepts([&] { adapters::measurement_from_json(line, "x"); }),
                    "an imported point cannot be stored in the history", line);
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0)
        return 0;
    // First byte: which defaults (metric given or not, direction).
    core::ImportDefaults d;
    d.benchmark = "bench";
    d.metric = (data[0] & 1) ? "MLUPS" : "";
    d.direction =
        (data[0] & 2) ? core::Direction::lower_is_better : core::Direction::higher_is_better;
    const std::string text = fuzz::text_of(data + 1, size - 1);
    fuzz::accepts([&] { core::detect_import_format(text, "in.txt"); }, "in.txt");
    std::vector<core::Measurement> ms;
    core::ImportDefaults csv = d;
    if (csv.metric.empty())
        csv.metric = "value";
    if (fuzz::accepts([&] { ms = core::parse_csv(text, "in.csv", csv); }, "in.csv"))
        check_points(ms);
    if (fuzz::accepts([&] { ms = core::parse_grep(text, "in.grep", d); }, "in.grep"))
        check_points(ms);
    return 0;
}
