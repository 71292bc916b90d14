#pragma once
// Use case: append one measurement, given directly or extracted from benchmark output.

#include "core/model.hpp"
#include "ports/adapters.hpp"
#include "util/enum_names.hpp"

#include <optional>
#include <string>
#include <vector>

namespace perfsweep::app {

/// Which regex matches `record` keeps when the output holds several.
enum class MatchPolicy { all, first, last };

/// The names of MatchPolicy, as --match takes them.
inline constexpr util::EnumName<MatchPolicy> k_match_policy_names[] = {
    {MatchPolicy::all, "all"},
    {MatchPolicy::first, "first"},
    {MatchPolicy::last, "last"},
};

/// What `perfsweep record` needs. Text fields come straight from the command line.
struct RecordRequest {
    std::string history;
    core::Measurement base; ///< provenance: benchmark, metric, unit, direction, label, ...
    /// Every --metric (base.metric is the first); several: one measurement each, read from the
    /// output with its default regex (or a --metric-regex with a (?<name>...) group)
    std::vector<std::string> metrics;
    std::string testbed;             ///< --testbed, stored as runner["testbed"]
    std::vector<std::string> values; ///< --value texts (validated here)
    std::string output_file;         ///< --benchmark-output (or "-" for stdin)
    std::string metric_regex;        ///< empty: core::default_metric_regex(metric)
    MatchPolicy match = MatchPolicy::all;
    std::optional<std::string> status; ///< --status text
    std::vector<std::string> commits;  ///< NAME=SHA texts
    std::vector<std::string> runner;   ///< KEY=VAL texts
};

/// Validate `request` completely, build the measurements (one per metric; timestamp from the
/// clock; label defaults to today's UTC date) and append them in one atomic append. Bad input
/// throws perfsweep::Error (usage) naming the flag, before anything is written. An output without
/// a metric is recorded as a failed measurement of it (the caller exits non-zero for it).
std::vector<core::Measurement> run_record(const RecordRequest& request, ports::Adapters& adapters);

/// Parse "KEY=VALUE" items of `flag` into a map; throws a usage error naming the flag and item.
std::map<std::string, std::string> parse_key_values(const std::vector<std::string>& items,
                                                    const std::string& flag);

} // namespace perfsweep::app
