#include "report/markdown.hpp"

#include "core/commit_text.hpp"
#include "core/environment.hpp"
#include "core/exit_code.hpp"
#include "core/narrow.hpp"
#include "core/range_verdict.hpp"
#include "core/series_view.hpp"
#include "core/stats.hpp"
#include "report/dashboard_html.hpp"
#include "report/log_excerpt.hpp"
#include "report/series_table.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <sstream>
#include <type_traits>
#include <variant>

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

/// A regression the report is about: a daily boundary (with the hourly result that narrowed it,
/// when any), a window of an hourly result alone, or a change point of detect.
struct Finding {
    const core::DailyResult* daily = nullptr;
    const core::Boundary* boundary = nullptr;
    const core::HourlyResult* hourly = nullptr;
    const core::ChangePoint* change_point = nullptr;
};

/// Whatever kind of document, the parts a report draws.
struct View {
    core::ResultKind kind = core::ResultKind::investigate;
    const core::DetectResult* detect = nullptr;
    std::vector<const core::DailyResult*> daily;
    std::vector<const core::HourlyResult*> hourly;
    const core::Investigation* inv = nullptr;
    std::vector<Finding> findings; ///< latest first; the first is the verdict's
    std::string benchmark;
    std::string metric;
    std::string unit;
    bool failure_rates = false;
    std::map<std::string, std::string> repo_urls; ///< repo → web URL (links)
};

bool has_window(const core::HourlyResult& h) {
    return h.last_good && h.first_bad;
}

const core::ChangePoint* latest_change_point(const core::DetectResult& d) {
    return core::latest_regression_of(d.change_points);
}

View make_view(const core::ResultDocument& doc) {
    View v;
    v.kind = core::kind_of(doc);
    std::visit(
        [&](const auto& r) {
            using T = std::decay_t<decltype(r)>;
            if constexpr (std::is_same_v<T, core::DetectResult>) {
                v.detect = &r;
            } else if constexpr (std::is_same_v<T, core::DailyResult>) {
                v.daily.push_back(&r);
                if (const auto* b = core::latest_regression(r))
                    v.findings.push_back({&r, b, nullptr, nullptr});
            } else if constexpr (std::is_same_v<T, core::HourlyResult>) {
                v.hourly.push_back(&r);
                if (has_window(r))
                    v.findings.push_back({nullptr, nullptr, &r, nullptr});
            } else {
                v.inv = &r;
                v.detect = &r.detect;
                for (const auto& d : r.daily)
                    v.daily.push_back(&d);
                for (const auto& h : r.hourly)
                    v.hourly.push_back(&h);
                for (const auto& n : r.regressions) {
                    if (n.daily >= r.daily.size())
                        continue;
                    Finding f;
                    f.daily = &r.daily[n.daily];
                    f.boundary = core::find_boundary(*f.daily, n.last_good, n.first_bad);
                    if (n.hourly && *n.hourly < r.hourly.size())
                        f.hourly = &r.hourly[*n.hourly];
                    if (f.boundary)
                        v.findings.push_back(f);
                }
                v.repo_urls = r.repo_urls;
            }
        },
        doc);
    if (v.findings.empty() && v.detect && v.kind != core::ResultKind::investigate)
        if (const auto* cp = latest_change_point(*v.detect))
            v.findings.push_back({nullptr, nullptr, nullptr, cp});
    if (v.findings.empty() && v.inv && v.inv->verdict == core::Verdict::regression)
        if (const auto* cp = latest_change_point(*v.detect))
            v.findings.push_back({nullptr, nullptr, nullptr, cp});
    // The metric and unit of the most narrowed stage; the benchmark of the sweep or history.
    auto first = [](std::initializer_list<std::string> xs) {
        for (const auto& x : xs)
            if (!x.empty())
                return x;
        return std::string();
    };
    for (const auto* h : v.hourly) {
        v.metric = first({v.metric, h->metric});
        v.unit = first({v.unit, h->unit});
        v.failure_rates = v.failure_rates || h->failure_rates;
    }
    for (const auto* d : v.daily) {
        v.metric = first({v.metric, d->metric});
        v.unit = first({v.unit, d->unit});
        v.benchmark = first({v.benchmark, d->benchmark});
        v.failure_rates = v.failure_rates || core::is_exit_code(*d);
    }
    if (v.detect) {
        v.metric = first({v.metric, v.detect->metric});
        v.unit = first({v.unit, v.detect->unit});
        v.benchmark = first({v.benchmark, v.detect->benchmark});
        v.failure_rates = v.failure_rates || v.detect->failure_rates;
    }
    if (v.metric.empty())
        v.metric = "value";
    // Compare URLs (https://github.com/O/R/compare/A...B) give the repo's web address.
    for (const auto* h : v.hourly)
        for (const auto& [repo, url] : h->compare_urls)
            if (const auto cut = url.find("/compare/"); cut != std::string::npos)
                v.repo_urls.emplace(repo, url.substr(0, cut));
    return v;
}

