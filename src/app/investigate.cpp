#include "app/investigate.hpp"

#include "app/dashboard.hpp"
#include "app/investigate_series.hpp"
#include "app/journal_file.hpp"
#include "app/newest_point.hpp"
#include "app/options.hpp"
#include "app/run_point.hpp"
#include "core/command_template.hpp"
#include "core/commit_text.hpp"
#include "core/environment.hpp"
#include "core/exit_policy.hpp"
#include "core/narrow.hpp"
#include "core/range_verdict.hpp"
#include "core/series_narrow.hpp"
#include "report/markdown.hpp"
#include "report/result_json.hpp"
#include "util/error.hpp"
#include "util/exit_codes.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

namespace perfsweep::app {

namespace {

std::string verdict_word(core::Verdict v) {
    return std::string(core::to_string(v));
}

// The recorded source commits of a daily point, as attribution reads them (commits probe, image
// labels, or the environment probe's commit.NAME lines).
std::map<std::string, std::string> point_commits(const core::DailyResult& d, std::size_t i) {
    return i < d.measurements.size() ? core::build_fingerprint(d.measurements[i]).commits
                                     : std::map<std::string, std::string>{};
}

// The UTC calendar date of `clock`'s now.
util::Day today_utc(ports::Clock& clock) {
    const auto days = static_cast<std::int64_t>(std::floor(clock.now() / 86400.0));
    return util::Day{std::chrono::days{days}};
}

NightState night_state(core::Verdict v) {
    switch (v) {
    case core::Verdict::regression:
        return NightState::regression;
    case core::Verdict::improvement:
    case core::Verdict::no_regression:
        return NightState::healthy;
    case core::Verdict::inconclusive:
        break;
    }
    return NightState::undecided;
}

/// A daily window to narrow: detect's window of a regression, or the explicit --from/--to range.
struct NarrowWindow {
    core::DateRange dates;
    bool explicit_range = false;
    /// Several series: the ones narrowed together (indices into Investigation::series, the lead
    /// first: core::narrow_groups).
    std::vector<std::size_t> series;
};

/// One run of the pipeline: each step is a method, reading what the earlier ones found.
class Pipeline {
public:
    Pipeline(const InvestigateOptions& o, ports::Adapters& a)
        : m_o(o), m_a(a), m_started(a.clock.now()), m_history(a.histories.open(o.history)),
          m_secrets(a.secrets.values()) {}

    /// 1. Tonight's point (as the nightly job records it), with its build's commits.
    void record_night();
    /// 2. Detect against the whole history.
    void detect();
    /// 2'. Detect every series the runner reads (several metrics) and group their regressions.
    void detect_series(DetectRequest dr);
    /// 3. The windows to narrow: the explicit range, or detect's regressions (Narrow rule).
    std::vector<NarrowWindow> windows();
    /// 3a. The daily stage over `w`, then each of its regressions to narrow (Narrow rule).
    void narrow_window(const NarrowWindow& w);
    /// 4. The report: the investigation, rendered to markdown and JSON from the same model.
    InvestigateResult report();
    /// 5. Outputs, summary, annotations, comment.
    void publish(InvestigateResult& res);

private:
    void settle_newest();
    void narrow_boundary(std::size_t daily_index, const core::Boundary& b);
    void narrow_followers(const NarrowWindow& w, std::size_t lead_daily, std::size_t first_entry);
    /// `daily` with the runner's image, metric and unit where the sweep measured none.
    core::DailyResult with_runner_metric(core::DailyResult daily) const;
    void note_first_boundary(const std::string& good, const std::string& bad,
                             const core::Boundary& b, const core::Attribution& attr);
    std::optional<HourlyOptions> hourly_options(const core::DailyResult& d,
                                                const core::Boundary& b);
    void evidence_settings(HourlyOptions& h, const ports::RunnerConfig& rc,
                           const core::DailyResult& d, const core::Boundary& b,
                           const core::Attribution& attr) const;
    DailyOptions daily_options(const core::DateRange& dates, const std::string& name,
                               bool record = false, const std::string& lead = {});
    DailyInstruments daily_instruments(const std::string& lead = {});
    std::string sub_state(const std::string& name, const std::string& identity) const;
    void comment(InvestigateResult& res);

