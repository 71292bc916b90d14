#include "report/dashboard_chart.hpp"

#include "report/dashboard_html.hpp"
#include "util/json_writer.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace perfsweep::report {

namespace {

constexpr double k_chart_char_px = 6.6; // mean advance of a 12 px sans-serif character
constexpr int k_chart_label_rows = 4;   // rows of mark labels above the plot
constexpr double k_chart_row_px = 15;

const char* const k_chart_months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

/// A coordinate with at most one decimal ("12.5", "12").
std::string svg_num(double v) {
    if (!std::isfinite(v))
        v = 0;
    std::string s = util::format_fixed(std::round(v * 10) / 10, 1);
    if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0)
        s.resize(s.size() - 2);
    return s == "-0" ? "0" : s;
}

/// Width of `text` in pixels at 12 px (code points times the mean advance).
double label_width(std::string_view text, double char_px = k_chart_char_px) {
    std::size_t n = 0;
    for (unsigned char c : text)
        n += (c & 0xC0) != 0x80;
    return static_cast<double>(n) * char_px;
}

/// "−7.0 %" / "+2.1 %" (a real minus sign).
std::string chart_percent(double r) {
    const std::string digits = util::format_fixed(std::fabs(r) * 100.0, 1);
    return (r < 0 ? "\u2212" : "+") + digits + " %";
}

std::string tick_day(const util::CivilDate& d) {
    return std::string(k_chart_months[d.month - 1]) + " " + std::to_string(d.day);
}

std::string tick_hhmm(util::UnixSeconds t) {
    return util::format_iso8601(t).substr(11, 5);
}

/// Fixed-step ticks from the first multiple of `step` (shifted by `offset`) at or after `lo`.
std::vector<double> tick_fixed_steps(double lo, double hi, double step, double offset) {
    std::vector<double> out;
    for (double t = std::ceil((lo - offset) / step) * step + offset; t <= hi + 1e-6; t += step)
        out.push_back(t);
    return out;
}

/// Month-start ticks every `months` months.
std::vector<double> tick_month_steps(double lo, double hi, int months) {
    std::vector<double> out;
    auto d = util::civil_from_days(static_cast<std::int64_t>(std::floor(lo / 86400.0)));
    long m = static_cast<long>(d.year) * 12 + (d.month - 1);
    for (;; ++m) {
        if (m % months != 0)
            continue;
        const util::CivilDate c{static_cast<int>(m / 12), static_cast<int>(m % 12) + 1, 1};
        const double t = static_cast<double>(util::days_from_civil(c)) * 86400.0;
        if (t < lo)
            continue;
        if (t > hi)
            break;
        out.push_back(t);
    }
    return out;
}

/// The plot's geometry: where the data go and how values map to pixels.
struct ChartLayout {
    double width = 0, height = 0;
    double x0 = 0, x1 = 0, y0 = 0, y1 = 0; // plot box (pixels)
    double d0 = 0, d1 = 1;                 // x domain
    double v0 = 0, v1 = 1;                 // y domain
    std::vector<Tick> xt, yt;
    double legend_top = 0;
    double px(double x) const {
        return d1 == d0 ? (x0 + x1) / 2 : x0 + (x - d0) / (d1 - d0) * (x1 - x0);
    }
    double py(double v) const {
        return v1 == v0 ? (y0 + y1) / 2 : y1 - (v - v0) / (v1 - v0) * (y1 - y0);
    }
};

/// One entry of the legend: a symbol kind and its text.
struct ChartLegendItem {
    std::string symbol; // dot, bar, level, regression, improvement, nightly, hour, culprit, ...
    std::string text;
};

std::vector<ChartLegendItem> chart_legend_items(const core::SeriesView& v) {
    std::vector<ChartLegendItem> items;
    const bool repeats = std::any_of(v.points.begin(), v.points.end(),
                                     [](const auto& p) { return p.ok && p.high > p.low; });
    items.push_back(
        {"dot", v.detect.failure_rates ? "failure rate of a point" : "median of a point"});
    if (repeats)
        items.push_back({"bar", "min–max of its repeats"});
    if (!v.levels.empty())
        items.push_back({"level", "fitted level (detect)"});
    auto any_change = [&](core::ChangeKind k) {
        return std::any_of(v.changes.begin(), v.changes.end(),
                           [&](const auto& c) { return c.kind == k; });
    };
    if (any_change(core::ChangeKind::regression))
        items.push_back({"regression", "regression"});
    if (any_change(core::ChangeKind::improvement))
        items.push_back({"improvement", "improvement"});
    if (!v.narrowed.empty())
        items.push_back({"nightly", "nightly window"});
    if (std::any_of(v.narrowed.begin(), v.narrowed.end(), [](const auto& n) { return n.has_hour; }))
        items.push_back({"hour", "hour window"});
    if (std::any_of(v.narrowed.begin(), v.narrowed.end(),
                    [](const auto& n) { return n.culprit.has_value(); }))
        items.push_back({"culprit", "culprit commit"});
    if (std::any_of(v.points.begin(), v.points.end(), [](const auto& p) { return p.outlier; }))
        items.push_back({"outlier", "outlier (not fitted)"});
    if (std::any_of(v.points.begin(), v.points.end(), [](const auto& p) { return !p.ok; }))
        items.push_back({"broken", "broken point (no value)"});
    if (!v.environment.empty())
        items.push_back({"env", "environment change"});
    return items;
}

