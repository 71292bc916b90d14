#pragma once
// Which regressions are narrowed further (pure): one rule for the pipeline (detect's change points,
// a daily sweep's boundaries) and for the report that shows them, so it changes in one place.

#include "core/detect.hpp"
#include "core/model.hpp"
#include "core/sweep_plan.hpp"
#include "util/enum_names.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfsweep::core {

/// Which regressions to narrow.
enum class Narrow {
    latest, ///< the latest regression only
    all,    ///< every regression, latest first
};

/// The names of Narrow ("latest", "all").
inline constexpr util::EnumName<Narrow> k_narrow_names[] = {
    {Narrow::latest, "latest"},
    {Narrow::all, "all"},
};

/// "latest" / "all".
std::string_view to_string(Narrow n);
/// Parse "latest" / "all"; nullopt otherwise.
std::optional<Narrow> parse_narrow(std::string_view s);

/// The positions of the regressions among `kinds` (in time order) to narrow, latest first: the
/// latest regression, or with Narrow::all every one.
std::vector<std::size_t> regressions_to_narrow(const std::vector<ChangeKind>& kinds, Narrow narrow);

/// The changes of `changes` (in time order; anything with a ChangeKind `kind`, e.g. detect's
/// ChangePoint or a sweep's Boundary) to narrow, latest first (see above).
template <class Change>
std::vector<const Change*> regressions_to_narrow(const std::vector<Change>& changes,
                                                 Narrow narrow) {
    std::vector<ChangeKind> kinds;
    for (const auto& c : changes)
        kinds.push_back(c.kind);
    std::vector<const Change*> out;
    for (auto i : regressions_to_narrow(kinds, narrow))
        out.push_back(&changes[i]);
    return out;
}

/// The one regression a report shows first and `hourly --from-result` narrows: the latest
/// (nullptr when there is none).
template <class Change> const Change* latest_regression_of(const std::vector<Change>& changes) {
    const auto r = regressions_to_narrow(changes, Narrow::latest);
    return r.empty() ? nullptr : r.front();
}

/// The daily sweep's focus over the candidate dates `labels` (YYYY-MM-DD, in order): detect's
/// latest regression among `changes`, its last good and first bad dates clamped into the range
/// (the nearest candidate dates inside it); none when no regression of `changes` overlaps it.
std::optional<SweepFocus> detected_focus(const std::vector<ChangePoint>& changes,
                                         const std::vector<std::string>& labels);

} // namespace perfsweep::core
