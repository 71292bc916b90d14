#include "core/hourly_result.hpp"

namespace perfsweep::core {

namespace {

constexpr util::EnumName<HourlyConclusion> k_conclusion_names[] = {
    {HourlyConclusion::planned, "planned"},           {HourlyConclusion::window, "window"},
    {HourlyConclusion::culprit, "culprit"},           {HourlyConclusion::no_change, "no_change"},
    {HourlyConclusion::inconclusive, "inconclusive"},
};

} // namespace

std::string_view to_string(HourlyConclusion c) {
    return util::enum_name(k_conclusion_names, c, "inconclusive");
}

std::optional<HourlyConclusion> parse_hourly_conclusion(std::string_view s) {
    return util::parse_enum(k_conclusion_names, s);
}

} // namespace perfsweep::core
