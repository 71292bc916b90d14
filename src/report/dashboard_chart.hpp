#pragma once
// SVG charts of the dashboard (pure): a series' chart (points with the spread of their repeats,
// detect's levels and change points, investigation marks, broken points, environment changes,
// axes and a legend) and the index's small chart. Drawn here, on the server side: the pages need
// no script to show them (dashboard.js only adds hover and zoom).

#include "core/series_view.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace perfsweep::report {

/// A metric value with the precision its size needs, thousands grouped from 10,000 on
/// ("1,599,882,582", "4,535.2", "525.94", "0.1234").
std::string value_text(double v);

/// `text` safe inside HTML/SVG text and double-quoted attributes (& < > " ' escaped; invalid
/// UTF-8 replaced).
std::string escape_html(std::string_view text);

/// A tick of an axis: its value and its label (`sublabel`: a second line, e.g. the year).
struct Tick {
    double value = 0;
    std::string label;
    std::string sublabel;
};

/// Ticks of a UTC time axis over [lo, hi] seconds, at most `max_ticks`, at round times (hours,
/// days, Mondays, month or year starts), labelled "14:00" / "Aug 23" / "Aug" / "2023" with the
/// day or year as sublabel where it changes.
std::vector<Tick> time_ticks(double lo, double hi, int max_ticks);

/// Round ticks of a value axis covering [lo, hi] (about `target` of them; the first and last
/// enclose the range), labelled with the decimals their step needs.
std::vector<Tick> value_ticks(double lo, double hi, int target);

/// How a series chart is drawn.
struct ChartOptions {
    double width = 960;      ///< viewBox width
    double height = 420;     ///< viewBox height (legend included)
    bool standalone = false; ///< a file of its own (an image in a comment): title and style inside
    std::string id = "c";    ///< prefix of the ids inside (clip path), unique in the page
    /// Href of investigation `i`'s report from the page (marks link to it); none when empty.
    std::vector<std::string> report_links;
};

/// The chart of one series as an <svg> element. Every mark carries its labels and x in data-*
/// attributes (tests/browser checks them against the result JSON); the root carries the x scale
/// (data-x0, data-x1: plot pixels; data-t0, data-t1: the x values there).
std::string render_series_chart(const core::SeriesView& v, const ChartOptions& o = {});

/// The index's small chart (an <svg> of `width` x `height`): at most about `width` points drawn
/// (the smallest and largest of each pixel column), the fitted levels and the latest change.
std::string render_sparkline(const core::SeriesView& v, double width = 168, double height = 40);

/// The chart data dashboard.js hovers over, as a JSON object: pixel x of each point and its
/// label, value, repeats' range, commits, image, runner and problem.
std::string chart_data_json(const core::SeriesView& v, const ChartOptions& o = {});

} // namespace perfsweep::report