/// Rows the legend needs at `width`.
int chart_legend_rows(const std::vector<ChartLegendItem>& items, double left, double right) {
    int rows = 1;
    double x = left;
    for (const auto& it : items) {
        const double w = 24 + label_width(it.text) + 18;
        if (x + w > right && x > left) {
            ++rows;
            x = left;
        }
        x += w;
    }
    return rows;
}

ChartLayout chart_layout(const core::SeriesView& v, const ChartOptions& o) {
    ChartLayout l;
    l.width = o.width;
    l.height = o.height;
    l.x0 = 76;
    l.x1 = o.width - 20;
    l.y0 = (o.standalone ? 34 : 6) + k_chart_label_rows * k_chart_row_px + 8;
    const int rows = chart_legend_rows(chart_legend_items(v), l.x0, l.x1);
    l.legend_top = o.height - rows * 18.0 - 4;
    l.y1 = l.legend_top - 42;
    // x domain: every point and mark.
    double lo = INFINITY, hi = -INFINITY;
    auto take = [&](double x) {
        lo = std::min(lo, x);
        hi = std::max(hi, x);
    };
    for (const auto& p : v.points)
        take(p.x);
    for (const auto& n : v.narrowed) {
        take(n.good_x);
        take(n.bad_x);
        if (n.has_hour) {
            take(n.hour_from_x);
            take(n.hour_to_x);
        }
        if (n.culprit)
            take(n.culprit_x);
    }
    if (lo > hi)
        lo = 0, hi = 1;
    const bool time_axis = v.axis == core::AxisKind::time;
    if (hi == lo) {
        lo -= time_axis ? 43200 : 1;
        hi += time_axis ? 43200 : 1;
    }
    const double pad = (hi - lo) * 0.025;
    l.d0 = lo - pad;
    l.d1 = hi + pad;
    // y domain: every value, repeat and level.
    double vlo = INFINITY, vhi = -INFINITY;
    for (const auto& p : v.points)
        if (p.ok) {
            vlo = std::min({vlo, p.low, p.value});
            vhi = std::max({vhi, p.high, p.value});
        }
    for (const auto& lv : v.levels) {
        vlo = std::min(vlo, lv.level);
        vhi = std::max(vhi, lv.level);
    }
    if (vlo > vhi)
        vlo = 0, vhi = 1;
    if (vhi == vlo) {
        const double d = vlo == 0 ? 1 : std::fabs(vlo) * 0.05;
        vlo -= d;
        vhi += d;
    }
    const double vpad = (vhi - vlo) * 0.06;
    l.yt = value_ticks(vlo - vpad, vhi + vpad, 6);
    l.v0 = l.yt.front().value;
    l.v1 = l.yt.back().value;
    const int max_x_ticks = std::max(2, static_cast<int>((l.x1 - l.x0) / 96));
    if (time_axis) {
        l.xt = time_ticks(l.d0, l.d1, max_x_ticks);
    } else {
        const std::size_t n = v.points.size();
        const std::size_t every = std::max<std::size_t>(1, (n + max_x_ticks - 1) / max_x_ticks);
        for (std::size_t i = 0; i < n; i += every) {
            std::string label = v.points[i].label;
            if (label_width(label) > 90)
                label = label.substr(0, 12) + "…";
            l.xt.push_back({v.points[i].x, label, {}});
        }
    }
    return l;
}

/// A label above the plot, placed in the first row where it overlaps nothing.
struct ChartMarkLabel {
    double x = 0; // anchor (plot pixels)
    std::string text;
    std::string cls;
    std::string href;
    std::string title;
    int rank = 0; // 0-4: rows are claimed in rank order: changes, culprit, windows, the rest
};

std::string place_mark_labels(const std::vector<ChartMarkLabel>& unranked, const ChartLayout& l) {
    std::vector<const ChartMarkLabel*> labels; // in rank order, stable
    for (int rank = 0; rank <= 4; ++rank)
        for (const auto& m : unranked)
            if (m.rank == rank)
                labels.push_back(&m);
    std::vector<std::vector<std::pair<double, double>>> rows(k_chart_label_rows);
    std::string out = "<g class=\"mk-labels\">";
    for (const auto* label : labels) {
        const auto& m = *label;
        const double w = label_width(m.text) + 6;
        double left = std::clamp(m.x - w / 2, l.x0 - 40, l.x1 + 16 - w);
        int row = -1;
        for (int r = 0; r < k_chart_label_rows && row < 0; ++r) {
            const bool free = std::none_of(rows[r].begin(), rows[r].end(), [&](const auto& s) {
                return left < s.second + 4 && s.first < left + w + 4;
            });
            if (free)
                row = r;
        }
        if (row < 0)
            continue; // no room: the mark keeps its <title>
        rows[row].emplace_back(left, left + w);
        const double y = l.y0 - 8 - row * k_chart_row_px;
        std::string text = "<text class=\"" + m.cls + "\" x=\"" + svg_num(left + w / 2) +
                           "\" y=\"" + svg_num(y) + "\" data-x=\"" + svg_num(m.x) +
                           "\" data-dx=\"" + svg_num(left + w / 2 - m.x) + "\">" +
                           escape_html(m.text);
        if (!m.title.empty())
            text += "<title>" + escape_html(m.title) + "</title>";
        text += "</text>";
        out += m.href.empty() ? text : "<a href=\"" + escape_html(m.href) + "\">" + text + "</a>";
    }
    return out + "</g>";
}