std::string label_of(const core::DailyResult& d, std::size_t i) {
    return i < d.sweep.points.size() ? d.sweep.points[i].label : std::string();
}

/// "owner/name" from a GitHub-like URL, else the repo key.
std::string repo_display(const View& v, const std::string& repo) {
    auto it = v.repo_urls.find(repo);
    if (it != v.repo_urls.end()) {
        auto parts = util::split(it->second, '/');
        if (parts.size() >= 5 && !parts[3].empty() && !parts[4].empty())
            return parts[3] + "/" + parts[4];
    }
    return repo;
}

std::string commit_url(const View& v, const std::string& repo, const std::string& sha) {
    auto it = v.repo_urls.find(repo);
    return it == v.repo_urls.end() || sha.empty() ? std::string() : it->second + "/commit/" + sha;
}

std::string spread_cell(const View& v, const std::vector<double>& x) {
    if (x.size() < 2 || v.failure_rates)
        return "–";
    return fmt_num(core::summarize(x).stddev);
}

std::string value_cell(const View& v, const std::vector<double>& x) {
    if (v.failure_rates)
        return failed_runs_cell(x);
    if (x.empty())
        return "–";
    return fmt_num(core::median(x));
}

/// The value column's heading: the metric, or failed runs in exit-code mode.
std::string value_heading(const View& v) {
    if (v.failure_rates)
        return "failed runs";
    return escape_markdown(v.metric);
}

/// A point's charted value: the median, or the failure rate in % in exit-code mode.
double chart_value(const View& v, const std::vector<double>& x) {
    return v.failure_rates ? 100.0 * core::count_pass_fail(x).rate() : core::median(x);
}

std::string chart_unit(const View& v) {
    return v.failure_rates ? "failed runs (percent)" : v.unit.empty() ? v.metric : v.unit;
}

/// The measured values of the source state at a window end (from the states, else the commit
/// steps).
const std::vector<double>* end_values(const core::HourlyResult& h, const core::WindowEnd& e) {
    for (const auto* list : {&h.states, &h.commit_steps})
        for (const auto& s : *list)
            if (s.time == e.time && s.commits == e.commits && !s.values.empty())
                return &s.values;
    return nullptr;
}

/// What explains a finding's daily boundary, when it has one.
std::optional<core::Attribution> attribution_of(const Finding& f) {
    if (!f.daily || !f.boundary)
        return std::nullopt;
    return core::attribute_boundary(*f.daily, *f.boundary);
}

std::size_t candidate_count(const core::HourlyResult& h) {
    std::size_t n = 0;
    for (const auto& [r, l] : h.candidates)
        n += l.size();
    return n;
}

std::string hourly_outcome_words(const core::HourlyResult& h) {
    switch (h.conclusion) {
    case core::HourlyConclusion::no_change:
        return "the hourly stage found no change";
    case core::HourlyConclusion::planned:
        return "the hourly stage was only planned";
    default:
        return "the hourly stage was inconclusive";
    }
}

