#pragma once
// The pull-request verdict as text, markdown (job summary, sticky PR comment) and JSON (pure).

#include "core/compare.hpp"
#include "core/series.hpp"

#include <string>
#include <vector>

namespace perfsweep::report {

/// One series of a comparison, as the report shows it.
struct CompareRow {
    core::SeriesKey key;
    std::string unit;
    double base = 0; ///< the base's median (or the history's level)
    double head = 0; ///< the head's median
    std::size_t base_runs = 0;
    std::size_t head_runs = 0;
    core::CompareEstimate estimate;
    core::CompareVerdict verdict = core::CompareVerdict::inconclusive;
    std::string reason;
    bool failed = false;
};

/// The whole comparison.
struct CompareReport {
    std::vector<CompareRow> rows;
    core::CompareOptions options;
    std::string base_source; ///< "interleaved runs" or "history H"
    std::size_t pairs = 0;
    long runs = 0;
    std::string verdict; ///< the worst
};

/// A table (series, base, head, change, interval, runs, verdict) and a line per series.
std::string render_compare_text(const CompareReport& r);

/// The PR comment and job summary: a heading with the verdict, the table, how it was measured
/// (interleaved pairs, the error rate), untrusted text escaped.
std::string render_compare_markdown(const CompareReport& r);

/// `compare --json`: kind "compare" (docs/json.md).
std::string render_compare_json(const CompareReport& r);

} // namespace perfsweep::report