std::string chart_axes(const core::SeriesView& v, const ChartLayout& l) {
    std::string out = "<g class=\"grid\">";
    for (const auto& t : l.yt)
        out += "<line x1=\"" + svg_num(l.x0) + "\" x2=\"" + svg_num(l.x1) + "\" y1=\"" +
               svg_num(l.py(t.value)) + "\" y2=\"" + svg_num(l.py(t.value)) + "\"/>";
    out += "</g><g class=\"axis y\">";
    for (const auto& t : l.yt)
        out += "<text x=\"" + svg_num(l.x0 - 8) + "\" y=\"" + svg_num(l.py(t.value) + 4) + "\">" +
               escape_html(t.label) + "</text>";
    // The unit (else the metric) and which way is better, as long as it fits beside the plot.
    std::string title = v.detect.failure_rates ? "failure rate"
                        : v.unit.empty()       ? v.key.metric
                                               : v.unit;
    const bool lower = v.detect.failure_rates || v.direction == core::Direction::lower_is_better;
    const std::string better = lower ? " · lower is better" : " · higher is better";
    const double room = l.y1 - l.y0;
    if (label_width(title + better) <= room)
        title += better;
    else if (label_width(title) > room)
        title = title.substr(0, static_cast<std::size_t>(room / k_chart_char_px) - 1) + "…";
    out += "</g><text class=\"axis-title\" transform=\"translate(16 " + svg_num((l.y0 + l.y1) / 2) +
           ") rotate(-90)\">" + escape_html(title) + "</text>";
    out += "<g class=\"axis x\" data-y=\"" + svg_num(l.y1) + "\">";
    for (const auto& t : l.xt) {
        const double x = l.px(t.value);
        if (x < l.x0 - 1 || x > l.x1 + 1)
            continue;
        out += "<line x1=\"" + svg_num(x) + "\" x2=\"" + svg_num(x) + "\" y1=\"" + svg_num(l.y1) +
               "\" y2=\"" + svg_num(l.y1 + 5) + "\"/><text x=\"" + svg_num(x) + "\" y=\"" +
               svg_num(l.y1 + 18) + "\">" + escape_html(t.label) + "</text>";
        if (!t.sublabel.empty())
            out += "<text class=\"sub\" x=\"" + svg_num(x) + "\" y=\"" + svg_num(l.y1 + 32) +
                   "\">" + escape_html(t.sublabel) + "</text>";
    }
    out += "</g><rect class=\"frame\" x=\"" + svg_num(l.x0) + "\" y=\"" + svg_num(l.y0) +
           "\" width=\"" + svg_num(l.x1 - l.x0) + "\" height=\"" + svg_num(l.y1 - l.y0) + "\"/>";
    return out;
}

std::string chart_legend(const core::SeriesView& v, const ChartLayout& l) {
    std::string out = "<g class=\"legend\">";
    double x = l.x0, y = l.legend_top + 12;
    for (const auto& it : chart_legend_items(v)) {
        const double w = 24 + label_width(it.text) + 18;
        if (x + w > l.x1 && x > l.x0) {
            x = l.x0;
            y += 18;
        }
        const std::string cx = svg_num(x + 9), cy = svg_num(y - 4);
        const std::string& s = it.symbol;
        if (s == "dot")
            out += "<path class=\"pts\" d=\"M" + cx + " " + cy + "h0\"/>";
        else if (s == "bar")
            out += "<path class=\"spread\" d=\"M" + cx + " " + svg_num(y - 11) + "V" +
                   svg_num(y + 3) + "\"/>";
        else if (s == "level")
            out += "<path class=\"level\" d=\"M" + svg_num(x) + " " + cy + "h18\"/>";
        else if (s == "regression" || s == "improvement")
            out += "<path class=\"cp " + s + "\" d=\"M" + cx + " " + svg_num(y - 12) + "V" +
                   svg_num(y + 4) + "\"/>";
        else if (s == "nightly" || s == "hour")
            out += "<rect class=\"mk-" + s + "\" x=\"" + svg_num(x + 2) + "\" y=\"" +
                   svg_num(y - 11) + "\" width=\"14\" height=\"14\"/>";
        else if (s == "culprit")
            out += "<path class=\"mk-culprit-head\" d=\"M" + cx + " " + svg_num(y - 11) +
                   "l6 7l-6 7l-6 -7z\"/>";
        else if (s == "outlier")
            out += "<path class=\"outl\" d=\"M" + cx + " " + cy +
                   "h0\"/><path class=\"outl-in\" d=\"M" + cx + " " + cy + "h0\"/>";
        else if (s == "broken")
            out += "<path class=\"broken\" d=\"M" + cx + " " + cy + "h0\"/>";
        else if (s == "env")
            out += "<path class=\"mk-env-head\" d=\"M" + svg_num(x + 3) + " " + svg_num(y - 10) +
                   "h12l-6 10z\"/>";
        out += "<text x=\"" + svg_num(x + 24) + "\" y=\"" + svg_num(y) + "\">" +
               escape_html(it.text) + "</text>";
        x += w;
    }
    return out + "</g>";
}

