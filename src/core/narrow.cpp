#include "core/narrow.hpp"

#include <algorithm>

namespace perfsweep::core {

std::string_view to_string(Narrow n) {
    return util::enum_name(k_narrow_names, n);
}

std::optional<Narrow> parse_narrow(std::string_view s) {
    return util::parse_enum(k_narrow_names, s);
}

std::vector<std::size_t> regressions_to_narrow(const std::vector<ChangeKind>& kinds,
                                               Narrow narrow) {
    std::vector<std::size_t> out;
    for (std::size_t i = kinds.size(); i-- > 0;)
        if (kinds[i] == ChangeKind::regression) {
            out.push_back(i);
            if (narrow == Narrow::latest)
                break;
        }
    return out;
}

std::optional<SweepFocus> detected_focus(const std::vector<ChangePoint>& changes,
                                         const std::vector<std::string>& labels) {
    const auto latest = regressions_to_narrow(changes, Narrow::latest);
    if (latest.empty() || labels.size() < 2)
        return std::nullopt;
    const auto& cp = *latest.front();
    // The first date at or after the last good one, the last at or before the first bad one.
    const auto good = std::lower_bound(labels.begin(), labels.end(), cp.last_before);
    const auto after = std::upper_bound(labels.begin(), labels.end(), cp.first_after);
    if (good == labels.end() || after == labels.begin())
        return std::nullopt;
    const auto g = static_cast<std::size_t>(good - labels.begin());
    const auto b = static_cast<std::size_t>(after - labels.begin()) - 1;
    if (g >= b)
        return std::nullopt;
    return SweepFocus{g, b};
}

} // namespace perfsweep::core
