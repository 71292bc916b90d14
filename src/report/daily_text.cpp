#include "report/daily_text.hpp"

#include "core/environment.hpp"
#include "core/exit_code.hpp"
#include "core/stats.hpp"
#include "report/text_table.hpp"

#include <cmath>
#include <cstdio>

namespace perfsweep::report {

namespace {

std::string num(double v, int prec = 4) {
    char b[64];
    std::snprintf(b, sizeof b, "%.*g", prec + 2, v);
    return b;
}

std::string pct(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%+.2f %%", v * 100);
    return b;
}

} // namespace

std::string render_daily(const core::DailyResult& r) {
    const auto& s = r.sweep;
    const bool pass_fail = s.options.comparison == core::ComparisonKind::pass_fail;
    std::string out;
    TextTable t;
    t.header = {"date", r.metric.empty() ? "value" : r.metric, "+-", "repeats", "status"};
    t.right_align = {false, true, true, true, false};
    for (const auto& p : s.points) {
        std::vector<std::string> row{p.label, "", "", "", ""};
        if (p.state == core::StateStatus::unknown) {
            const auto sum = core::summarize(p.values);
            row[1] = num(sum.median);
            row[2] = num(sum.stddev, 2);
            if (pass_fail) { // failed runs / runs
                const auto pf = core::count_pass_fail(p.values);
                row[1] = std::to_string(pf.failed) + "/" + std::to_string(pf.total());
                row[2] = "";
            }
            row[3] = std::to_string(p.values.size());
            row[4] = p.reused ? "ok (history)" : "ok";
        } else if (p.state == core::StateStatus::test_failed) {
            row[4] = std::string(core::to_string(p.status)) + ": " + p.reason;
        } else
            row[4] = "-";
        t.rows.push_back(row);
    }
    out += render_text(t);
    out += "\n";
    if (s.boundaries.empty())
        out += "No change of level found between " + r.from + " and " + r.to + ".\n";
    for (std::size_t bi = 0; bi < s.boundaries.size(); ++bi) {
        const auto& b = s.boundaries[bi];
        out += std::string(core::to_string(b.kind)) + ": last before " +
               s.points[b.last_before].label + ", first after " + s.points[b.first_after].label;
        if (!b.broken_between.empty()) {
            out += " (";
            for (std::size_t k = 0; k < b.broken_between.size(); ++k)
                out += (k ? ", " : "") + s.points[b.broken_between[k]].label;
            out += " broken)";
        }
        if (b.untested_between > 0)
            out += " [" + std::to_string(b.untested_between) + " dates between not measured]";
        if (pass_fail) { // every run of the two segments around the boundary
            const std::size_t lo = bi == 0 ? 0 : s.boundaries[bi - 1].first_after;
            const std::size_t hi = bi + 1 < s.boundaries.size() ? s.boundaries[bi + 1].last_before
                                                                : s.points.size() - 1;
            std::vector<double> before, after;
            for (std::size_t i = lo; i <= hi; ++i)
                if (s.points[i].state == core::StateStatus::unknown &&
                    (i <= b.last_before || i >= b.first_after))
                    (i <= b.last_before ? before : after)
                        .insert((i <= b.last_before ? before : after).end(),
                                s.points[i].values.begin(), s.points[i].values.end());
            out += ": " +
                   core::describe_failure_change(core::count_pass_fail(before),
                                                 core::count_pass_fail(after)) +
                   "\n";
            continue;
        }
        out += ": " + num(b.old_level) + " -> " + num(b.new_level) + " " + r.unit + " (" +
               pct(b.relative_change) + ")\n";
        if (const auto a = core::attribute_boundary(r, b);
            !a.diff.empty() || a.cause == core::Cause::environment || a.cause == core::Cause::both)
            out += "  cause: " + std::string(core::to_string(a.cause)) + " - " +
                   core::describe_attribution(a) + "\n";
    }
    for (auto i : s.skipped) {
        const auto& p = s.points[i];
        out += "skipped " + p.label + ": " + std::string(core::to_string(p.status)) + " (" +
               p.reason + ")" + (p.log.empty() ? "" : ", log " + p.log) + "\n";
    }
    char line[200];
    std::snprintf(line, sizeof line,
                  "runs: %ld (exhaustive: %ld, %.0f %%), reused from history: %ld values, "
                  "resumed: %ld runs, strategy %s\n",
                  s.runs, s.exhaustive_runs,
                  s.exhaustive_runs
                      ? 100.0 * static_cast<double>(s.runs) / static_cast<double>(s.exhaustive_runs)
                      : 0.0,
                  s.reused_values, r.resumed_runs,
                  std::string(core::to_string(s.options.strategy)).c_str());
    out += line;
    if (!s.complete)
        out += "INCOMPLETE: " + s.stop_reason + "; the boundaries above are what is known so far\n";
    out += "Dates are the image tags' calendar dates (publisher's time zone), not UTC commit "
           "times.\n";
    return out;
}

} // namespace perfsweep::report