/// The points: repeats' spread, medians, outlier rings, broken squares (one path each).
std::string chart_point_paths(const core::SeriesView& v, const ChartLayout& l) {
    std::string spread, dots, outliers, broken;
    for (const auto& p : v.points) {
        const std::string x = svg_num(l.px(p.x));
        if (!p.ok) {
            broken += "M" + x + " " + svg_num(l.y1 - 7) + "h0";
            continue;
        }
        if (p.high > p.low)
            spread += "M" + x + " " + svg_num(l.py(p.high)) + "V" + svg_num(l.py(p.low));
        (p.outlier ? outliers : dots) += "M" + x + " " + svg_num(l.py(p.value)) + "h0";
    }
    // Dots shrink where points crowd (2,000 points on 860 pixels).
    const double per_point =
        (l.x1 - l.x0) / std::max<double>(1, static_cast<double>(v.points.size()));
    const std::string size = per_point >= 7 ? "" : per_point >= 3 ? " small" : " tiny";
    std::string out;
    if (!spread.empty())
        out += "<path class=\"spread" + size + "\" d=\"" + spread + "\"/>";
    if (!dots.empty())
        out += "<path class=\"pts" + size + "\" d=\"" + dots + "\"/>";
    if (!outliers.empty())
        out += "<path class=\"outl\" d=\"" + outliers + "\"/><path class=\"outl-in\" d=\"" +
               outliers + "\"/>";
    if (!broken.empty())
        out += "<path class=\"broken\" d=\"" + broken + "\"/>";
    return out;
}

/// The fitted levels as one step line.
std::string chart_level_path(const core::SeriesView& v, const ChartLayout& l) {
    if (v.levels.empty())
        return "";
    std::string d;
    for (std::size_t i = 0; i < v.levels.size(); ++i) {
        const auto& lv = v.levels[i];
        const double from =
            i == 0 ? l.px(lv.x_from) : (l.px(v.levels[i - 1].x_to) + l.px(lv.x_from)) / 2;
        const double to = i + 1 == v.levels.size()
                              ? l.px(lv.x_to)
                              : (l.px(lv.x_to) + l.px(v.levels[i + 1].x_from)) / 2;
        d += (i == 0 ? "M" + svg_num(from) + " " : "V") + svg_num(l.py(lv.level)) + "H" +
             svg_num(to);
    }
    return "<path class=\"level\" d=\"" + d + "\"/>";
}

std::string chart_vline(const std::string& cls, double x, const ChartLayout& l,
                        const std::string& attrs) {
    return "<line class=\"" + cls + "\" x1=\"" + svg_num(x) + "\" x2=\"" + svg_num(x) + "\" y1=\"" +
           svg_num(l.y0) + "\" y2=\"" + svg_num(l.y1) + "\"" + attrs + "/>";
}

std::string chart_band(const std::string& cls, double a, double b, const ChartLayout& l,
                       const std::string& attrs, const std::string& title) {
    return "<rect class=\"" + cls + "\" x=\"" + svg_num(std::min(a, b)) + "\" y=\"" +
           svg_num(l.y0) + "\" width=\"" + svg_num(std::fabs(b - a)) + "\" height=\"" +
           svg_num(l.y1 - l.y0) + "\"" + attrs + "><title>" + escape_html(title) +
           "</title></rect>";
}

std::string svg_attr(const std::string& name, const std::string& value) {
    return " " + name + "=\"" + escape_html(value) + "\"";
}

