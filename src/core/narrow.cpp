#include "core/narrow.hpp"

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

} // namespace perfsweep::core
