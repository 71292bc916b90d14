#include "report/markdown.hpp"

#include "core/exit_code.hpp"
#include "core/stats.hpp"
#include "report/log_excerpt.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <sstream>

namespace perfsweep::report {
namespace {

constexpr std::size_t k_all = std::numeric_limits<std::size_t>::max();

std::string fmt_num(double v) {
    const double a = std::fabs(v);
    return util::format_fixed(v, a >= 100 ? 1 : a >= 1 ? 2 : 4);
}

std::string fmt_pct(double rel) {
    return util::format_fixed(std::fabs(rel) * 100.0, 1) + " %";
}

std::string short_sha(std::string_view sha) {
    return std::string(sha.substr(0, 7));
}

/// Only http(s) URLs, with characters that could break a markdown link percent-encoded.
std::string safe_url(std::string_view url) {
    if (url.rfind("https://", 0) != 0 && url.rfind("http://", 0) != 0)
        return "";
    std::string out;
    for (char c : url) {
        if (c == '(' || c == ')' || c == '<' || c == '>' || c == ' ' || c == '"' || c == '\'' ||
            c == '`' || c == '|' || static_cast<unsigned char>(c) < 0x20) {
            static const char* hex = "0123456789ABCDEF";
            out += '%';
            out += hex[(static_cast<unsigned char>(c) >> 4) & 15];
            out += hex[static_cast<unsigned char>(c) & 15];
        } else {
            out += c;
        }
    }
    return out;
}

/// "owner/name" from a GitHub-like URL, else the repo key.
std::string repo_display(const core::ReportInput& in, const std::string& repo) {
    auto it = in.repo_urls.find(repo);
    if (it != in.repo_urls.end()) {
        auto parts = util::split(it->second, '/');
        if (parts.size() >= 5 && !parts[3].empty() && !parts[4].empty())
            return parts[3] + "/" + parts[4];
    }
    return repo;
}

std::string link(std::string_view text_escaped, std::string_view url) {
    const std::string u = safe_url(url);
    if (u.empty())
        return std::string(text_escaped);
    return "[" + std::string(text_escaped) + "](" + u + ")";
}

std::string mermaid_label(std::string_view s) {
    std::string out;
    for (char c : s) {
        if (c == '"')
            out += '\'';
        else if (c == '\n' || c == '\r' || c == '\t')
            out += ' ';
        else if (c == '<' || c == '>' || c == '`' || c == '[' || c == ']' || c == '{' || c == '}' ||
                 c == '%' || c == ';' || c == '#')
            out += ' ';
        else
            out += c;
    }
    return out;
}

struct Shift {
    const core::ReportShift* s = nullptr;
    bool nightly = false;
};

/// The regression the report is about: the latest daily boundary, else the latest detect one.
Shift primary_regression(const core::ReportInput& in) {
    for (auto it = in.boundaries.rbegin(); it != in.boundaries.rend(); ++it)
        if (it->kind == "regression")
            return {&*it, true};
    for (auto it = in.change_points.rbegin(); it != in.change_points.rend(); ++it)
        if (it->kind == "regression")
            return {&*it, false};
    return {};
}

/// The attribution of the primary regression's daily boundary, if recorded.
const core::ReportAttribution* primary_attribution(const core::ReportInput& in) {
    const Shift p = primary_regression(in);
    if (!p.s || !p.nightly)
        return nullptr;
    for (const auto& a : in.attributions)
        if (a.last_good == p.s->last_before && a.first_bad == p.s->first_after)
            return &a;
    return nullptr;
}

std::string rate_pct(double rate) {
    return util::format_fixed(rate * 100.0, 0) + " %";
}

/// Exit-code mode: "3/10 (30 %)" failed runs of a sample of failure indicators.
std::string failed_runs_cell(const std::vector<double>& v) {
    if (v.empty())
        return "–";
    const auto p = core::count_pass_fail(v);
    return std::to_string(p.failed) + "/" + std::to_string(p.total()) + " (" + rate_pct(p.rate()) +
           ")";
}

std::string spread_cell(const core::ReportInput& in, const std::vector<double>& v) {
    if (v.size() < 2 || in.failure_rates)
        return "–";
    return fmt_num(core::summarize(v).stddev);
}

std::string value_cell(const core::ReportInput& in, const std::vector<double>& v) {
    if (in.failure_rates)
        return failed_runs_cell(v);
    if (v.empty())
        return "–";
    return fmt_num(core::median(v));
}

/// The value column's heading: the metric, or failed runs in exit-code mode.
std::string value_heading(const core::ReportInput& in) {
    if (in.failure_rates)
        return "failed runs";
    return in.metric.empty() ? "value" : escape_markdown(in.metric);
}

/// A point's charted value: the median, or the failure rate in % in exit-code mode.
double chart_value(const core::ReportInput& in, const std::vector<double>& v) {
    return in.failure_rates ? 100.0 * core::count_pass_fail(v).rate() : core::median(v);
}

/// "started failing (0/6 runs failed before, 3/3 after)" / "failure rate rose from 0 % (0/9) to
/// 33 % (4/12)"; from the levels alone when the run counts are not recorded.
std::string failure_phrase(const std::optional<core::PassFail>& before,
                           const std::optional<core::PassFail>& after, double old_rate,
                           double new_rate) {
    if (before && after)
        return core::describe_failure_change(*before, *after);
    if (old_rate == 0 && new_rate == 1)
        return "started failing";
    if (old_rate == 1 && new_rate == 0)
        return "stopped failing";
    return std::string("failure rate ") + (new_rate >= old_rate ? "rose" : "fell") + " from " +
           rate_pct(old_rate) + " to " + rate_pct(new_rate);
}

/// "### First failing run": each first bad build's failing log, fenced so it cannot escape.
std::string failure_logs_section(const core::ReportInput& in) {
    if (in.failure_logs.empty())
        return "";
    std::string out =
        in.failure_logs.size() == 1 ? "### First failing run\n\n" : "### First failing runs\n\n";
    for (const auto& l : in.failure_logs) {
        out += "**" + std::string(l.stage == "hourly" ? "Source state " : "Nightly ") +
               escape_markdown(l.point) + "**" +
               (l.status.empty() ? "" : " (" + escape_markdown(l.status) + ")") +
               ", last lines of `" + escape_markdown(l.log) + "`:\n\n";
        out += markdown_fence(l.excerpt.empty() ? "(empty log)\n" : l.excerpt) + "\n";
    }
    return out;
}

/// A markdown table; rows beyond `limit` are dropped with a note; long tables fold.
std::string table(const std::vector<std::string>& header,
                  const std::vector<std::vector<std::string>>& rows, const std::string& summary,
                  std::size_t limit, std::size_t fold_rows) {
    std::string t = "| " + util::join(header, " | ") + " |\n|";
    for (std::size_t i = 0; i < header.size(); ++i)
        t += " --- |";
    t += "\n";
    const std::size_t shown = std::min(limit, rows.size());
    for (std::size_t i = 0; i < shown; ++i)
        t += "| " + util::join(rows[i], " | ") + " |\n";
    if (shown < rows.size())
        t += "\n*" + std::to_string(rows.size() - shown) + " of " + std::to_string(rows.size()) +
             " rows not shown to keep the comment under GitHub's size limit.*\n";
    if (rows.size() > fold_rows)
        return "<details><summary>" + summary + " (" + std::to_string(rows.size()) +
               " rows)</summary>\n\n" + t + "\n</details>\n";
    return t;
}

std::string fence(std::string_view lang, const std::string& body) {
    std::size_t run = 0, best = 0;
    for (char c : body) {
        run = c == '`' ? run + 1 : 0;
        best = std::max(best, run);
    }
    const std::string f(std::max<std::size_t>(3, best + 1), '`');
    return f + std::string(lang) + "\n" + body + (body.empty() || body.back() == '\n' ? "" : "\n") +
           f + "\n";
}

std::string hour_label(const std::string& time) {
    // "2023-08-25T13:00:00Z" → "08-25 13:00"
    if (time.size() >= 16 && time[10] == 'T')
        return time.substr(5, 5) + " " + time.substr(11, 5);
    return time;
}

struct Limits {
    std::size_t rows = k_all;
    std::size_t candidates = k_all;
    bool charts = true;
    bool optional_sections = true;
};

std::string shift_table(const core::ReportInput& in, const std::vector<core::ReportShift>& shifts,
                        const std::string& title, const Limits& lim, std::size_t fold) {
    std::vector<std::vector<std::string>> rows;
    auto level = [&](double v, const std::optional<core::PassFail>& runs) {
        if (!in.failure_rates)
            return fmt_num(v);
        std::string s = rate_pct(v);
        if (runs)
            s += " (" + std::to_string(runs->failed) + "/" + std::to_string(runs->total()) + ")";
        return s;
    };
    for (const auto& s : shifts)
        rows.push_back({escape_markdown(s.last_before), escape_markdown(s.first_after),
                        level(s.old_value, s.runs_before), level(s.new_value, s.runs_after),
                        in.failure_rates
                            ? (s.relative_change >= 0 ? "+" : "-") +
                                  util::format_fixed(std::fabs(s.relative_change) * 100.0, 0) +
                                  " pt"
                            : (s.relative_change >= 0 ? "+" : "-") + fmt_pct(s.relative_change),
                        escape_markdown(s.kind)});
    return table({"last before", "first after", "old", "new", "change", "kind"}, rows, title,
                 lim.rows, fold);
}

/// "### Environment": the diff between the last good and first bad build and what it means.
std::string environment_section(const core::ReportInput& in, const Limits& lim, std::size_t fold) {
    const auto* a = primary_attribution(in);
    if (!a || a->diff.empty())
        return "";
    std::string out = "### Environment\n\n";
    out += "Between nightly " + escape_markdown(a->last_good) + " (last good) and " +
           escape_markdown(a->first_bad) + " (first bad): " + escape_markdown(a->summary) + ".\n\n";
    if (a->cause == "environment")
        out += "The hourly and commit stages were not run: no source commit can explain a "
               "change between builds of identical sources.\n\n";
    else if (a->cause == "both")
        out += "The hourly stage rebuilds the sources inside the last good nightly's image, so "
               "the sources are narrowed with the good build's environment held fixed.\n\n";
    else if (a->cause == "unknown")
        out += "The source commits of these builds are unknown (set --commits-probe), so the "
               "change is not attributed.\n\n";
    std::vector<std::vector<std::string>> rows;
    for (const auto& c : a->diff)
        rows.push_back({escape_markdown(c.name),
                        escape_markdown(c.before.empty() ? "(absent)" : c.before),
                        escape_markdown(c.after.empty() ? "(absent)" : c.after)});
    out += table({"component", "last good", "first bad"}, rows, "Environment diff", lim.rows, fold);
    return out + "\n";
}

std::string points_section(const core::ReportInput& in, const std::vector<core::ReportPoint>& pts,
                           const std::string& heading, const std::string& first_col,
                           const std::string& chart_title, const Limits& lim, std::size_t fold) {
    if (pts.empty())
        return "";
    std::string out = "### " + heading + "\n\n";
    if (lim.charts) {
        std::vector<std::string> labels;
        std::vector<double> values;
        for (const auto& p : pts)
            if (p.status == "ok" && !p.values.empty()) {
                labels.push_back(p.label);
                values.push_back(chart_value(in, p.values));
            }
        const std::string chart = xychart(in.failure_rates ? "failure rate per point" : chart_title,
                                          in.failure_rates  ? "failed runs (percent)"
                                          : in.unit.empty() ? in.metric
                                                            : in.unit,
                                          labels, values);
        if (!chart.empty()) {
            out += fence("mermaid", chart);
            if (labels.size() < pts.size())
                out += "\n*Points that are not ok are left out of the chart.*\n";
            out += "\n";
        }
    }
    std::vector<std::vector<std::string>> rows;
    for (const auto& p : pts)
        rows.push_back({escape_markdown(p.label), value_cell(in, p.values),
                        spread_cell(in, p.values), std::to_string(p.values.size()),
                        escape_markdown(p.status), escape_markdown(p.log)});
    out += table({first_col, value_heading(in), "± sd", "repeats", "status", "log"}, rows,
                 heading + " table", lim.rows, fold);
    return out + "\n";
}

std::string commits_cell(const core::ReportInput& in, const std::map<std::string, std::string>& c) {
    std::vector<std::string> parts;
    for (const auto& [repo, sha] : c) {
        auto url = in.repo_urls.find(repo);
        const std::string text =
            escape_markdown(repo) + "@`" + escape_markdown(short_sha(sha)) + "`";
        parts.push_back(url == in.repo_urls.end() ? text
                                                  : link(text, url->second + "/commit/" + sha));
    }
    return util::join(parts, " ");
}

std::string render(const core::ReportInput& in, const MarkdownOptions& opt, const Limits& lim) {
    std::string out = marker_for_key(opt.key) + "\n";
    const std::string measured = in.failure_rates ? "exit status" : in.metric;
    out += "## perfsweep: " +
           escape_markdown(in.benchmark.empty() ? measured : in.benchmark + " (" + measured + ")") +
           "\n\n";
    out += "**" + verdict_sentence(in) + "**\n\n";

    // The window always remains.
    if (in.window) {
        const auto& w = *in.window;
        out += "### Window\n\n";
        out += "Last good: " + escape_markdown(w.last_good.time) +
               " · first bad: " + escape_markdown(w.first_bad.time) + "\n\n";
        std::vector<std::string> repos;
        for (const auto& [r, s] : w.first_bad.commits)
            repos.push_back(r);
        for (const auto& [r, s] : w.last_good.commits)
            if (!w.first_bad.commits.count(r))
                repos.push_back(r);
        out += "| repo | last good | first bad | compare |\n| --- | --- | --- | --- |\n";
        for (const auto& r : repos) {
            const auto g = w.last_good.commits.count(r) ? w.last_good.commits.at(r) : "";
            const auto b = w.first_bad.commits.count(r) ? w.first_bad.commits.at(r) : "";
            std::string cmp = g == b ? "unchanged" : "";
            auto url = in.repo_urls.find(r);
            if (g != b && url != in.repo_urls.end() && !g.empty() && !b.empty())
                cmp = link("compare", url->second + "/compare/" + g + "..." + b);
            out += "| " + escape_markdown(repo_display(in, r)) + " | `" +
                   escape_markdown(short_sha(g)) + "` | `" + escape_markdown(short_sha(b)) +
                   "` | " + cmp + " |\n";
        }
        out += "\n";
    }
    out += environment_section(in, lim, opt.fold_rows);
    out += failure_logs_section(in);
    if (!in.candidates.empty()) {
        out += "### Candidate commits\n\n";
        for (const auto& [repo, list] : in.candidates) {
            std::string body;
            const std::size_t shown = std::min(lim.candidates, list.size());
            for (std::size_t i = 0; i < shown; ++i) {
                const auto& c = list[i];
                const bool is_culprit =
                    in.culprit && in.culprit->repo == repo && in.culprit->sha == c.sha;
                body += "- " + link("`" + escape_markdown(short_sha(c.sha)) + "`", c.url) + " " +
                        escape_markdown(c.time) + " " + escape_markdown(c.author) + ": " +
                        escape_markdown(c.subject) + (is_culprit ? " **← culprit**" : "") + "\n";
            }
            if (shown < list.size())
                body += "- *" + std::to_string(list.size() - shown) +
                        " more not shown to keep the comment under GitHub's size limit.*\n";
            const std::string title = escape_markdown(repo_display(in, repo)) + ": " +
                                      std::to_string(list.size()) + " commit" +
                                      (list.size() == 1 ? "" : "s");
            if (list.size() > opt.fold_rows)
                out += "<details><summary>" + title + "</summary>\n\n" + body + "\n</details>\n\n";
            else
                out += "**" + title + "**\n\n" + body + "\n";
        }
    }
    if (!in.boundaries.empty())
        out += "### Daily boundaries\n\n" +
               shift_table(in, in.boundaries, "Boundaries", lim, opt.fold_rows) + "\n";
    if (!in.change_points.empty())
        out += "### Change points\n\n" +
               shift_table(in, in.change_points, "Change points", lim, opt.fold_rows) + "\n";
    out += points_section(in, in.series, "Series", "label", in.metric + " per point", lim,
                          opt.fold_rows);
    out += points_section(in, in.daily_points, "Daily (nightly containers)", "nightly",
                          in.metric + " per nightly", lim, opt.fold_rows);
    if (!in.hourly_states.empty()) {
        out += "### Hourly (source states)\n\n";
        if (lim.charts) {
            std::vector<std::string> labels;
            std::vector<double> values;
            for (const auto& s : in.hourly_states)
                if (s.status == "ok" && !s.values.empty()) {
                    labels.push_back(hour_label(s.time));
                    values.push_back(chart_value(in, s.values));
                }
            const std::string chart = xychart(in.failure_rates ? "failure rate per source state"
                                                               : in.metric + " per source state",
                                              in.failure_rates  ? "failed runs (percent)"
                                              : in.unit.empty() ? in.metric
                                                                : in.unit,
                                              labels, values);
            if (!chart.empty())
                out += fence("mermaid", chart) + "\n";
        }
        std::vector<std::vector<std::string>> rows;
        for (const auto& s : in.hourly_states)
            rows.push_back({escape_markdown(s.time), commits_cell(in, s.commits),
                            s.changed ? "yes" : "no", value_cell(in, s.values),
                            spread_cell(in, s.values), std::to_string(s.values.size()),
                            escape_markdown(s.status), escape_markdown(s.log)});
        out += table({"time", "commits", "changed", value_heading(in), "± sd", "repeats", "status",
                      "log"},
                     rows, "Hourly table", lim.rows, opt.fold_rows) +
               "\n";
    }
    if (!in.skipped.empty()) {
        std::vector<std::vector<std::string>> rows;
        for (const auto& p : in.skipped)
            rows.push_back({escape_markdown(p.label), escape_markdown(p.status),
                            escape_markdown(p.reason), escape_markdown(p.log)});
        out += "### Skipped or broken points\n\n" +
               table({"point", "status", "reason", "log"}, rows, "Skipped points", lim.rows,
                     opt.fold_rows) +
               "\n";
    }
    if (lim.optional_sections) {
        if (!in.runner.empty()) {
            std::vector<std::vector<std::string>> rows;
            for (const auto& [k, v] : in.runner)
                rows.push_back({escape_markdown(k), escape_markdown(v)});
            out += "### Runner\n\n" +
                   table({"key", "value"}, rows, "Runner", lim.rows, opt.fold_rows) + "\n";
        }
        const auto& b = in.budget;
        if (b.runs || b.builds || b.seconds) {
            std::vector<std::string> parts;
            if (b.runs)
                parts.push_back("runs: " + std::to_string(*b.runs));
            if (b.builds)
                parts.push_back("builds: " + std::to_string(*b.builds));
            if (b.seconds)
                parts.push_back("time: " + util::format_duration(*b.seconds));
            out += "### Budget used\n\n" + util::join(parts, " · ") + "\n\n";
        }
        if (!in.reproduce.empty()) {
            std::string cmds;
            for (const auto& c : in.reproduce)
                cmds += util::replace_all(util::replace_all(c, "\r", ""), "\n", " ") + "\n";
            out += "### Reproduce\n\n" + fence("sh", cmds) + "\n";
        }
    }
    out += "<sub>Generated by perfsweep.</sub>\n";
    return out;
}

} // namespace

std::string marker_for_key(std::string_view key) {
    if (key.empty() || key.size() > 100)
        throw_usage("--key '" + std::string(key) + "': expected 1 to 100 characters");
    for (char c : key)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '/' ||
              c == ':' || c == '-'))
            throw_usage(
                "--key '" + std::string(key) +
                "': expected only letters, digits and . _ / : - (it goes into an HTML comment)");
    if (key.find("--") != std::string_view::npos)
        throw_usage("--key '" + std::string(key) +
                    "': may not contain '--' (it would end the HTML comment)");
    return "<!-- perfsweep:" + std::string(key) + " -->";
}