/// Investigation marks (bands and lines inside the zoomed group) and their labels.
std::string chart_narrowed_marks(const core::SeriesView& v, const ChartLayout& l,
                                 const ChartOptions& o, std::vector<ChartMarkLabel>& labels,
                                 std::string& heads) {
    std::string out;
    for (const auto& n : v.narrowed) {
        const std::string report =
            n.investigation < o.report_links.size() ? o.report_links[n.investigation] : "";
        std::string change =
            n.relative_change != 0 ? " (" + chart_percent(n.relative_change) + ")" : "";
        const std::string nightly = "nightly window " + n.last_good + " → " + n.first_bad + change;
        std::string rect =
            chart_band("mk-nightly", l.px(n.good_x), l.px(n.bad_x), l,
                       svg_attr("data-from", n.last_good) + svg_attr("data-to", n.first_bad) +
                           svg_attr("data-x-from", svg_num(l.px(n.good_x))) +
                           svg_attr("data-x-to", svg_num(l.px(n.bad_x))),
                       nightly);
        out += report.empty() ? rect : "<a href=\"" + escape_html(report) + "\">" + rect + "</a>";
        labels.push_back({(l.px(n.good_x) + l.px(n.bad_x)) / 2,
                          "nightly " + n.last_good.substr(5) + " → " + n.first_bad.substr(5),
                          "lbl-nightly", report, nightly, 2});
        if (n.has_hour) {
            const std::string from = util::format_iso8601(n.hour_from),
                              to = util::format_iso8601(n.hour_to);
            const std::string title = "hour window " + from + " " + n.hour_from_commits + " → " +
                                      to + " " + n.hour_to_commits;
            out += chart_band("mk-hour", l.px(n.hour_from_x), l.px(n.hour_to_x), l,
                              svg_attr("data-from", from) + svg_attr("data-to", to) +
                                  svg_attr("data-x-from", svg_num(l.px(n.hour_from_x))) +
                                  svg_attr("data-x-to", svg_num(l.px(n.hour_to_x))),
                              title);
            labels.push_back({(l.px(n.hour_from_x) + l.px(n.hour_to_x)) / 2,
                              "hour " + tick_hhmm(n.hour_from) + "–" + tick_hhmm(n.hour_to),
                              "lbl-hour", n.compare_url, title, 3});
        }
        if (n.culprit) {
            const double x = l.px(n.culprit_x);
            const std::string id = n.culprit->repo + "@" + n.culprit->commit.sha.substr(0, 10);
            const std::string title = "culprit " + n.culprit->repo + "@" + n.culprit->commit.sha +
                                      " " + util::format_iso8601(n.culprit->commit.time) + " " +
                                      n.culprit->commit.subject;
            const std::string attrs =
                svg_attr("data-sha", n.culprit->commit.sha) +
                svg_attr("data-time", util::format_iso8601(n.culprit->commit.time)) +
                svg_attr("data-x", svg_num(x));
            out += chart_vline("mk-culprit", x, l, attrs);
            std::string head = "<path class=\"mk-culprit-head\" data-x=\"" + svg_num(x) +
                               "\" transform=\"translate(" + svg_num(x) + " " + svg_num(l.y0) +
                               ")\" d=\"M0 -7l6 7l-6 7l-6 -7z\"><title>" + escape_html(title) +
                               "</title></path>";
            heads += n.culprit_url.empty()
                         ? head
                         : "<a href=\"" + escape_html(n.culprit_url) + "\">" + head + "</a>";
            labels.push_back({x, "culprit " + id, "lbl-culprit", n.culprit_url, title, 1});
        }
    }
    return out;
}

std::string chart_change_marks(const core::SeriesView& v, const ChartLayout& l,
                               std::vector<ChartMarkLabel>& labels) {
    std::string out;
    for (const auto& c : v.changes) {
        const double x = (l.px(c.at.x_before) + l.px(c.at.x_after)) / 2;
        const std::string kind(core::to_string(c.kind));
        const std::string title = kind + " " + chart_percent(c.relative_change) + ": " +
                                  value_text(c.old_level) + " → " + value_text(c.new_level) +
                                  " between " + c.at.last_before + " and " + c.at.first_after;
        out += "<line class=\"cp " + kind + "\" x1=\"" + svg_num(x) + "\" x2=\"" + svg_num(x) +
               "\" y1=\"" + svg_num(l.y0) + "\" y2=\"" + svg_num(l.y1) + "\"" +
               svg_attr("data-before", c.at.last_before) +
               svg_attr("data-after", c.at.first_after) + svg_attr("data-x", svg_num(x)) +
               "><title>" + escape_html(title) + "</title></line>";
        labels.push_back({x, chart_percent(c.relative_change), "lbl-" + kind, "", title});
    }
    return out;
}

std::string chart_environment_marks(const core::SeriesView& v, const ChartLayout& l,
                                    std::vector<ChartMarkLabel>& labels, std::string& heads) {
    std::string out;
    for (const auto& e : v.environment) {
        const double x = (l.px(e.at.x_before) + l.px(e.at.x_after)) / 2;
        std::vector<std::string> parts, names;
        for (const auto& c : e.changes) {
            const std::string name = c.component.rfind("runner.", 0) == 0
                                         ? c.component.substr(7)
                                         : core::environment_component_name(c.component);
            parts.push_back(name + " " + (c.before.empty() ? "absent" : c.before) + " → " +
                            (c.after.empty() ? "absent" : c.after));
            names.push_back(name);
        }
        const std::string title = "environment change between " + e.at.last_before + " and " +
                                  e.at.first_after + ": " + util::join(parts, "; ");
        out += chart_vline("mk-env", x, l,
                           svg_attr("data-before", e.at.last_before) +
                               svg_attr("data-after", e.at.first_after));
        heads += "<path class=\"mk-env-head\" data-x=\"" + svg_num(x) +
                 "\" transform=\"translate(" + svg_num(x) + " " + svg_num(l.y0) +
                 ")\" d=\"M-6 -9h12l-6 9z\"><title>" + escape_html(title) + "</title></path>";
        std::string short_names = util::join(names, ", ");
        if (label_width(short_names) > 140)
            short_names = names.front() + " +" + std::to_string(names.size() - 1);
        labels.push_back({x, short_names, "lbl-env", "", title, 4});
    }
    return out;
}

} // namespace