/// One sentence about a finding, without the final period, e.g. "MLUPS fell 7.0 % (577.3 →
/// 536.7) between nightly 2023-08-24 and 2023-08-26 (sources between ...); culprit: ...".
std::string finding_sentence(const View& v, const Finding& f) {
    // several series: each finding names its own metric (its daily result's)
    const std::string metric =
        escape_markdown(f.daily && !f.daily->metric.empty() ? f.daily->metric : v.metric);
    double old_v = 0, new_v = 0;
    bool have = false;
    std::string where;
    std::optional<core::PassFail> runs_before, runs_after;
    if (f.boundary) {
        const auto& b = *f.boundary;
        old_v = b.old_level;
        new_v = b.new_level;
        have = true;
        where = " between nightly " + escape_markdown(label_of(*f.daily, b.last_before)) + " and " +
                escape_markdown(label_of(*f.daily, b.first_after));
        if (b.kind != core::ChangeKind::unknown && b.runs_before.total() > 0 &&
            b.runs_after.total() > 0) {
            runs_before = b.runs_before;
            runs_after = b.runs_after;
        }
    } else if (f.change_point) {
        old_v = f.change_point->old_level;
        new_v = f.change_point->new_level;
        have = true;
        where = " between " + escape_markdown(f.change_point->last_before) + " and " +
                escape_markdown(f.change_point->first_after);
    }
    const core::HourlyResult* h = f.hourly;
    if (h && has_window(*h)) {
        if (!have && v.failure_rates && h->failure_rates) {
            runs_before = h->good_runs;
            runs_after = h->bad_runs;
            old_v = h->good_runs.rate();
            new_v = h->bad_runs.rate();
            have = true;
        }
        const auto* gv = end_values(*h, *h->last_good);
        const auto* bv = end_values(*h, *h->first_bad);
        if (!have && gv && bv) {
            old_v = core::median(*gv);
            new_v = core::median(*bv);
            have = true;
        }
        const std::string hours = escape_markdown(util::format_iso8601(h->last_good->time)) +
                                  " and " +
                                  escape_markdown(util::format_iso8601(h->first_bad->time));
        where = where.empty() ? " between " + hours : where + " (sources between " + hours + ")";
    }
    std::string s;
    if (v.failure_rates) { // exit-code mode: "TEST started failing (0/6 runs failed before, ...)"
        s = escape_markdown(v.benchmark.empty() ? "the test" : v.benchmark) + " " +
            failure_phrase(runs_before, runs_after, old_v, new_v) + where;
    } else if (have) {
        const double rel = old_v != 0 ? (new_v - old_v) / std::fabs(old_v) : 0;
        s = metric + (new_v < old_v ? " fell " : " rose ") + fmt_pct(rel) + " (" + fmt_num(old_v) +
            " → " + fmt_num(new_v) + ")" + where;
    } else {
        s = metric + " changed" + where;
    }
    if (const auto a = attribution_of(f);
        a && (a->cause == core::Cause::environment || a->cause == core::Cause::both ||
              (a->cause == core::Cause::unknown && !a->components.empty())))
        s += "; " + escape_markdown(core::describe_attribution(*a));
    if (h && h->culprit) {
        const auto& c = *h->culprit;
        s += "; culprit: " + escape_markdown(repo_display(v, c.repo)) + "@" +
             escape_markdown(core::short_sha(c.commit.sha)) + "…";
        if (!c.commit.subject.empty())
            s += " '" + escape_markdown(c.commit.subject) + "'";
    } else if (h && has_window(*h)) {
        const auto n = candidate_count(*h);
        s += "; culprit not isolated: " + std::to_string(n) + " candidate commit" +
             (n == 1 ? "" : "s") + " in the window";
        if (h->conclusion == core::HourlyConclusion::inconclusive)
            s += " so far (" + escape_markdown(h->message) + ")";
    } else if (h) {
        s += "; " + hourly_outcome_words(*h) + " (" + escape_markdown(h->message) + ")";
    }
    return s;
}

/// The verdict of a document that names no regression.
std::string no_regression_sentence(const View& v, core::Verdict verdict,
                                   const std::string& reason) {
    const std::string what = v.failure_rates ? "the failure rate" : escape_markdown(v.metric);
    switch (verdict) {
    case core::Verdict::inconclusive:
        return "Inconclusive for " + what + (reason.empty() ? "" : ": " + escape_markdown(reason)) +
               ".";
    case core::Verdict::improvement:
        return "No regression of " + what + " found (only improvements).";
    default:
        return "No regression of " + what + " found.";
    }
}

