// Metric extraction from benchmark output (core/metric_extract): for any output and any metric
// name, the default regex compiles, extraction returns finite values or a reason, and a line
// "NAME: 42.5" appended to the output is always read back (the escaping of NAME is complete).

#include "core/metric_extract.hpp"
#include "fuzz_support.hpp"

#include <cmath>

using namespace perfsweep;

namespace {

void check_extraction(const core::Extraction& ex) {
    for (double v : ex.values)
        fuzz::check(std::isfinite(v), "an extracted value is not finite");
    fuzz::check(!ex.values.empty() || !ex.reason.empty(), "no values and no reason");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    // First line: a metric name; the rest: benchmark output.
    const auto parts = fuzz::split_first_line(fuzz::text_of(data, size));
    const std::string& metric = parts.first;
    const std::string& output = parts.second;
    const std::string re = core::default_metric_regex(metric);
    core::Extraction ex;
    fuzz::check(fuzz::accepts([&] { ex = core::extract_metric(output, re); }),
                "the default regex of a metric name is refused", metric);
    check_extraction(ex);
    // A user regex as the docs show it, on the same output.
    fuzz::check(fuzz::accepts([&] {
                    check_extraction(core::extract_metric(output, R"(MLUPS:\s*([0-9.eE+-]+))"));
                }),
                "a fixed valid regex is refused");
    // The metric line is found whatever the name holds (names are one line; output lines are
    // split at '\n', and colour codes are stripped before matching).
    const bool plain = metric.find_first_of("\r\x1b") == std::string::npos && !metric.empty();
    if (plain && metric.size() < 200) {
        const std::string probe = "xyz\n" + metric + ": 42.5\n";
        core::Extraction found;
        fuzz::check(fuzz::accepts([&] { found = core::extract_metric(probe, re); }),
                    "extraction of a probe line failed", metric);
        fuzz::check(!found.values.empty() && found.values.back() == 42.5,
                    "the default regex does not find 'NAME: 42.5'", metric);
    }
    return 0;
}
