#pragma once
// --threshold in its two forms: a relative change, or github-action-benchmark's ratio of how much
// worse (which needs the metric's direction to become a relative change).

#include "core/model.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace perfsweep::app {

/// A --threshold as written: a relative change ("0.05", "5%": a 5 % change counts) or
/// github-action-benchmark's ratio of how much worse ("150%", "1.5x": 1.5 times worse counts).
struct Threshold {
    double value = 0.02; ///< the relative change, or the ratio when `ratio`
    bool ratio = false;
};

/// What a threshold may be, for error messages.
inline constexpr std::string_view k_threshold_forms =
    "a relative change (0.02 or 2%, below 100 %) or a ratio of how much worse, "
    "github-action-benchmark's form (150% or 1.5x: 1.5 times worse)";

/// A threshold as written, or nullopt when it is neither form (a bare "1.5" is ambiguous).
std::optional<Threshold> parse_threshold_text(std::string_view text);

/// Parse a --threshold value: below 100 % a relative change ("0.02", "2%"), from 100 % on
/// github-action-benchmark's ratio of how much worse ("150%"), or an explicit ratio ("1.5x").
Threshold parse_threshold(const std::string& text);

/// The relative change that `t` means for a metric going `direction`: a ratio r is 1 - 1/r when
/// higher is better (150% = a 33.3 % drop) and r - 1 when lower is better (150% = 50 % more).
double relative_threshold(const Threshold& t, core::Direction direction);

} // namespace perfsweep::app