std::string value_text(double v) {
    const double a = std::fabs(v);
    std::string digits = util::format_fixed(v, a >= 1e5    ? 0
                                               : a >= 1000 ? 1
                                               : a >= 10   ? 2
                                               : a >= 0.1  ? 3
                                                           : 5);
    if (a < 1e4)
        return digits;
    // Thousands grouped: 1,599,882,582.
    const auto dot = digits.find('.');
    const std::size_t end = dot == std::string::npos ? digits.size() : dot;
    const std::size_t begin = digits[0] == '-' ? 1 : 0;
    for (std::size_t i = end; i > begin + 3; i -= 3)
        digits.insert(i - 3, ",");
    return digits;
}

std::string escape_html(std::string_view text) {
    // Control characters other than newline and tab become spaces (XML forbids most of them).
    static constexpr util::EscapeRow rows[] = {
        {'&', "&amp;"}, {'<', "&lt;"}, {'>', "&gt;"}, {'"', "&quot;"}, {'\'', "&#39;"}};
    static constexpr auto k_html = util::escape_table(rows, " ", "\n\t");
    return util::escape_bytes(util::sanitize_utf8(text), k_html);
}

std::vector<Tick> time_ticks(double lo, double hi, int max_ticks) {
    static constexpr double h = 3600, d = 86400;
    const double fixed[] = {h, 2 * h, 3 * h, 6 * h, 12 * h, d, 2 * d, 7 * d, 14 * d};
    std::vector<double> at;
    double step = 0;
    for (double s : fixed) {
        // Weeks start on Mondays (1970-01-01 was a Thursday).
        at = tick_fixed_steps(lo, hi, s, s >= 7 * d ? 4 * d : 0);
        if (static_cast<int>(at.size()) <= max_ticks) {
            step = s;
            break;
        }
    }
    int months = 0;
    if (step == 0)
        for (int m : {1, 2, 3, 6, 12, 24, 60, 120, 240, 600}) {
            at = tick_month_steps(lo, hi, m);
            if (static_cast<int>(at.size()) <= max_ticks) {
                months = m;
                break;
            }
        }
    std::vector<Tick> out;
    util::CivilDate prev{0, 0, 0};
    for (double t : at) {
        const auto days = static_cast<std::int64_t>(std::floor(t / d));
        const auto date = util::civil_from_days(days);
        Tick k;
        k.value = t;
        const bool first = out.empty();
        if (step > 0 && step < d) {
            k.label = tick_hhmm(static_cast<util::UnixSeconds>(t));
            if (first || date != prev)
                k.sublabel = tick_day(date);
        } else if (step > 0) {
            k.label = tick_day(date);
            if (first || date.year != prev.year)
                k.sublabel = std::to_string(date.year);
        } else if (months < 12) {
            k.label = k_chart_months[date.month - 1];
            if (first || date.year != prev.year)
                k.sublabel = std::to_string(date.year);
        } else {
            k.label = std::to_string(date.year);
        }
        prev = date;
        out.push_back(std::move(k));
    }
    return out;
}

std::vector<Tick> value_ticks(double lo, double hi, int target) {
    if (!(hi > lo))
        hi = lo + 1;
    const double raw = (hi - lo) / std::max(1, target - 1);
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    const double norm = raw / mag;
    const double e = 1e-9; // (0.0129 - 0.0121) / 4 is 2.000000000000001e-4
    const double nice = norm <= 1 + e     ? 1
                        : norm <= 2 + e   ? 2
                        : norm <= 2.5 + e ? 2.5
                        : norm <= 5 + e   ? 5
                                          : 10;
    const double step = nice * mag;
    int decimals = std::max(0, static_cast<int>(-std::floor(std::log10(step) + 1e-9)));
    if (nice == 2.5 && decimals >= 0 && step < 10)
        ++decimals;
    // Large values in thousands, millions, ... ("4.25G" rather than "4250000000").
    const double top = std::max(std::fabs(lo), std::fabs(hi));
    double scale = 1;
    const char* suffix = "";
    for (auto [s, name] : {std::pair{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e5, "k"}})
        if (top >= s) {
            scale = s == 1e5 ? 1e3 : s;
            suffix = name;
            break;
        }
    if (scale > 1)
        decimals = std::max(0, static_cast<int>(-std::floor(std::log10(step / scale) + 1e-9)) +
                                   (nice == 2.5 ? 1 : 0));
    std::vector<Tick> out;
    const double first = std::floor(lo / step + 1e-9) * step;
    for (int i = 0; i < 40; ++i) {
        const double t = first + i * step;
        const double shown = std::fabs(t) < step * 1e-6 ? 0.0 : t / scale;
        out.push_back({t, util::format_fixed(shown, decimals) + (shown == 0 ? "" : suffix), {}});
        if (t >= hi - step * 1e-9)
            break;
    }
    return out;
}