std::string escape_markdown(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        switch (c) {
        case '\r':
            if (i + 1 < text.size() && text[i + 1] == '\n')
                break;
            out += ' ';
            break;
        case '\n':
        case '\t':
            out += ' ';
            break;
        case '|':
        case '\\':
        case '`':
        case '*':
        case '_':
        case '[':
        case ']':
        case '~':
            out += '\\';
            out += c;
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '&':
            out += "&amp;";
            break;
        case '@':
            out += "&#64;";
            break;
        default:
            if (static_cast<unsigned char>(c) < 0x20)
                out += ' ';
            else
                out += c;
        }
    }
    return out;
}

std::string verdict_sentence(const core::ReportInput& in) {
    const std::string metric = escape_markdown(in.metric);
    std::string s;
    const Shift p = primary_regression(in);
    double old_v = 0, new_v = 0;
    bool have = false;
    std::string where;
    if (p.s) {
        old_v = p.s->old_value;
        new_v = p.s->new_value;
        have = true;
        where = std::string(" between ") + (p.nightly ? "nightly " : "") +
                escape_markdown(p.s->last_before) + " and " + escape_markdown(p.s->first_after);
    }
    std::optional<core::PassFail> runs_before, runs_after;
    if (p.s) {
        runs_before = p.s->runs_before;
        runs_after = p.s->runs_after;
    }
    if (in.window) {
        const auto& w = *in.window;
        if (!have && in.failure_rates && w.good_runs && w.bad_runs) {
            runs_before = w.good_runs;
            runs_after = w.bad_runs;
            old_v = w.good_runs->rate();
            new_v = w.bad_runs->rate();
            have = true;
        }
        if (!have && !w.last_good.values.empty() && !w.first_bad.values.empty()) {
            old_v = core::median(w.last_good.values);
            new_v = core::median(w.first_bad.values);
            have = true;
        }
        const std::string hours =
            escape_markdown(w.last_good.time) + " and " + escape_markdown(w.first_bad.time);
        where = where.empty() ? " between " + hours : where + " (sources between " + hours + ")";
    }
    const std::string what = in.failure_rates ? "the failure rate" : metric;
    if (!have) {
        if (!in.change_points.empty() || !in.boundaries.empty())
            return "No regression of " + what + " found (only improvements).";
        return "No regression of " + what + " found.";
    }
    if (in.failure_rates) { // exit-code mode: "TEST started failing (0/6 runs failed before, ...)"
        s = escape_markdown(in.benchmark.empty() ? "the test" : in.benchmark) + " " +
            failure_phrase(runs_before, runs_after, old_v, new_v) + where;
    } else {
        const double rel = old_v != 0 ? (new_v - old_v) / std::fabs(old_v) : 0;
        s = metric + (new_v < old_v ? " fell " : " rose ") + fmt_pct(rel) + " (" + fmt_num(old_v) +
            " → " + fmt_num(new_v) + ")" + where;
    }
    if (const auto* a = primary_attribution(in);
        a && (a->cause == "environment" || a->cause == "both" ||
              (a->cause == "unknown" && !a->components.empty())))
        s += "; " + escape_markdown(a->summary);
    if (in.culprit) {
        const auto& c = *in.culprit;
        s += "; culprit: " + escape_markdown(repo_display(in, c.repo)) + "@" +
             escape_markdown(short_sha(c.sha)) + "…";
        if (!c.subject.empty())
            s += " '" + escape_markdown(c.subject) + "'";
    } else if (in.window) {
        std::size_t n = 0;
        for (const auto& [r, l] : in.candidates)
            n += l.size();
        s += "; culprit not isolated: " + std::to_string(n) + " candidate commit" +
             (n == 1 ? "" : "s") + " in the window";
    }
    return s + ".";
}

