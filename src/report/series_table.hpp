#pragma once
// Many series at once (pure): the table `detect` prints when a history holds several series
// (series, points, latest level, change, verdict), as text and markdown (job summary, PR
// comment). The JSON document is report/result_json's render_series_json.

#include "core/report_model.hpp"
#include "core/series.hpp"

#include <string>
#include <vector>

namespace perfsweep::report {

/// One row a series: its name, points, latest level, change of the present against the
/// reference level, verdict; then the notes and the reason of every series that is not
/// no_regression.
std::string render_series_text(const std::vector<core::SeriesDetect>& series);

/// The same table in markdown, regressions first, with a heading naming the worst verdict;
/// untrusted text is escaped.
std::string render_series_markdown(const std::vector<core::SeriesDetect>& series);

/// The table an investigation of several series leads with (inv.series): each series' row as
/// above and, for the narrowed ones, the window of nightlies and the culprit (else the window of
/// commits) of the hourly stage; regressions first. "" for an investigation of one series.
std::string render_investigation_series(const core::Investigation& inv);

/// The latest level of `r` as text ("—" when there is none).
std::string latest_level_text(const core::DetectResult& r);

/// The change of `r`'s present level against its reference, as text ("—" when there is none).
std::string change_text(const core::DetectResult& r);

} // namespace perfsweep::report