std::string render_series_chart(const core::SeriesView& v, const ChartOptions& o) {
    const ChartLayout l = chart_layout(v, o);
    // Labels claim rows in this order: change points, then investigation marks, then the rest.
    std::vector<ChartMarkLabel> labels;
    std::string heads;
    const std::string changes = chart_change_marks(v, l, labels);
    const std::string marks = chart_narrowed_marks(v, l, o, labels, heads);
    const std::string env = chart_environment_marks(v, l, labels, heads);
    std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" viewBox=\"0 0 " +
                      svg_num(o.width) + " " + svg_num(o.height) + "\" role=\"img\"" +
                      svg_attr("aria-label", "chart of " + core::to_string(v.key)) +
                      svg_attr("data-axis", v.axis == core::AxisKind::time ? "time" : "order") +
                      svg_attr("data-x0", svg_num(l.x0)) + svg_attr("data-x1", svg_num(l.x1)) +
                      svg_attr("data-t0", util::format_fixed(l.d0, 3)) +
                      svg_attr("data-t1", util::format_fixed(l.d1, 3)) + ">";
    if (o.standalone)
        out += "<style>" + std::string(chart_style_css()) +
               "</style><rect class=\"page\" width=\"" + svg_num(o.width) + "\" height=\"" +
               svg_num(o.height) + "\"/><text class=\"title\" x=\"" + svg_num(l.x0) +
               "\" y=\"22\">" + escape_html(core::to_string(v.key)) + "</text>";
    out += "<rect class=\"plotbg\" x=\"" + svg_num(l.x0) + "\" y=\"" + svg_num(l.y0) +
           "\" width=\"" + svg_num(l.x1 - l.x0) + "\" height=\"" + svg_num(l.y1 - l.y0) + "\"/>";
    out += chart_axes(v, l);
    out += "<clipPath id=\"" + escape_html(o.id) + "-clip\"><rect x=\"" + svg_num(l.x0) +
           "\" y=\"" + svg_num(l.y0 - 10) + "\" width=\"" + svg_num(l.x1 - l.x0) + "\" height=\"" +
           svg_num(l.y1 - l.y0 + 10) + "\"/></clipPath>";
    out += "<g clip-path=\"url(#" + escape_html(o.id) + "-clip)\"><g class=\"zoom\">" + marks +
           env + changes + chart_level_path(v, l) + chart_point_paths(v, l) + "</g></g>";
    out += "<g class=\"heads\">" + heads + "</g>" + place_mark_labels(labels, l);
    out += "<line class=\"cross\" x1=\"0\" x2=\"0\" y1=\"" + svg_num(l.y0) + "\" y2=\"" +
           svg_num(l.y1) +
           "\" visibility=\"hidden\"/><path class=\"hl\" d=\"M0 0h0\" visibility=\"hidden\"/>";
    out += "<rect class=\"brush\" x=\"0\" y=\"" + svg_num(l.y0) + "\" width=\"0\" height=\"" +
           svg_num(l.y1 - l.y0) + "\" visibility=\"hidden\"/>";
    out += chart_legend(v, l) + "</svg>";
    return out;
}