std::string sentence(const View& v) {
    const std::string what = v.failure_rates ? "the failure rate" : escape_markdown(v.metric);
    if (!v.findings.empty() &&
        (v.kind != core::ResultKind::investigate || v.inv->verdict == core::Verdict::regression))
        return finding_sentence(v, v.findings.front()) + ".";
    switch (v.kind) {
    case core::ResultKind::detect:
        return no_regression_sentence(v, v.detect->verdict, v.detect->reason);
    case core::ResultKind::daily: {
        const auto rv = core::range_verdict(*v.daily.front());
        if (rv.verdict == core::Verdict::inconclusive)
            return no_regression_sentence(v, rv.verdict, rv.reason);
        return "No regression of " + what + " found (" + escape_markdown(rv.reason) + ").";
    }
    case core::ResultKind::hourly: {
        const auto& h = *v.hourly.front();
        const std::string msg = h.message.empty() ? "" : ": " + escape_markdown(h.message);
        switch (h.conclusion) {
        case core::HourlyConclusion::planned:
            return "Planned source states, nothing measured" + msg + ".";
        case core::HourlyConclusion::no_change:
            return "No change of " + what + " found" + msg + ".";
        default:
            return "Inconclusive for " + what + msg + ".";
        }
    }
    case core::ResultKind::investigate:
        break;
    }
    return no_regression_sentence(v, v.inv->verdict, v.inv->reason);
}

struct Limits {
    std::size_t rows = k_all;
    std::size_t candidates = k_all;
    bool charts = true;
    bool optional_sections = true;
};

/// " (nightly A → B)" naming the regression an hourly result narrowed, when the report has more
/// than one.
std::string hourly_suffix(const View& v, const core::HourlyResult* h) {
    if (v.hourly.size() < 2)
        return "";
    for (const auto& f : v.findings)
        if (f.hourly == h && f.boundary)
            return " (nightly " + escape_markdown(label_of(*f.daily, f.boundary->last_before)) +
                   " → " + escape_markdown(label_of(*f.daily, f.boundary->first_after)) + ")";
    if (!h->states.empty())
        return " (" + escape_markdown(util::format_iso8601(h->states.front().time)) + " → " +
               escape_markdown(util::format_iso8601(h->states.back().time)) + ")";
    return "";
}

/// " (A → B)" naming a daily result's range, when the report has more than one.
std::string daily_suffix(const View& v, const core::DailyResult* d) {
    if (v.daily.size() < 2)
        return "";
    return " (" + escape_markdown(d->from) + " → " + escape_markdown(d->to) + ")";
}

std::string level_cell(const View& v, double level, const core::PassFail* runs) {
    if (!v.failure_rates)
        return fmt_num(level);
    std::string s = rate_pct(level);
    if (runs)
        s += " (" + std::to_string(runs->failed) + "/" + std::to_string(runs->total()) + ")";
    return s;
}

std::string change_cell(const View& v, double rel) {
    if (v.failure_rates)
        return (rel >= 0 ? "+" : "-") + util::format_fixed(std::fabs(rel) * 100.0, 0) + " pt";
    return (rel >= 0 ? "+" : "-") + fmt_pct(rel);
}

std::string boundary_table(const View& v, const core::DailyResult& d, const std::string& title,
                           const Limits& lim, std::size_t fold) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& b : d.sweep.boundaries) {
        const bool counts = b.kind != core::ChangeKind::unknown;
        rows.push_back({escape_markdown(label_of(d, b.last_before)),
                        escape_markdown(label_of(d, b.first_after)),
                        level_cell(v, b.old_level, counts ? &b.runs_before : nullptr),
                        level_cell(v, b.new_level, counts ? &b.runs_after : nullptr),
                        change_cell(v, b.relative_change),
                        escape_markdown(core::to_string(b.kind))});
    }
    return table({"last before", "first after", "old", "new", "change", "kind"}, rows, title,
                 lim.rows, fold);
}

std::string change_point_table(const View& v, const core::DetectResult& d, const Limits& lim,
                               std::size_t fold) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& c : d.change_points)
        rows.push_back({escape_markdown(c.last_before), escape_markdown(c.first_after),
                        level_cell(v, c.old_level, nullptr), level_cell(v, c.new_level, nullptr),
                        change_cell(v, c.relative_change),
                        escape_markdown(core::to_string(c.kind))});
    return table({"last before", "first after", "old", "new", "change", "kind"}, rows,
                 "Change points", lim.rows, fold);
}

