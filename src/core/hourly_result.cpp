#include "core/hourly_result.hpp"

namespace perfsweep::core {

std::string_view to_string(HourlyConclusion c) {
    return util::enum_name(k_conclusion_names, c, "inconclusive");
}

std::optional<HourlyConclusion> parse_hourly_conclusion(std::string_view s) {
    return util::parse_enum(k_conclusion_names, s);
}

} // namespace perfsweep::core