    const InvestigateOptions& m_o;
    ports::Adapters& m_a;
    const double m_started;
    std::unique_ptr<ports::HistoryStore> m_history;
    const std::vector<std::string> m_secrets;
    std::unique_ptr<ports::BuildingRunner> m_runner, m_probe; // the daily stage's, opened once
    std::unique_ptr<LeadMetricRunner> m_tee; // several metrics: hands the sweep its lead's
    std::vector<core::NarrowGroup> m_groups; // several series: what is narrowed together
    core::Investigation m_inv;               // the model every output renders
    core::Verdict m_verdict = core::Verdict::inconclusive; // an explicit range's sweep decides it
    std::string m_reason;
    std::optional<core::ChangePoint> m_latest; // the latest regression detect found
    std::map<std::string, std::string> m_outputs;
    long m_record_runs = 0; // benchmark runs of the record step (counted in the budget too)
};

std::string Pipeline::sub_state(const std::string& name, const std::string& identity) const {
    // A stage's directory is named after its settings too: a rerun with another metric, regex,
    // image, ... starts a fresh journal instead of resuming a stale one.
    return m_o.state_dir.empty() ? std::string()
                                 : m_o.state_dir + "/" + name + "-" + util::short_hash(identity);
}

DailyInstruments Pipeline::daily_instruments(const std::string& lead) {
    if (!m_runner) {
        m_runner = m_a.runners.make(m_o.daily_runner);
        if (!m_o.commits_probe.empty())
            m_probe = m_a.runners.make(commits_probe_runner(m_o.daily_runner, m_o.commits_probe));
    }
    if (!reads_several_metrics(m_o.daily_runner))
        return {*m_runner, m_probe.get(), m_history.get()};
    if (!m_tee)
        m_tee = std::make_unique<LeadMetricRunner>(*m_runner, *m_history);
    m_tee->lead = lead.empty() ? m_o.daily_runner.metric : lead;
    return {*m_tee, m_probe.get(), m_history.get()};
}

DailyOptions Pipeline::daily_options(const core::DateRange& dates, const std::string& name,
                                     bool record, const std::string& lead) {
    DailyOptions d = m_o.daily;
    d.secrets = m_secrets;
    d.dates = dates;
    d.benchmark = m_o.daily_runner.benchmark;
    d.metric = m_o.daily_runner.exit_code_mode ? "failed" : m_o.daily_runner.metric;
    auto runner = m_o.daily_runner;
    if (!lead.empty())
        d.metric = runner.metric = lead; // several series: the sweep's journal is its lead's
    if (record) {
        d.sweep.strategy = core::SweepStrategy::exhaustive;
        d.rerun = true; // recording measures the nightly, whatever the history holds for it
    }
    d.identity = journal_identity(d, runner);
    d.state_dir = sub_state(name, d.identity);
    return d;
}

void Pipeline::record_night() {
    if (!m_o.record)
        return;
    const util::Day night = m_o.record->today ? today_utc(m_a.clock) : m_o.record->date;
    const std::string date = util::format_day(night);
    m_a.progress.line("== record: nightly " + date + " into " + m_history->describe());
    const auto d = daily_options({night, night}, "record-" + date, true);
    m_record_runs = run_daily(d, m_a, daily_instruments()).sweep.runs;
}

void Pipeline::detect() {
    const auto& runner = m_o.daily_runner;
    m_a.progress.line("== detect: " + m_history->describe());
    DetectRequest dr;
    dr.history = m_o.history;
    dr.benchmark = runner.benchmark;
    dr.metric = runner.metric;
    dr.testbed = runner.testbed;
    dr.direction = runner.direction;
    if (runner.exit_code_mode) { // the runner records failure indicators as "failed"
        dr.metric = "failed";
        dr.direction = core::Direction::lower_is_better;
    }
    dr.options.threshold = m_o.threshold;
    dr.allow_empty = m_o.range.has_value(); // the range's sweep decides
    if (reads_several_metrics(runner))
        return detect_series(std::move(dr));
    const auto detected = run_detect(dr, m_a);
    m_inv.detect = detected.result;
    for (const auto& w : detected.warnings)
        m_a.progress.line("warning: " + w);
    settle_newest();
    m_verdict = m_inv.detect.verdict;
    m_reason = m_inv.detect.reason;
    m_a.progress.line("detect: " + verdict_word(m_verdict) + " — " + m_reason);
}

void Pipeline::detect_series(DetectRequest dr) {
    const auto& metrics = m_o.daily_runner.metrics; // empty: a (?<name>...) group, every metric
    dr.metric.clear();
    auto detected = run_detect_all(dr, m_a);
    for (const auto& w : detected.warnings)
        m_a.progress.line("warning: " + w);
    for (auto& s : detected.series)
        if (metrics.empty() || std::count(metrics.begin(), metrics.end(), s.key.metric))
            m_inv.series.push_back(std::move(s));
    m_groups = core::narrow_groups(m_inv.series, m_o.narrow);
    if (m_inv.series.empty()) {
        m_inv.detect.verdict = core::Verdict::inconclusive;
        m_inv.detect.reason = detected.empty_reason.empty()
                                  ? "no series of the benchmark's metrics in the history yet"
                                  : detected.empty_reason;
    } else { // the one narrowed first, else the worst
        const auto worst = core::worst_verdict(m_inv.series);
        std::size_t shown = 0;
        while (m_inv.series[shown].result.verdict != worst)
            ++shown;
        m_inv.detect =
            m_inv.series[m_groups.empty() ? shown : m_groups.front().series.front()].result;
    }
    m_verdict = core::worst_verdict(m_inv.series);
    m_reason = m_inv.detect.reason;
    std::size_t regressed = 0;
    for (const auto& s : m_inv.series) {
        regressed += s.result.verdict == core::Verdict::regression ? 1 : 0;
        m_a.progress.line("detect " + core::to_string(s.key) + ": " +
                          verdict_word(s.result.verdict) + " — " + s.result.reason);
    }
    if (regressed > 1)
        m_reason = std::to_string(regressed) + " of " + std::to_string(m_inv.series.size()) +
                   " series regressed, narrowed in " + std::to_string(m_groups.size()) +
                   (m_groups.size() == 1 ? " sweep" : " sweeps") + "; " + m_reason;
}

void Pipeline::settle_newest() {
    // A newest point alone off the level (the first bad night, or an outlier): measure that
    // nightly again and decide now (app/newest_point), rather than wait for the next night.
    if (m_o.range)
        return;
    const auto& sweep = m_o.daily.sweep;
    const auto again = [&](const std::string& label, int runs, int round) {
        std::vector<double> values;
        const auto night = util::parse_day(label);
        if (!night)
            return values; // not a nightly date: nothing to measure again
        auto d = daily_options({*night, *night}, "newest-" + label + "-" + std::to_string(round),
                               true); // new runs, recorded into the history
        d.sweep.repeats = d.sweep.max_repeats = runs;
        const auto measured = run_daily(d, m_a, daily_instruments());
        m_record_runs += measured.sweep.runs;
        if (!measured.measurements.empty())
            for (const auto& m : measured.measurements.front())
                if (m.status == core::Status::ok)
                    values.insert(values.end(), m.values.begin(), m.values.end());
        return values;
    };
    m_inv.detect = settle_newest_point(m_inv.detect, *m_history, sweep.repeats, sweep.max_repeats,
                                       again, m_a.progress)
                       .detect;
}

std::vector<NarrowWindow> Pipeline::windows() {
    if (m_o.range)
        return {{*m_o.range, true, {}}};
    if (!m_groups.empty()) { // several series: one window per group (core::narrow_groups)
        std::vector<NarrowWindow> out;
        for (const auto& g : m_groups) {
            const auto from = util::parse_day(g.last_before), to = util::parse_day(g.first_after);
            if (from && to)
                out.push_back({{*from, *to}, false, g.series});
            else
                m_a.progress.line("cannot narrow " + g.last_before + " → " + g.first_after +
                                  ": labels are not nightly dates (YYYY-MM-DD)");
        }
        const auto& lead = m_inv.series[m_groups.front().series.front()].result;
        if (const auto* cp = core::latest_regression_of(lead.change_points))
            m_latest = *cp;
        return out;
    }
    const auto& det = m_inv.detect;
    if (det.verdict != core::Verdict::regression)
        return {};
    const auto todo = core::regressions_to_narrow(det.change_points, m_o.narrow);
    if (!todo.empty())
        m_latest = *todo.front();
    std::vector<NarrowWindow> out;
    for (const auto* cp : todo) {
        const auto from = util::parse_day(cp->last_before), to = util::parse_day(cp->first_after);
        if (!from || !to) {
            m_a.progress.line("cannot narrow " + cp->last_before + " → " + cp->first_after +
                              ": labels are not nightly dates (YYYY-MM-DD)");
            continue;
        }
        out.push_back({{*from, *to}, false, {}});
    }
    return out;
}

// The sweep narrows the drop detect reported first (core::detected_focus); once its boundary is
// decided, that boundary goes on to the hourly stage while the sweep waits, then the sweep covers
// the rest of the window and reports its other boundaries.
void Pipeline::narrow_window(const NarrowWindow& w) {
    const std::string from = util::format_day(w.dates.from), to = util::format_day(w.dates.to);
    const std::string lead = w.series.empty() ? "" : m_inv.series[w.series.front()].key.metric;
    // several series: the group's lead is the series the sweep narrows (its detect result)
    const auto& det = w.series.empty() ? m_inv.detect : m_inv.series[w.series.front()].result;
    m_a.progress.line("== daily: " + from + " → " + to + (lead.empty() ? "" : " (" + lead + ")"));
    auto d = daily_options(w.dates, "daily-" + from + "-" + to, false, lead);
    if (d.sweep.comparison == core::ComparisonKind::values &&
        det.verdict == core::Verdict::regression)
        d.sweep.focus = core::detected_focus(det.change_points, w.dates.labels());
    const std::size_t first_entry = m_inv.regressions.size(); // the lead's, for its followers
    std::optional<std::pair<std::string, std::string>> early; // narrowed during the sweep
    const FocusHook hourly_first = [&](const core::DailyResult& so_far, const core::Boundary& b) {
        const auto& pts = so_far.sweep.points;
        early.emplace(pts[b.last_before].label, pts[b.first_after].label);
        m_a.progress.line("daily: the detected drop " + early->first + " → " + early->second +
                          " is decided; the hourly stage starts before the rest of the range");
        m_inv.daily.push_back(with_runner_metric(so_far));
        narrow_boundary(m_inv.daily.size() - 1, b);
    };
    auto daily = with_runner_metric(run_daily(d, m_a, daily_instruments(lead), hourly_first));
    if (w.explicit_range) {
        const auto rv = core::range_verdict(daily);
        m_verdict = rv.verdict;
        m_reason = rv.reason;
        m_a.progress.line("range " + from + " → " + to + ": " + verdict_word(m_verdict) + " — " +
                          m_reason);
    }
    if (early) // the sweep so far, replaced by the whole sweep
        m_inv.daily.back() = std::move(daily);
    else
        m_inv.daily.push_back(std::move(daily));
    const std::size_t index = m_inv.daily.size() - 1;
    // Which boundaries to narrow: in detect's window the latest regression (each window is one
    // of detect's regressions); in an explicit range the --narrow rule, latest first. The one
    // narrowed during the sweep is not narrowed again (in detect's window it was the one).
    const auto& sweep = m_inv.daily.back().sweep;
    const auto bounds = core::regressions_to_narrow(
        sweep.boundaries, w.explicit_range ? m_o.narrow : core::Narrow::latest);
    if (bounds.empty() && !early)
        m_a.progress.line("daily: no decided regression boundary between " + from + " and " + to);
    for (const auto* b : bounds) {
        const std::pair<std::string, std::string> labels{sweep.points[b->last_before].label,
                                                         sweep.points[b->first_after].label};
        if (early && (labels == *early || !w.explicit_range))
            continue;
        narrow_boundary(index, *b);
    }
    if (!w.series.empty())
        narrow_followers(w, index, first_entry);
}

// Several series: the lead's entries are named, and each series narrowed with it gets its sweep
// result from the same runs and, on the lead's boundary, the lead's hourly result.
void Pipeline::narrow_followers(const NarrowWindow& w, std::size_t lead_daily,
                                std::size_t first_entry) {
    const std::string lead_name = core::to_string(m_inv.series[w.series.front()].key);
    for (auto i = first_entry; i < m_inv.regressions.size(); ++i)
        m_inv.regressions[i].series = lead_name;
    std::vector<core::DetectResult> followers;
    for (std::size_t k = 1; k < w.series.size(); ++k)
        followers.push_back(m_inv.series[w.series[k]].result);
    if (followers.empty())
        return;
    const auto lead_entries = m_inv.regressions.size();
    auto sweeps = follower_sweeps(m_inv.daily[lead_daily], followers, m_history->load().records,
                                  m_tee ? m_tee->others : std::vector<core::Measurement>{});
    for (std::size_t k = 0; k < sweeps.size(); ++k) {
        const std::string name = core::to_string(m_inv.series[w.series[k + 1]].key);
        m_inv.daily.push_back(std::move(sweeps[k]));
        const auto& d = m_inv.daily.back();
        const auto* b = core::latest_regression_of(d.sweep.boundaries);
        if (!b) {
            m_a.progress.line("daily " + name + ": no decided regression boundary in the runs of " +
                              lead_name + "'s sweep");
            continue;
        }
        core::NarrowedRegression r{m_inv.daily.size() - 1, d.sweep.points[b->last_before].label,
                                   d.sweep.points[b->first_after].label, std::nullopt, name};
        for (auto i = first_entry; i < lead_entries; ++i)
            if (m_inv.regressions[i].last_good == r.last_good &&
                m_inv.regressions[i].first_bad == r.first_bad)
                r.hourly = m_inv.regressions[i].hourly; // the same nightlies: the same commits
        m_a.progress.line("daily " + name + ": " + r.last_good + " → " + r.first_bad +
                          " (the runs of " + lead_name + "'s sweep)");
        m_inv.regressions.push_back(std::move(r));
    }
}

core::DailyResult Pipeline::with_runner_metric(core::DailyResult daily) const {
    const auto& runner = m_o.daily_runner;
    daily.image = runner.image;
    if (daily.metric.empty()) {
        daily.metric = runner.metric;
        daily.unit = runner.unit.empty() ? runner.metric : runner.unit;
    }
    return daily;
}

void Pipeline::note_first_boundary(const std::string& good, const std::string& bad,
                                   const core::Boundary& b, const core::Attribution& attr) {
    if (m_outputs.count("last-good"))
        return;
    m_outputs["last-good"] = good;
    m_outputs["first-bad"] = bad;
    m_outputs["relative-change"] = util::format_fixed(b.relative_change, 4);
    m_outputs["cause"] = std::string(core::to_string(attr.cause));
    std::vector<std::string> diff;
    for (const auto& c : attr.diff)
        diff.push_back(c.component + " " + (c.before.empty() ? "absent" : c.before) + " -> " +
                       (c.after.empty() ? "absent" : c.after));
    if (!diff.empty())
        m_outputs["environment-diff"] = util::join(diff, "; ");
}

std::optional<HourlyOptions> Pipeline::hourly_options(const core::DailyResult& d,
                                                      const core::Boundary& b) {
    const auto& good_label = d.sweep.points[b.last_before].label;
    const auto& bad_label = d.sweep.points[b.first_after].label;
    const auto good = point_commits(d, b.last_before), bad = point_commits(d, b.first_after);
    HourlyOptions h = m_o.hourly_options;
    h.secrets = m_secrets;
    for (const auto& r : h.repos) {
        if (!good.count(r.name) || !bad.count(r.name)) {
            m_a.progress.line("hourly skipped: nightlies " + good_label + " and " + bad_label +
                              " carry no recorded commit for repo '" + r.name +
                              "' (set --commits-probe)");
            return std::nullopt;
        }
        h.good_commits[r.name] = good.at(r.name);
        h.bad_commits[r.name] = bad.at(r.name);
    }
    return h;
}

void Pipeline::evidence_settings(HourlyOptions& h, const ports::RunnerConfig& rc,
                                 const core::DailyResult& d, const core::Boundary& b,
                                 const core::Attribution& attr) const {
    // The history is the evidence: the nightlies' values count for the window ends with the same
    // commits (the last good nightly is the image the states are rebuilt in; the first bad one's
    // values count only when nothing but the sources changed), after one confirming run.
    auto& e = h.evidence;
    e.recipe = rc.build_command;
    e.image = rc.image;
    e.benchmark = rc.benchmark;
    e.metric = rc.metric;
    const auto& daily_image = m_o.daily_runner.image;
    e.admissible_images = {core::expand_image(daily_image, d.sweep.points[b.last_before].label)};
    if (attr.cause == core::Cause::source)
        e.admissible_images.push_back(
            core::expand_image(daily_image, d.sweep.points[b.first_after].label));
}

void Pipeline::narrow_boundary(std::size_t daily_index, const core::Boundary& b) {
    const auto& d = m_inv.daily[daily_index];
    const std::string good = d.sweep.points[b.last_before].label;
    const std::string bad = d.sweep.points[b.first_after].label;
    // Sources, environment or both (core/environment): same sources → no hourly stage.
    const auto attr = core::attribute_boundary(d, b);
    m_inv.regressions.push_back({daily_index, good, bad, std::nullopt, ""});
    m_a.progress.line("cause " + good + " → " + bad + ": " + core::describe_attribution(attr));
    note_first_boundary(good, bad, b, attr);
    if (attr.cause == core::Cause::environment) {
        m_a.progress.line("hourly skipped: nightlies " + good + " and " + bad +
                          " were built from the same source commits; the change is "
                          "environmental");
        return;
    }
    if (!m_o.hourly || m_o.hourly_options.repos.empty())
        return;
    if (attr.cause == core::Cause::both)
        m_a.progress.line("sources and environment both changed: the sources are narrowed "
                          "inside the last good nightly " +
                          good + ", holding its environment");
    auto h = hourly_options(d, b);
    if (!h)
        return;
    m_a.progress.line("== hourly: " + core::format_commits(h->good_commits) + " → " +
                      core::format_commits(h->bad_commits));
    // The source states are rebuilt inside the last good nightly's environment.
    auto rc = m_o.hourly_runner;
    rc.image = core::expand_image(rc.image, good);
    h->settings_key = journal_identity(*h, rc);
    // One build store for every hourly stage (the investigation's), keyed by this stage's image.
    if (!h->builds.dir.empty())
        h->builds.recipe = build_recipe_identity(rc, {h->outputs_dir, h->builds.dir});
    h->state_dir = sub_state("hourly-" + good + "-" + bad, h->settings_key);
    evidence_settings(*h, rc, d, b, attr);
    auto source_runner = m_a.runners.make(rc);
    auto hourly = run_hourly(*h, m_a, {*source_runner, *source_runner, m_history.get()});
    source_runner.reset(); // a kept container is stopped and removed here
    if (hourly.metric.empty())
        hourly.metric = rc.metric;
    if (hourly.unit.empty())
        hourly.unit = rc.unit.empty() ? hourly.metric : rc.unit;
    m_inv.hourly.push_back(std::move(hourly));
    m_inv.regressions.back().hourly = m_inv.hourly.size() - 1;
}

InvestigateResult Pipeline::report() {
    // `verdict` is the pipeline's (an explicit range's sweep decides it); `detect` keeps its own.
    m_inv.verdict = m_verdict;
    m_inv.reason = m_reason;
    m_inv.spend.runs = m_record_runs; // the record step's runs count too
    for (const auto& d : m_inv.daily) {
        m_inv.spend.runs += d.sweep.runs;
        // each stored value the daily sweep reused stood in for one run of that nightly
        m_inv.spend.reused_values += d.sweep.reused_values;
        m_inv.spend.avoided_runs += d.sweep.reused_values;
    }
    for (const auto& h : m_inv.hourly) {
        const auto seconds = m_inv.spend.seconds;
        m_inv.spend += h.spend;
        m_inv.spend.seconds = seconds;
    }
    m_inv.spend.seconds = m_a.clock.now() - m_started;
    if (!m_o.reproduce.empty())
        m_inv.reproduce.push_back(m_o.reproduce);
    InvestigateResult res;
    res.verdict = verdict_word(m_verdict);
    m_a.files.make_dirs(m_o.out_dir);
    res.result_path = m_o.out_dir + "/result.json";
    res.report_path = m_o.out_dir + "/report.md";
    res.investigation = std::move(m_inv);
    const core::ResultDocument doc = res.investigation;
    m_a.files.write_atomic(res.result_path, report::render_json(doc));
    report::MarkdownOptions mo;
    mo.key = m_o.key;
    mo.dashboard_url = m_o.dashboard_url;
    res.markdown = report::render_markdown(doc, mo);
    m_a.files.write_atomic(res.report_path, res.markdown);
    keep_investigation(*m_history, res.investigation, m_a.progress); // for `perfsweep dashboard`
    res.summary = report::verdict_sentence(doc);
    return res;
}

void Pipeline::publish(InvestigateResult& res) {
    res.outputs = m_outputs;
    res.outputs["verdict"] = res.verdict;
    res.outputs["report-path"] = res.report_path;
    res.outputs["result-path"] = res.result_path;
    if (m_latest && !res.outputs.count("last-good")) {
        res.outputs["relative-change"] = util::format_fixed(m_latest->relative_change, 4);
        res.outputs["last-good"] = m_latest->last_before;
        res.outputs["first-bad"] = m_latest->first_after;
    }
    const auto& done = res.investigation;
    if (!done.series.empty()) { // several series: how many, and how many regressed
        res.outputs["series"] = std::to_string(done.series.size());
        res.outputs["regressions"] =
            std::to_string(std::count_if(done.series.begin(), done.series.end(), [](const auto& s) {
                return s.result.verdict == core::Verdict::regression;
            }));
    }
    if (!done.hourly.empty()) {
        const auto& h = done.hourly.front();
        if (h.last_good && h.first_bad)
            res.outputs["window"] = util::format_iso8601(h.last_good->time) + " " +
                                    core::format_commits(h.last_good->commits) + " .. " +
                                    util::format_iso8601(h.first_bad->time) + " " +
                                    core::format_commits(h.first_bad->commits);
        if (h.culprit)
            res.outputs["culprit"] = h.culprit->repo + "@" + h.culprit->commit.sha;
    }
    append_summary(m_a.actions, res.markdown);
    if (m_verdict == core::Verdict::regression)
        annotate(m_a.actions, "error", "perfsweep: " + done.detect.metric + " regression",
                 res.summary);
    else if (m_verdict == core::Verdict::inconclusive)
        annotate(m_a.actions, "warning", "perfsweep: inconclusive", m_reason);
    comment(res);
    publish_outputs(m_a.actions, res.outputs); // last: the comment step adds comment-url etc.
    res.exit_code = core::investigate_exit_code(m_verdict, m_o.fail_on_regression);
}

void Pipeline::comment(InvestigateResult& res) {
    const auto& target = m_o.comment;
    if (target && target->number && m_verdict == core::Verdict::regression) {
        auto host = m_a.code_hosts.open(m_o.token_env);
        CommentRequest req = *target;
        req.body = res.markdown;
        req.key = m_o.key;
        const auto posted = post_sticky_comment(*host, req);
        m_a.progress.line("comment " + posted.action + ": " + posted.url);
        res.outputs["comment-url"] = posted.url;
        return;
    }
    if (!target || target->number)
        return;
    // The scheduled job's sticky issue: every night decides, a quiet one costs one lookup.
    const NightState night = night_state(m_verdict);
    if (night == NightState::undecided)
        return;
    auto host = m_a.code_hosts.open(m_o.token_env);
    StickyIssueRequest req;
    req.repo = target->repo;
    req.key = m_o.key;
    req.title = target->new_issue_title;
    req.labels = target->labels;
    req.close_on_recovery = m_o.close_on_recovery;
    const auto& det = res.investigation.detect;
    const std::string metric = det.metric.empty() ? m_o.daily_runner.metric : det.metric;
    if (res.outputs.count("last-good") && res.outputs.count("first-bad"))
        req.regression_id =
            metric + " " + res.outputs["last-good"] + ".." + res.outputs["first-bad"];
    const std::string note =
        "**Recovered** (perfsweep, " + util::format_day(today_utc(m_a.clock)) + "): " + res.summary;
    const auto r = update_sticky_issue(*host, req, night, res.markdown, note);
    m_a.progress.line("issue " + r.action + (r.url.empty() ? "" : ": " + r.url));
    if (!r.url.empty())
        res.outputs["comment-url"] = r.url;
    res.outputs["issue-action"] = r.action;
}

} // namespace

InvestigateResult run_investigate(const InvestigateOptions& o, ports::Adapters& a) {
    if (o.history.empty())
        throw_usage("investigate: --history is required (a JSON Lines file or git:BRANCH)");
    const auto held = hold_state(a.files, o.state_dir); // one investigation per --state
    Pipeline p(o, a);
    p.record_night();
    p.detect();
    for (const auto& w : p.windows())
        p.narrow_window(w);
    auto res = p.report();
    p.publish(res);
    return res;
}

} // namespace perfsweep::app