/// "### Environment": the diff between the last good and first bad build and what it means.
std::string environment_section(const View& v, const Finding& f, const Limits& lim,
                                std::size_t fold) {
    const auto a = attribution_of(f);
    if (!a || a->diff.empty())
        return "";
    const std::string good = escape_markdown(label_of(*f.daily, f.boundary->last_before));
    const std::string bad = escape_markdown(label_of(*f.daily, f.boundary->first_after));
    std::string out = "### Environment" +
                      (v.findings.size() > 1 ? " (nightly " + good + " → " + bad + ")" : "") +
                      "\n\n";
    out += "Between nightly " + good + " (last good) and " + bad +
           " (first bad): " + escape_markdown(core::describe_attribution(*a)) + ".\n\n";
    if (a->cause == core::Cause::environment)
        out += "The hourly and commit stages were not run: no source commit can explain a "
               "change between builds of identical sources.\n\n";
    else if (a->cause == core::Cause::both)
        out += "The hourly stage rebuilds the sources inside the last good nightly's image, so "
               "the sources are narrowed with the good build's environment held fixed.\n\n";
    else if (a->cause == core::Cause::unknown)
        out += "The source commits of these builds are unknown (set --commits-probe), so the "
               "change is not attributed.\n\n";
    std::vector<std::vector<std::string>> rows;
    for (const auto& c : a->diff)
        rows.push_back({escape_markdown(core::environment_component_name(c.component)),
                        escape_markdown(c.before.empty() ? "(absent)" : c.before),
                        escape_markdown(c.after.empty() ? "(absent)" : c.after)});
    out += table({"component", "last good", "first bad"}, rows, "Environment diff", lim.rows, fold);
    return out + "\n";
}

/// "### First failing run": each first bad build's failing log, fenced so it cannot escape.
std::string failure_logs_section(const View& v) {
    std::vector<std::pair<std::string, const core::FailureLog*>> logs; // (kind, log)
    for (const auto* d : v.daily)
        for (const auto& b : d->sweep.boundaries)
            for (const auto& f : d->failure_logs)
                if (f.point == label_of(*d, b.first_after)) {
                    logs.emplace_back("Nightly ", &f);
                    break;
                }
    for (const auto* h : v.hourly)
        if (h->failure_rates && has_window(*h) && h->first_bad_log)
            logs.emplace_back("Source state ", &*h->first_bad_log);
    if (logs.empty())
        return "";
    std::string out = logs.size() == 1 ? "### First failing run\n\n" : "### First failing runs\n\n";
    for (const auto& [what, l] : logs) {
        out += "**" + what + escape_markdown(l->point) + "** (" +
               escape_markdown(core::describe_exit_status(l->exit_code)) + "), last lines of `" +
               escape_markdown(l->log) + "`:\n\n";
        out += markdown_fence(l->excerpt.empty() ? "(empty log)\n" : l->excerpt) + "\n";
    }
    return out;
}

std::string commits_cell(const View& v, const std::map<std::string, std::string>& c) {
    std::vector<std::string> parts;
    for (const auto& [repo, sha] : c) {
        const std::string text =
            escape_markdown(repo) + "@`" + escape_markdown(core::short_sha(sha)) + "`";
        const std::string url = commit_url(v, repo, sha);
        parts.push_back(url.empty() ? text : link(text, url));
    }
    return util::join(parts, " ");
}

std::string window_section(const View& v, const core::HourlyResult& h) {
    const auto& g = *h.last_good;
    const auto& b = *h.first_bad;
    std::string out = "### Window" + hourly_suffix(v, &h) + "\n\n";
    out += "Last good: " + escape_markdown(util::format_iso8601(g.time)) +
           " · first bad: " + escape_markdown(util::format_iso8601(b.time)) + "\n\n";
    std::vector<std::string> repos;
    for (const auto& [r, s] : b.commits)
        repos.push_back(r);
    for (const auto& [r, s] : g.commits)
        if (!b.commits.count(r))
            repos.push_back(r);
    out += "| repo | last good | first bad | compare |\n| --- | --- | --- | --- |\n";
    for (const auto& r : repos) {
        const auto gs = g.commits.count(r) ? g.commits.at(r) : "";
        const auto bs = b.commits.count(r) ? b.commits.at(r) : "";
        std::string cmp = gs == bs ? "unchanged" : "";
        auto url = v.repo_urls.find(r);
        if (gs != bs && url != v.repo_urls.end() && !gs.empty() && !bs.empty())
            cmp = link("compare", url->second + "/compare/" + gs + "..." + bs);
        out += "| " + escape_markdown(repo_display(v, r)) + " | `" +
               escape_markdown(core::short_sha(gs)) + "` | `" +
               escape_markdown(core::short_sha(bs)) + "` | " + cmp + " |\n";
    }
    return out + "\n";
}