std::string render_sparkline(const core::SeriesView& v, double width, double height) {
    ChartLayout l;
    l.x0 = 2;
    l.x1 = width - 2;
    l.y0 = 3;
    l.y1 = height - 3;
    double lo = INFINITY, hi = -INFINITY, vlo = INFINITY, vhi = -INFINITY;
    for (const auto& p : v.points) {
        lo = std::min(lo, p.x);
        hi = std::max(hi, p.x);
        if (p.ok) {
            vlo = std::min(vlo, p.value);
            vhi = std::max(vhi, p.value);
        }
    }
    std::string out = "<svg class=\"spark\" viewBox=\"0 0 " + svg_num(width) + " " +
                      svg_num(height) + "\" width=\"" + svg_num(width) + "\" height=\"" +
                      svg_num(height) + "\" aria-hidden=\"true\">";
    if (vlo > vhi)
        return out + "</svg>";
    if (hi == lo)
        lo -= 1, hi += 1;
    if (vhi == vlo)
        vlo -= 1, vhi += 1;
    l.d0 = lo;
    l.d1 = hi;
    l.v0 = vlo - (vhi - vlo) * 0.08;
    l.v1 = vhi + (vhi - vlo) * 0.08;
    // One pixel column keeps its smallest and largest value, in x order, and the path moves by
    // relative steps of rounded coordinates: a 2,000-point series draws at most 2 x 164 vertices
    // in about 2 kB, every spike kept.
    std::string d;
    double rx = 0, ry = 0; // the last vertex, rounded as written
    auto vertex = [&](double x, double y) {
        x = std::round(x * 10) / 10;
        y = std::round(y * 10) / 10;
        d += d.empty() ? "M" + svg_num(x) + " " + svg_num(y)
                       : "l" + svg_num(x - rx) + " " + svg_num(y - ry);
        rx = x;
        ry = y;
    };
    int column = -1;
    std::vector<std::pair<double, double>> bucket; // (x, value) of the current column
    auto flush = [&] {
        if (bucket.empty())
            return;
        auto [mn, mx] =
            std::minmax_element(bucket.begin(), bucket.end(),
                                [](const auto& a, const auto& b) { return a.second < b.second; });
        auto first = mn < mx ? mn : mx, second = mn < mx ? mx : mn;
        vertex(l.px(first->first), l.py(first->second));
        if (second != first)
            vertex(l.px(second->first), l.py(second->second));
        bucket.clear();
    };
    for (const auto& p : v.points) {
        if (!p.ok)
            continue;
        const int c = static_cast<int>(l.px(p.x));
        if (c != column)
            flush();
        column = c;
        bucket.emplace_back(p.x, p.value);
    }
    flush();
    for (const auto& n : v.narrowed)
        out += "<rect class=\"mk-nightly\" x=\"" +
               svg_num(std::min(l.px(n.good_x), l.px(n.bad_x))) + "\" y=\"0\" width=\"" +
               svg_num(std::max(1.5, std::fabs(l.px(n.bad_x) - l.px(n.good_x)))) + "\" height=\"" +
               svg_num(height) + "\"/>";
    out += "<path class=\"line\" d=\"" + d + "\"/>";
    std::string steps;
    for (std::size_t i = 0; i < v.levels.size(); ++i) {
        const auto& lv = v.levels[i];
        steps += "M" + svg_num(l.px(lv.x_from)) + " " + svg_num(l.py(lv.level)) + "H" +
                 svg_num(l.px(lv.x_to));
    }
    if (!steps.empty())
        out += "<path class=\"lvl\" d=\"" + steps + "\"/>";
    if (!v.changes.empty()) {
        const auto& c = v.changes.back();
        const double x = (l.px(c.at.x_before) + l.px(c.at.x_after)) / 2;
        out += "<path class=\"cp " + std::string(core::to_string(c.kind)) + "\" d=\"M" +
               svg_num(x) + " 0V" + svg_num(height) + "\"/>";
    }
    return out + "</svg>";
}

std::string chart_data_json(const core::SeriesView& v, const ChartOptions& o) {
    const ChartLayout l = chart_layout(v, o);
    util::JsonWriter w(false);
    w.begin_object();
    w.member("axis", v.axis == core::AxisKind::time ? "time" : "order");
    w.member("x0", l.x0).member("x1", l.x1).member("y0", l.y0).member("y1", l.y1);
    w.member("t0", l.d0).member("t1", l.d1).member("v0", l.v0).member("v1", l.v1);
    w.member("unit", v.detect.failure_rates ? std::string("failure rate") : v.unit);
    w.member("rates", v.detect.failure_rates);
    std::map<std::string, long> runners;
    std::vector<std::string> runner_table;
    auto array = [&](const char* key, auto&& get) {
        w.key(key).begin_array();
        for (const auto& p : v.points)
            get(p);
        w.end_array();
    };
    array("px", [&](const core::ViewPoint& p) { w.value(std::round(l.px(p.x) * 10) / 10); });
    array("l", [&](const core::ViewPoint& p) { w.value(p.label); });
    array("v", [&](const core::ViewPoint& p) { p.ok ? w.value(p.value) : w.null(); });
    array("lo", [&](const core::ViewPoint& p) { p.ok ? w.value(p.low) : w.null(); });
    array("hi", [&](const core::ViewPoint& p) { p.ok ? w.value(p.high) : w.null(); });
    array("n", [&](const core::ViewPoint& p) { w.value(p.repeats); });
    array("c", [&](const core::ViewPoint& p) { w.value(p.commits); });
    array("i", [&](const core::ViewPoint& p) { w.value(p.image); });
    array("r", [&](const core::ViewPoint& p) {
        auto [it, added] = runners.emplace(p.runner, static_cast<long>(runner_table.size()));
        if (added)
            runner_table.push_back(p.runner);
        w.value(it->second);
    });
    array("p", [&](const core::ViewPoint& p) { w.value(p.outlier ? "outlier" : p.problem); });
    w.key("rt").begin_array();
    for (const auto& r : runner_table)
        w.value(r);
    w.end_array();
    w.end_object();
    // Inside <script>: "<" never appears raw, so no text can close the element.
    return util::replace_all(w.text(), "<", "\\u003c");
}

} // namespace perfsweep::report
