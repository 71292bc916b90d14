#include "app/dashboard.hpp"

#include "report/dashboard_html.hpp"
#include "report/result_json.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <cmath>
#include <map>

namespace perfsweep::app {

namespace {

/// `text` with every character outside [A-Za-z0-9._-] replaced by '-', at most 100 characters.
std::string dashboard_file_word(std::string_view text) {
    std::string out;
    for (char c : text.substr(0, 100)) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                        (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
        out += ok ? c : '-';
    }
    return out.empty() || out.front() == '.' ? "x" + out : out;
}

/// detect over one series (the per-series call `detect` makes; exit-code series compare rates).
core::DetectResult dashboard_detect_series(const std::vector<core::Measurement>& series,
                                           const Threshold& threshold) {
    core::DetectOptions options;
    options.threshold = relative_threshold(threshold, series.front().direction);
    return core::is_exit_code_series(series) ? core::detect_failures(series, options)
                                             : core::detect(series, options);
}

} // namespace

DashboardRequest resolve_dashboard(const OptionValues& v) {
    DashboardRequest r;
    r.history = v.text("history");
    r.out_dir = v.text("output-dir");
    r.title = v.text("title");
    r.threshold = parse_threshold(v.text("threshold"));
    r.publish = v.text("publish");
    r.publish_dir = v.text("publish-dir");
    while (!r.publish_dir.empty() && r.publish_dir.back() == '/')
        r.publish_dir.pop_back();
    if (!r.publish_dir.empty() && r.publish.empty())
        throw_usage("--publish-dir '" + r.publish_dir + "': give --publish (the branch) too");
    return r;
}

core::Dashboard build_dashboard(std::vector<core::Measurement> records,
                                std::vector<core::KeptInvestigation> kept,
                                const Threshold& threshold) {
    // One rule with detect: core::group_series leaves the hourly and commit stages' evidence
    // out (a rebuilt state is no point of the series) and folds older names in.
    auto all = core::group_series(std::move(records));
    core::Dashboard d;
    d.investigations = std::move(kept);
    for (const auto& series : all)
        d.series.push_back(core::build_series_view(
            series.key, series.points, dashboard_detect_series(series.points, threshold),
            d.investigations));
    return d;
}

std::string keep_investigation(ports::HistoryStore& history, const core::Investigation& inv,
                               ports::Progress& progress) {
    const auto regressions =
        inv.regressions.empty() ? core::default_regressions(inv) : inv.regressions;
    if (regressions.empty())
        return "";
    const auto& r = regressions.front();
    const std::string name = dashboard_file_word(r.last_good) + "_" +
                             dashboard_file_word(r.first_bad) + "_" +
                             report::series_slug(core::investigation_series(inv));
    const std::string path = std::string(k_investigations_folder) + "/" + name + ".json";
    try {
        history.write_beside({{path, report::render_json(core::ResultDocument(inv))}});
    } catch (const Error& e) {
        progress.line("warning: the result was not kept beside the history (the dashboard will "
                      "not show it): " +
                      std::string(e.what()));
        return "";
    }
    progress.line("kept " + path + " beside " + history.describe() + " (for the dashboard)");
    return path;
}

std::vector<core::KeptInvestigation> read_investigations(ports::HistoryStore& history,
                                                         ResultDecoder decode,
                                                         std::vector<std::string>& warnings) {
    std::vector<core::KeptInvestigation> out;
    for (const auto& f : history.read_beside(k_investigations_folder)) {
        if (f.path.size() < 5 || f.path.compare(f.path.size() - 5, 5, ".json") != 0)
            continue;
        const std::string where = history.describe() + ": " + f.path;
        try {
            auto doc = decode(f.content, where);
            if (auto* inv = std::get_if<core::Investigation>(&doc)) {
                const auto slash = f.path.rfind('/');
                const std::string stem = f.path.substr(slash + 1, f.path.size() - slash - 6);
                out.push_back({dashboard_file_word(stem), std::move(*inv)});
            } else {
                warnings.push_back(where + ": not an investigation result; skipped");
            }
        } catch (const Error& e) {
            warnings.push_back(std::string(e.what()) + "; skipped");
        }
    }
    return out;
}

DashboardResult run_dashboard(const DashboardRequest& request, ports::Adapters& a,
                              ResultDecoder decode) {
    if (request.history.empty())
        throw_usage("dashboard: --history is required (a JSON Lines file or git:BRANCH)");
    DashboardResult res;
    auto history = a.histories.open(request.history);
    auto load = history->load();
    res.warnings = std::move(load.warnings);
    if (load.records.empty())
        res.warnings.push_back("history '" + history->describe() +
                               "' has no measurements (missing or empty): the dashboard is empty");
    auto kept = read_investigations(*history, decode, res.warnings);
    core::Dashboard d =
        build_dashboard(std::move(load.records), std::move(kept), request.threshold);
    d.title = request.title;
    d.history = history->describe();
    d.generated = util::format_iso8601(static_cast<util::UnixSeconds>(std::floor(a.clock.now())));
    res.series = d.series.size();
    res.investigations = d.investigations.size();
    for (const auto& v : d.series)
        res.regressions += v.detect.verdict == core::Verdict::regression;
    const auto files = report::render_dashboard(d);
    a.files.make_dirs(request.out_dir);
    for (const auto& f : files) {
        a.files.write_atomic(request.out_dir + "/" + f.path, f.content);
        res.bytes += f.content.size();
    }
    res.files = files.size();
    res.index_path = request.out_dir + "/index.html";
    if (!request.publish.empty()) {
        const std::string prefix = request.publish_dir.empty() ? "" : request.publish_dir + "/";
        std::vector<ports::SideFile> site{
            {".nojekyll", ""}}; // GitHub Pages serves the files as they are
        for (const auto& f : files)
            site.push_back({prefix + f.path, f.content});
        auto target = a.histories.open(request.publish);
        target->write_beside(site);
        res.published = target->describe() + (prefix.empty() ? "" : ":" + request.publish_dir);
    }
    return res;
}

} // namespace perfsweep::app