std::string candidates_section(const View& v, const core::HourlyResult& h, const Limits& lim,
                               std::size_t fold_rows) {
    if (h.candidates.empty())
        return "";
    std::string out = "### Candidate commits" + hourly_suffix(v, &h) + "\n\n";
    for (const auto& [repo, list] : h.candidates) {
        std::string body;
        const std::size_t shown = std::min(lim.candidates, list.size());
        for (std::size_t i = 0; i < shown; ++i) {
            const auto& c = list[i];
            const bool is_culprit =
                h.culprit && h.culprit->repo == repo && h.culprit->commit.sha == c.sha;
            body += "- " +
                    link("`" + escape_markdown(core::short_sha(c.sha)) + "`",
                         commit_url(v, repo, c.sha)) +
                    " " + escape_markdown(util::format_iso8601(c.time)) + " " +
                    escape_markdown(c.author) + ": " + escape_markdown(c.subject) +
                    (is_culprit ? " **← culprit**" : "") + "\n";
        }
        if (shown < list.size())
            body += "- *" + std::to_string(list.size() - shown) +
                    " more not shown to keep the comment under GitHub's size limit.*\n";
        const std::string title = escape_markdown(repo_display(v, repo)) + ": " +
                                  std::to_string(list.size()) + " commit" +
                                  (list.size() == 1 ? "" : "s");
        if (list.size() > fold_rows)
            out += "<details><summary>" + title + "</summary>\n\n" + body + "\n</details>\n\n";
        else
            out += "**" + title + "**\n\n" + body + "\n";
    }
    return out;
}

std::string daily_points_section(const View& v, const core::DailyResult& d, const Limits& lim,
                                 std::size_t fold) {
    const auto& pts = d.sweep.points;
    if (pts.empty())
        return "";
    const std::string heading = "Daily (nightly containers)";
    std::string out = "### " + heading + daily_suffix(v, &d) + "\n\n";
    if (lim.charts) {
        std::vector<std::string> labels;
        std::vector<double> values;
        for (const auto& p : pts)
            if (p.state == core::StateStatus::unknown && !p.values.empty()) {
                labels.push_back(p.label);
                values.push_back(chart_value(v, p.values));
            }
        const std::string chart =
            xychart(v.failure_rates ? "failure rate per point" : v.metric + " per nightly",
                    chart_unit(v), labels, values);
        if (!chart.empty()) {
            out += fence("mermaid", chart);
            if (labels.size() < pts.size())
                out += "\n*Points that are not ok are left out of the chart.*\n";
            out += "\n";
        }
    }
    std::vector<std::vector<std::string>> rows;
    for (const auto& p : pts)
        rows.push_back(
            {escape_markdown(p.label), value_cell(v, p.values), spread_cell(v, p.values),
             std::to_string(p.values.size()),
             escape_markdown(p.state == core::StateStatus::untested ? std::string_view("untested")
                                                                    : core::to_string(p.status)),
             escape_markdown(p.log)});
    out += table({"nightly", value_heading(v), "± sd", "repeats", "status", "log"}, rows,
                 heading + " table", lim.rows, fold);
    return out + "\n";
}

std::string hourly_states_section(const View& v, const core::HourlyResult& h, const Limits& lim,
                                  std::size_t fold) {
    if (h.states.empty())
        return "";
    std::string out = "### Hourly (source states)" + hourly_suffix(v, &h) + "\n\n";
    if (lim.charts) {
        std::vector<std::string> labels;
        std::vector<double> values;
        for (const auto& s : h.states)
            if (core::is_measured(s.status) && !s.values.empty()) {
                labels.push_back(hour_label(util::format_iso8601(s.time)));
                values.push_back(chart_value(v, s.values));
            }
        const std::string chart = xychart(v.failure_rates ? "failure rate per source state"
                                                          : v.metric + " per source state",
                                          chart_unit(v), labels, values);
        if (!chart.empty())
            out += fence("mermaid", chart) + "\n";
    }
    std::vector<std::vector<std::string>> rows;
    for (const auto& s : h.states)
        rows.push_back({escape_markdown(util::format_iso8601(s.time)), commits_cell(v, s.commits),
                        !s.changed.empty() && !s.duplicate ? "yes" : "no", value_cell(v, s.values),
                        spread_cell(v, s.values), std::to_string(s.values.size()),
                        escape_markdown(core::to_string(s.status)), escape_markdown(s.log)});
    out +=
        table({"time", "commits", "changed", value_heading(v), "± sd", "repeats", "status", "log"},
              rows, "Hourly table", lim.rows, fold) +
        "\n";
    return out;
}

