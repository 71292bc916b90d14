#include "core/date_range.hpp"

#include "util/time.hpp"

namespace perfsweep::core {

DateRangeCheck check_daily_range(std::string_view from, std::string_view to) {
    DateRangeCheck c;
    const auto f = util::parse_date(from);
    if (!f) {
        c.problem = DateRangeProblem::bad_from;
        return c;
    }
    const auto t = util::parse_date(to);
    if (!t) {
        c.problem = DateRangeProblem::bad_to;
        return c;
    }
    c.dates = util::days_from_civil(*t) - util::days_from_civil(*f) + 1;
    if (c.dates < 1)
        c.problem = DateRangeProblem::reversed;
    else if (c.dates > k_max_daily_dates)
        c.problem = DateRangeProblem::too_long;
    return c;
}

std::vector<std::string> DateRange::labels() const {
    std::vector<std::string> out;
    for (auto d = from; d <= to; d += std::chrono::days{1})
        out.push_back(util::format_day(d));
    return out;
}

} // namespace perfsweep::core
