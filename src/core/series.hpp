#pragma once
// What a series is: the points of one benchmark's one metric on one class of machine (testbed).
// Points of different series are never pooled (detect, the sweeps, the dashboard).

#include "core/model.hpp"

#include <compare>
#include <string>
#include <string_view>

namespace perfsweep::core {

/// The identity of a series: (benchmark name, metric, testbed).
struct SeriesKey {
    std::string benchmark; ///< the benchmark's name (not its command line)
    std::string metric;    ///< e.g. "MLUPS"
    std::string testbed;   ///< the machine class, e.g. "H100 80GB HBM3"; "" when unknown
    /// Ordered by benchmark, metric, testbed.
    auto operator<=>(const SeriesKey&) const = default;
};

/// The machine class of a GPU name as nvidia-smi prints it: vendor words ("NVIDIA", "Tesla",
/// "GeForce") dropped and blanks folded ("NVIDIA H100 80GB HBM3" → "H100 80GB HBM3"); "" stays "".
std::string gpu_class(std::string_view gpu_name);

/// The testbed of a point: its runner's explicit "testbed" entry (--testbed), else the class of
/// its runner's GPU (`gpu_class(runner["gpu"])`), else "".
std::string testbed_of(const Measurement& m);

/// The series `m` belongs to.
SeriesKey series_key(const Measurement& m);

/// "benchmark · metric · testbed" (the testbed part only when it is known), for tables and titles.
std::string to_string(const SeriesKey& key);

} // namespace perfsweep::core