std::string skipped_section(const View& v, const Limits& lim, std::size_t fold) {
    std::vector<std::vector<std::string>> rows;
    if (v.detect)
        for (const auto& f : v.detect->failed)
            rows.push_back({escape_markdown(f.label), "failed", escape_markdown(f.reason), ""});
    for (const auto* d : v.daily)
        for (const auto& p : d->sweep.points)
            if (p.state == core::StateStatus::test_failed)
                rows.push_back({escape_markdown(p.label),
                                escape_markdown(core::to_string(p.status)),
                                escape_markdown(p.reason), escape_markdown(p.log)});
    for (const auto* h : v.hourly)
        for (const auto& s : h->states)
            if (core::is_broken(s.status))
                rows.push_back({escape_markdown(util::format_iso8601(s.time)),
                                escape_markdown(core::to_string(s.status)),
                                escape_markdown(s.reason), escape_markdown(s.log)});
    if (rows.empty())
        return "";
    return "### Skipped or broken points\n\n" +
           table({"point", "status", "reason", "log"}, rows, "Skipped points", lim.rows, fold) +
           "\n";
}

// "avoided: 5 runs, 1 build (12 known values reused)": what the evidence spared.
std::string avoided_part(const core::Spend& s) {
    if (s.avoided_runs == 0 && s.avoided_builds == 0 && s.reused_values == 0)
        return "";
    auto n = [](long k, const char* what) {
        return std::to_string(k) + " " + what + (k == 1 ? "" : "s");
    };
    std::string kept;
    if (s.restored_builds > 0)
        kept = ", " + std::to_string(s.restored_builds) + " kept build" +
               (s.restored_builds == 1 ? "" : "s") + " put back";
    return "avoided: " + n(s.avoided_runs, "run") + ", " + n(s.avoided_builds, "build") + " (" +
           n(s.reused_values, "known value") + " reused" + kept + ")";
}

std::string budget_section(const View& v) {
    std::vector<std::string> parts;
    const core::Spend* spend = nullptr;
    if (v.inv) {
        spend = &v.inv->spend;
        parts.push_back("runs: " + std::to_string(v.inv->spend.runs));
        parts.push_back("builds: " + std::to_string(v.inv->spend.builds));
        if (v.inv->spend.seconds > 0)
            parts.push_back("time: " + util::format_duration(v.inv->spend.seconds));
    } else if (v.kind == core::ResultKind::daily) {
        parts.push_back("runs: " + std::to_string(v.daily.front()->sweep.runs));
    } else if (v.kind == core::ResultKind::hourly) {
        spend = &v.hourly.front()->spend;
        parts.push_back("runs: " + std::to_string(v.hourly.front()->spend.runs));
        parts.push_back("builds: " + std::to_string(v.hourly.front()->spend.builds));
    }
    if (spend && !avoided_part(*spend).empty())
        parts.push_back(avoided_part(*spend));
    if (parts.empty())
        return "";
    return "### Budget used\n\n" + util::join(parts, " · ") + "\n\n";
}

/// A link to the investigation's series on the dashboard, and its chart as an image (GitHub
/// renders an SVG file linked as an image, never SVG inline).
std::string dashboard_section(const View& v, const MarkdownOptions& opt, const Limits& lim) {
    if (!v.inv || opt.dashboard_url.empty())
        return "";
    std::string base = opt.dashboard_url;
    while (!base.empty() && base.back() == '/')
        base.pop_back();
    const core::SeriesKey key = core::investigation_series(*v.inv);
    const std::string page = safe_url(base + "/" + series_page(key));
    if (page.empty())
        return "";
    std::string out =
        "**Dashboard:** [" + escape_markdown(core::to_string(key)) + "](" + page + ")\n\n";
    const bool charted = v.inv->verdict == core::Verdict::regression || !v.inv->regressions.empty();
    if (lim.charts && charted)
        out += "[![chart of " + escape_markdown(core::to_string(key)) + "](" +
               safe_url(base + "/" + series_image(key)) + ")](" + page + ")\n\n";
    return out;
}

