#include "report/detect_text.hpp"

#include "report/text_table.hpp"
#include "util/strings.hpp"

#include <cmath>

namespace perfsweep::report {

std::string level_number(double v) {
    const double a = std::fabs(v);
    return util::format_fixed(v, a >= 1000 ? 1 : (a >= 10 ? 2 : (a >= 0.1 ? 4 : 6)));
}
std::string signed_percent(double r) {
    if (!std::isfinite(r))
        return r > 0 ? "+inf" : "-inf";
    return (r >= 0 ? "+" : "") + util::format_fixed(100 * r, 2) + "%";
}

namespace {
std::string pval(double p) {
    if (p < 1e-6)
        return "<1e-6";
    return util::format_fixed(p, 6);
}
} // namespace

std::string render_detect_text(const core::DetectResult& r) {
    std::string out;
    std::string name = r.metric.empty() ? std::string("detect") : r.metric;
    if (!r.benchmark.empty())
        name = r.benchmark + " / " + r.metric;
    if (!r.testbed.empty())
        name += " on " + r.testbed;
    out += name + " (" + std::string(core::to_string(r.direction)) + " is better" +
           (r.unit.empty() ? "" : ", unit " + r.unit) +
           "): " + std::string(core::to_string(r.verdict)) + "\n";
    out += "  " + r.reason + "\n";
    if (r.failure_rates)
        out += "  " + std::to_string(r.points) +
               " points, levels are failure rates (exit-code mode), threshold " +
               util::format_fixed(100 * r.threshold, 2) + " points\n";
    else
        out += "  " + std::to_string(r.points) + " points, noise " + level_number(r.noise) + " (" +
               util::format_fixed(100 * r.relative_noise, 3) + "%), threshold " +
               util::format_fixed(100 * r.threshold, 2) + "%\n";
    if (r.points > 0)
        out += "  ordered by " + std::string(core::to_string(r.order)) +
               (r.order == core::PointOrder::file
                    ? " (warning: may not be time order: " + r.order_note + ")"
                    : "") +
               "\n";
    // Exit-code mode: levels are failure rates, changes their difference in points.
    auto level = [&](double v) {
        return r.failure_rates ? util::format_fixed(100 * v, 1) + "%" : level_number(v);
    };
    auto change = [&](double d) {
        return r.failure_rates ? (d >= 0 ? "+" : "") + util::format_fixed(100 * d, 1) + " pt"
                               : signed_percent(d);
    };
    if (!r.change_points.empty()) {
        TextTable t;
        t.header = {"last before", "first after", "old", "new", "change", "p-value", "kind"};
        t.right_align = {false, false, true, true, true, true, false};
        for (const auto& c : r.change_points)
            t.rows.push_back({c.last_before, c.first_after, level(c.old_level), level(c.new_level),
                              change(c.relative_change), pval(c.p_value),
                              std::string(core::to_string(c.kind))});
        out += "\nChange points:\n" + render_text(t);
    } else {
        out += "\nNo change points.\n";
    }
    if (!r.segments.empty()) {
        TextTable t;
        t.header = {"from", "to", "points", "level"};
        t.right_align = {false, false, true, true};
        for (const auto& s : r.segments)
            t.rows.push_back(
                {s.first_label, s.last_label, std::to_string(s.points), level(s.level)});
        out += "\nLevels:\n" + render_text(t);
    }
    if (!r.outliers.empty())
        out += "\nLone outliers left out of the fit: " + util::join(r.outliers, ", ") + "\n";
    if (!r.failed.empty()) {
        TextTable t;
        t.header = {"failed point", "reason"};
        for (const auto& f : r.failed)
            t.rows.push_back({f.label, f.reason});
        out += "\nFailed points (excluded):\n" + render_text(t);
    }
    return out;
}

} // namespace perfsweep::report