std::string xychart(std::string_view title, std::string_view y_label,
                    const std::vector<std::string>& labels, const std::vector<double>& values) {
    if (labels.size() < 2 || labels.size() != values.size())
        return "";
    double lo = *std::min_element(values.begin(), values.end());
    double hi = *std::max_element(values.begin(), values.end());
    double pad = (hi - lo) * 0.1;
    if (pad <= 0)
        pad = std::max(std::fabs(hi) * 0.01, 1e-6);
    lo -= pad;
    hi += pad;
    std::string out = "xychart-beta\n";
    out += "    title \"" + mermaid_label(title) + "\"\n";
    out += "    x-axis [";
    for (std::size_t i = 0; i < labels.size(); ++i)
        out += (i ? ", \"" : "\"") + mermaid_label(labels[i]) + "\"";
    out += "]\n";
    out += "    y-axis \"" + mermaid_label(y_label) + "\" " + fmt_num(lo) + " --> " + fmt_num(hi) +
           "\n";
    out += "    line [";
    for (std::size_t i = 0; i < values.size(); ++i)
        out += (i ? ", " : "") + fmt_num(values[i]);
    out += "]\n";
    return out;
}

std::string render_markdown(const core::ReportInput& in, const MarkdownOptions& opt) {
    Limits lim;
    std::string out = render(in, opt, lim);
    for (std::size_t rows : {200u, 100u, 50u, 20u, 10u, 5u, 0u}) {
        if (out.size() <= opt.max_chars)
            return out;
        lim.rows = rows;
        out = render(in, opt, lim);
    }
    if (out.size() <= opt.max_chars)
        return out;
    lim.charts = false;
    out = render(in, opt, lim);
    if (out.size() <= opt.max_chars)
        return out;
    lim.optional_sections = false;
    for (std::size_t c : {100u, 50u, 20u, 10u, 5u, 0u}) {
        lim.candidates = c;
        out = render(in, opt, lim);
        if (out.size() <= opt.max_chars)
            return out;
    }
    // Only the marker, verdict and window are left; cut at a line boundary as a last resort.
    const std::string note = "\n*Report cut to fit GitHub's size limit.*\n";
    std::size_t cut =
        out.rfind('\n', opt.max_chars > note.size() ? opt.max_chars - note.size() : 0);
    return out.substr(0, cut == std::string::npos ? 0 : cut) + note;
}

} // namespace perfsweep::report