std::string render(const View& v, const MarkdownOptions& opt, const Limits& lim) {
    std::string out = marker_for_key(opt.key) + "\n";
    const std::string measured = v.failure_rates ? "exit status" : v.metric;
    out += "## perfsweep: " +
           escape_markdown(v.benchmark.empty() ? measured : v.benchmark + " (" + measured + ")") +
           "\n\n";
    out += "**" + sentence(v) + "**\n\n";
    if (v.inv) // several series: every one, with the narrowed ones' windows and culprits
        out += render_investigation_series(*v.inv);
    out += dashboard_section(v, opt, lim);
    if (v.findings.size() > 1) {
        out += "### Regressions\n\n";
        for (const auto& f : v.findings)
            out += "- " + finding_sentence(v, f) + "\n";
        out += "\n";
    }
    // The windows always remain.
    for (const auto* h : v.hourly)
        if (has_window(*h))
            out += window_section(v, *h);
    for (const auto& f : v.findings)
        out += environment_section(v, f, lim, opt.fold_rows);
    out += failure_logs_section(v);
    for (const auto* h : v.hourly)
        out += candidates_section(v, *h, lim, opt.fold_rows);
    for (const auto* d : v.daily)
        if (!d->sweep.boundaries.empty())
            out += "### Daily boundaries" + daily_suffix(v, d) + "\n\n" +
                   boundary_table(v, *d, "Boundaries", lim, opt.fold_rows) + "\n";
    if (v.detect && !v.detect->change_points.empty())
        out +=
            "### Change points\n\n" + change_point_table(v, *v.detect, lim, opt.fold_rows) + "\n";
    for (const auto* d : v.daily)
        out += daily_points_section(v, *d, lim, opt.fold_rows);
    for (const auto* h : v.hourly)
        out += hourly_states_section(v, *h, lim, opt.fold_rows);
    out += skipped_section(v, lim, opt.fold_rows);
    if (lim.optional_sections) {
        if (v.inv && !v.inv->runner.empty()) {
            std::vector<std::vector<std::string>> rows;
            for (const auto& [k, val] : v.inv->runner)
                rows.push_back({escape_markdown(k), escape_markdown(val)});
            out += "### Runner\n\n" +
                   table({"key", "value"}, rows, "Runner", lim.rows, opt.fold_rows) + "\n";
        }
        out += budget_section(v);
        if (v.inv && !v.inv->reproduce.empty()) {
            std::string cmds;
            for (const auto& c : v.inv->reproduce)
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
    static constexpr util::EscapeRow rows[] = {
        {'|', "\\|"}, {'\\', "\\\\"}, {'`', "\\`"},  {'*', "\\*"},  {'_', "\\_"},   {'[', "\\["},
        {']', "\\]"}, {'~', "\\~"},   {'<', "&lt;"}, {'>', "&gt;"}, {'&', "&amp;"}, {'@', "&#64;"}};
    // Every control character (newline, tab, a lone CR) becomes a space; CR LF one space.
    static constexpr auto k_markdown = util::escape_table(rows, " ");
    return util::escape_bytes(util::replace_all(std::string(text), "\r\n", "\n"), k_markdown);
}

std::string verdict_sentence(const core::ResultDocument& doc) {
    return sentence(make_view(doc));
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

std::string render_markdown(const core::ResultDocument& doc, const MarkdownOptions& opt) {
    const View v = make_view(doc);
    Limits lim;
    std::string out = render(v, opt, lim);
    for (std::size_t rows : {200u, 100u, 50u, 20u, 10u, 5u, 0u}) {
        if (out.size() <= opt.max_chars)
            return out;
        lim.rows = rows;
        out = render(v, opt, lim);
    }
    if (out.size() <= opt.max_chars)
        return out;
    lim.charts = false;
    out = render(v, opt, lim);
    if (out.size() <= opt.max_chars)
        return out;
    lim.optional_sections = false;
    for (std::size_t c : {100u, 50u, 20u, 10u, 5u, 0u}) {
        lim.candidates = c;
        out = render(v, opt, lim);
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
