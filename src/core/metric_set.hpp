#pragma once
// Several metrics out of one benchmark output (pure): `--metric` repeated (each read with its
// default regex), or one `--metric-regex` with a (?<name>...) group whose text names the metric of
// each match. Each metric becomes its own series; the numbers are read by core/metric_extract.

#include "core/metric_extract.hpp"

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace perfsweep::core {

/// Whether `regex` holds a (?<name>...) group (the metric-name group of --metric-regex).
bool has_name_group(std::string_view regex);

/// `regex` with its (?<name>...) group replaced by `name` as literal text, so that its one other
/// group holds the number (what extract_metric takes). Throws perfsweep::Error (usage) naming
/// --metric-regex when the group is not closed.
std::string regex_for_name(std::string_view regex, std::string_view name);

/// One metric's values out of an output.
struct NamedExtraction {
    std::string metric;
    Extraction extraction;
};

/// Reads several metrics from output that arrives in chunks. With a name group, a metric is each
/// distinct text its group matched (in order of first appearance); else each of `metrics` with
/// `regex` ("" = its default regex; a regex without a name group serves one metric only).
class MetricSetStream {
public:
    /// Throws perfsweep::Error (usage) naming --metric-regex / --metric for a bad combination.
    MetricSetStream(std::vector<std::string> metrics, const std::string& regex);
    ~MetricSetStream();
    MetricSetStream(MetricSetStream&&) noexcept;
    MetricSetStream& operator=(MetricSetStream&&) noexcept;
    /// Take the next piece of output.
    void feed(std::string_view chunk);
    /// Every metric and its extraction. With a name group and no match at all: one entry with an
    /// empty metric name and the reason.
    std::vector<NamedExtraction> finish();

private:
    struct State;
    std::unique_ptr<State> m_state;
};

/// The metrics of a whole output (MetricSetStream over one chunk).
std::vector<NamedExtraction> extract_metric_set(std::string_view output,
                                                const std::vector<std::string>& metrics,
                                                const std::string& regex);

} // namespace perfsweep::core
