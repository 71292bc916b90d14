#include "app/report.hpp"

#include "app/options.hpp"
#include "report/markdown.hpp"
#include "report/result_json.hpp"
#include "report/series_table.hpp"
#include "util/error.hpp"

#include <algorithm>
#include <map>
#include <optional>

namespace perfsweep::app {

std::string make_report(const ReportRequest& req, const core::ResultDocument& doc,
                        ports::Files& files) {
    if (req.format != "markdown" && req.format != "json")
        throw_usage("--format '" + req.format + "': expected markdown or json");
    std::string out;
    if (req.format == "json") {
        out = report::render_json(doc);
    } else {
        report::MarkdownOptions opt;
        opt.key = req.key;
        out = report::render_markdown(doc, opt);
    }
    if (!req.output.empty())
        files.write_atomic(req.output, out);
    return out;
}

std::string make_series_report(const ReportRequest& req,
                               const std::vector<core::SeriesDetect>& series, ports::Files& files) {
    if (req.format != "markdown" && req.format != "json")
        throw_usage("--format '" + req.format + "': expected markdown or json");
    const std::string out = req.format == "json" ? report::render_series_json(series)
                                                 : report::marker_for_key(req.key) + "\n" +
                                                       report::render_series_markdown(series);
    if (!req.output.empty())
        files.write_atomic(req.output, out);
    return out;
}

core::DailyWindow daily_window_of(const core::ResultDocument& doc, const std::string& path) {
    if (const auto* d = std::get_if<core::DailyResult>(&doc))
        return core::regression_window(*d, path);
    if (const auto* inv = std::get_if<core::Investigation>(&doc); inv && !inv->daily.empty()) {
        if (inv->regressions.empty())
            return core::regression_window(inv->daily.front(), path);
        const auto& n = inv->regressions.front();
        const auto& d = inv->daily.at(n.daily);
        return core::regression_window(d, path, core::find_boundary(d, n.last_good, n.first_bad));
    }
    throw_usage(path +
                ": expected a daily result (`perfsweep daily --json`) or an investigation "
                "with one, found a " +
                std::string(core::to_string(core::kind_of(doc))) + " result");
}

std::pair<util::Time, util::Time> hourly_window_of(const core::ResultDocument& doc,
                                                   const std::string& path) {
    const auto w = daily_window_of(doc, path);
    auto newest = [&](const std::map<std::string, std::string>& times, const char* key) {
        std::optional<util::Time> best;
        for (const auto& [name, t] : times) {
            const auto v = parse_time_text(t, "--from-result " + path + " " + key + "." + name);
            best = best ? std::max(*best, v) : v;
        }
        return *best;
    };
    return {newest(w.good_times, "last_before_commit_times"),
            newest(w.bad_times, "first_after_commit_times")};
}

} // namespace perfsweep::app
