#pragma once
// The dashboard site (pure): an index of every series (small chart, latest level, change,
// verdict; sortable and filterable), a page per series (its chart with hover and zoom, its
// investigations, change points, environment changes, broken points), a page per kept
// investigation, and the shared style sheet and script. Self-contained: no file or request
// outside the site; a Content-Security-Policy in every page forbids any.

#include "core/series_view.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace perfsweep::report {

/// One file of the site: its path relative to the site's root, and its content.
struct SiteFile {
    std::string path;
    std::string content;
};

/// A file name for series `key`: its words in lower case joined by '-', at most 48 characters,
/// then 8 hex digits of a hash of the whole key (distinct keys never share a name).
std::string series_slug(const core::SeriesKey& key);

/// The page of series `key` relative to the site's root: "series/SLUG.html".
std::string series_page(const core::SeriesKey& key);

/// The chart of series `key` as an image file of its own (for comments): "series/SLUG.svg".
std::string series_image(const core::SeriesKey& key);

/// Every file of the dashboard of `d`: index.html, assets/dashboard.css, assets/dashboard.js,
/// series/SLUG.html for each series, series/SLUG.svg for each series whose verdict is a
/// regression or that has a narrowed regression, and investigations/ID.{html,json,md} for each
/// kept investigation.
std::vector<SiteFile> render_dashboard(const core::Dashboard& d);

/// The index page alone.
std::string render_index(const core::Dashboard& d);

/// The page of series `i` of `d`.
std::string render_series_page(const core::Dashboard& d, std::size_t i);

/// The page of kept investigation `i` of `d`: its verdict, windows, culprit, the sweeps' points
/// and the markdown report.
std::string render_investigation_page(const core::Dashboard& d, std::size_t i);

/// The chart styles alone (the standalone SVG images embed them).
std::string_view chart_style_css();

/// The site's style sheet (chart styles and page layout, light and dark).
std::string dashboard_css();

/// The site's script: sorting and filtering on the index, hover and zoom on a chart.
std::string_view dashboard_js();

} // namespace perfsweep::report
