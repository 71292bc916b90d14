#include "report/point_table.hpp"

#include "core/stats.hpp"
#include "report/text_table.hpp"

#include <cmath>
#include <cstdio>

namespace perfsweep::report {

namespace {

std::string number(double v, int digits = 6) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    return buf;
}

std::string one_line(std::string s) {
    for (char& c : s)
        if (c == '\n' || c == '\r' || c == '\t')
            c = ' ';
    return s;
}

} // namespace

std::string render_points(const std::vector<core::Measurement>& points) {
    TextTable t;
    bool several = false; // several metrics of one run: a column names each
    for (const auto& m : points)
        several = several || m.metric != points.front().metric;
    t.header = {"label", "values", "median ± sd", "status", "log"};
    t.right_align = {false, false, true, false, false};
    if (several) {
        t.header.insert(t.header.begin() + 1, "metric");
        t.right_align.insert(t.right_align.begin() + 1, false);
    }
    for (const auto& m : points) {
        std::string values, centre = "-";
        for (std::size_t i = 0; i < m.values.size() && i < 8; ++i) // a table cell, not the record
            values += (values.empty() ? "" : " ") + number(m.values[i]);
        if (m.values.size() > 8)
            values += " ... (" + std::to_string(m.values.size()) + " values)";
        if (!m.values.empty()) {
            const auto s = core::summarize(m.values);
            centre = number(s.median) + " ± " + number(s.stddev, 3);
            if (!m.unit.empty())
                centre += " " + m.unit;
        }
        std::string status(core::to_string(m.status));
        if (m.status != core::Status::ok && !m.reason.empty())
            status += " (" + one_line(m.reason) + ")";
        t.rows.push_back({one_line(m.label), values.empty() ? "-" : values, centre, status,
                          m.log.empty() ? "-" : one_line(m.log)});
        if (several)
            t.rows.back().insert(t.rows.back().begin() + 1, one_line(m.metric));
    }
    return render_text(t);
}

} // namespace perfsweep::report
