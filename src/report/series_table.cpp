#include "report/series_table.hpp"

#include "core/commit_text.hpp"
#include "report/detect_text.hpp"
#include "report/markdown.hpp"
#include "report/text_table.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <map>

namespace perfsweep::report {

namespace {

// Regressions first, then inconclusive, improvements, the rest; series order within each.
std::vector<const core::SeriesDetect*>
series_by_concern(const std::vector<core::SeriesDetect>& series) {
    std::vector<const core::SeriesDetect*> out;
    for (auto v : {core::Verdict::regression, core::Verdict::inconclusive,
                   core::Verdict::improvement, core::Verdict::no_regression})
        for (const auto& s : series)
            if (s.result.verdict == v)
                out.push_back(&s);
    return out;
}

std::string series_verdict_word(core::Verdict v) {
    return std::string(core::to_string(v));
}

std::string verdict_counts(const std::vector<core::SeriesDetect>& series) {
    std::vector<std::string> parts;
    for (auto v : {core::Verdict::regression, core::Verdict::improvement,
                   core::Verdict::inconclusive, core::Verdict::no_regression}) {
        const auto n = std::count_if(series.begin(), series.end(),
                                     [&](const auto& s) { return s.result.verdict == v; });
        if (n > 0)
            parts.push_back(std::to_string(n) + " " + series_verdict_word(v));
    }
    return util::join(parts, ", ");
}

} // namespace

std::string latest_level_text(const core::DetectResult& r) {
    if (r.segments.empty())
        return "—";
    const double v = r.segments.back().level;
    return r.failure_rates ? util::format_fixed(100 * v, 1) + "%" : level_number(v);
}

std::string change_text(const core::DetectResult& r) {
    if (r.reference.points == 0)
        return "—";
    if (r.failure_rates)
        return (r.present_change >= 0 ? "+" : "") + util::format_fixed(100 * r.present_change, 1) +
               " pt";
    return signed_percent(r.present_change);
}

std::string render_series_text(const std::vector<core::SeriesDetect>& series) {
    std::string out = std::to_string(series.size()) + " series: " + verdict_counts(series) +
                      " (worst: " + series_verdict_word(core::worst_verdict(series)) + ")\n\n";
    TextTable t;
    t.header = {"series", "points", "latest level", "change", "verdict"};
    t.right_align = {false, true, true, true, false};
    for (const auto& s : series)
        t.rows.push_back({core::to_string(s.key), std::to_string(s.result.points),
                          latest_level_text(s.result), change_text(s.result),
                          series_verdict_word(s.result.verdict)});
    out += render_text(t);
    std::string details;
    for (const auto* s : series_by_concern(series)) {
        if (s->result.verdict == core::Verdict::no_regression && s->notes.empty())
            continue;
        details += "  " + core::to_string(s->key) + ": " + s->result.reason + "\n";
        for (const auto& n : s->notes)
            details += "    note: " + n + "\n";
    }
    if (!details.empty())
        out += "\n" + details;
    return out;
}

std::string render_series_markdown(const std::vector<core::SeriesDetect>& series) {
    const core::Verdict worst = core::worst_verdict(series);
    std::string out = "### perfsweep: " + std::to_string(series.size()) + " series, " +
                      escape_markdown(verdict_counts(series)) + "\n\n";
    if (worst == core::Verdict::regression)
        out += "**Regression** in at least one series (listed first).\n\n";
    out +=
        "| series | points | latest level | change | verdict |\n| --- | ---: | ---: | ---: | --- "
        "|\n";
    for (const auto* s : series_by_concern(series)) {
        const std::string v = series_verdict_word(s->result.verdict);
        out += "| " + escape_markdown(core::to_string(s->key)) + " | " +
               std::to_string(s->result.points) + " | " + latest_level_text(s->result) + " | " +
               change_text(s->result) + " | " +
               (s->result.verdict == core::Verdict::regression ? "**" + v + "**" : v) + " |\n";
    }
    std::string details;
    for (const auto* s : series_by_concern(series)) {
        if (s->result.verdict == core::Verdict::no_regression && s->notes.empty())
            continue;
        details += "- " + escape_markdown(core::to_string(s->key)) + ": " +
                   escape_markdown(s->result.reason) + "\n";
        for (const auto& n : s->notes)
            details += "  - " + escape_markdown(n) + "\n";
    }
    if (!details.empty())
        out += "\n" + details;
    return out;
}

std::string render_investigation_series(const core::Investigation& inv) {
    if (inv.series.empty())
        return {};
    std::map<std::string, std::vector<std::string>> windows, culprits; // series → cells
    for (const auto& r : inv.regressions) {
        if (r.series.empty())
            continue;
        windows[r.series].push_back(r.last_good + " → " + r.first_bad);
        if (!r.hourly || *r.hourly >= inv.hourly.size())
            continue;
        const auto& h = inv.hourly[*r.hourly];
        if (h.culprit)
            culprits[r.series].push_back(h.culprit->repo + "@" +
                                         h.culprit->commit.sha.substr(0, 12));
        else if (h.last_good && h.first_bad)
            culprits[r.series].push_back(core::format_commits(h.last_good->commits) + " → " +
                                         core::format_commits(h.first_bad->commits));
    }
    auto cell = [](const std::vector<std::string>& parts) {
        return parts.empty() ? std::string("—") : escape_markdown(util::join(parts, "; "));
    };
    std::string out = "### Series\n\n" + escape_markdown(verdict_counts(inv.series)) +
                      "\n\n| series | points | latest level | change | verdict | window | culprit "
                      "|\n| --- | ---: | ---: | ---: | --- | --- | --- |\n";
    for (const auto* s : series_by_concern(inv.series)) {
        const std::string name = core::to_string(s->key);
        const std::string v = series_verdict_word(s->result.verdict);
        out += "| " + escape_markdown(name) + " | " + std::to_string(s->result.points) + " | " +
               latest_level_text(s->result) + " | " + change_text(s->result) + " | " +
               (s->result.verdict == core::Verdict::regression ? "**" + v + "**" : v) + " | " +
               cell(windows[name]) + " | " + cell(culprits[name]) + " |\n";
    }
    return out + "\n";
}

} // namespace perfsweep::report
