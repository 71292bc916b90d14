#include "app/investigate.hpp"

#include "app/journal_file.hpp"
#include "app/run_point.hpp"
#include "core/command_template.hpp"
#include "core/commit_text.hpp"
#include "core/environment.hpp"
#include "core/exit_policy.hpp"
#include "core/range_verdict.hpp"
#include "report/markdown.hpp"
#include "report/result_json.hpp"
#include "util/error.hpp"
#include "util/exit_codes.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <algorithm>
#include <cmath>

namespace perfsweep::app {

namespace {

std::string verdict_word(core::Verdict v) {
    return std::string(core::to_string(v));
}

// The regression boundary of a daily sweep to narrow further: the largest decided regression.
const core::Boundary* pick_boundary(const core::DailyResult& d) {
    const core::Boundary* best = nullptr;
    for (const auto& b : d.sweep.boundaries)
        if (b.kind == core::ChangeKind::regression &&
            (!best || std::fabs(b.relative_change) > std::fabs(best->relative_change)))
            best = &b;
    return best;
}

// The recorded source commits of a daily point, as attribution reads them (commits probe, image
// labels, or the environment probe's commit.NAME lines).
std::map<std::string, std::string> point_commits(const core::DailyResult& d, std::size_t i) {
    return i < d.measurements.size() ? core::build_fingerprint(d.measurements[i]).commits
                                     : std::map<std::string, std::string>{};
}

// The UTC calendar date of `clock`'s now, "YYYY-MM-DD".
std::string today_utc(ports::Clock& clock) {
    const auto days = static_cast<std::int64_t>(std::floor(clock.now() / 86400.0));
    return util::format_date(util::civil_from_days(days));
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

} // namespace

InvestigateResult run_investigate(const InvestigateOptions& o, ports::Adapters& a) {
    if (o.history.empty())
        throw_usage("investigate: --history is required (a JSON Lines file or git:BRANCH)");
    if (o.narrow != "latest" && o.narrow != "all")
        throw_usage("--narrow '" + o.narrow + "': expected latest or all");
    if (!o.from.empty() || !o.to.empty())
        if (!util::parse_date(o.from) || !util::parse_date(o.to) || o.to < o.from)
            throw_usage("--from/--to '" + o.from + "'/'" + o.to +
                        "': expected two dates YYYY-MM-DD, --from not after --to");
    auto& progress = a.progress;
    auto& files = a.files;
    const auto held = hold_state(files, o.state_dir); // one investigation per --state
    const double started = a.clock.now();
    InvestigateResult res;
    core::Investigation inv; // the model every output is rendered from
    auto sub_state = [&](const std::string& name) {
        return o.state_dir.empty() ? std::string() : o.state_dir + "/" + name;
    };
    auto history = a.histories.open(o.history);

    std::unique_ptr<ports::BuildingRunner> runner, probe;
    auto daily_runners = [&] {
        if (runner)
            return;
        runner = a.runners.make(o.daily_runner);
        if (!o.commits_probe.empty()) {
            auto pc = o.daily_runner;
            pc.test_command = o.commits_probe;
            pc.warmup = 0;
            pc.logs_dir = o.daily_runner.logs_dir + "/probe";
            pc.env_probe = "none"; // the environment is probed by the benchmark's runner
            probe = a.runners.make(pc);
        }
    };
    auto daily_instruments = [&] {
        Instruments w;
        w.runner = runner.get();
        w.probe = probe.get();
        w.history = history.get();
        return w;
    };
    const std::vector<std::string> secrets = a.secrets.values();
    auto daily_options = [&](const std::string& from, const std::string& to,
                             const std::string& name) {
        DailyOptions d = o.daily;
        d.secrets = secrets;
        d.from = from;
        d.to = to;
        d.benchmark = o.daily_runner.benchmark;
        d.state_dir = sub_state(name);
        d.identity = "stage=" + name + "\nimage=" + o.daily_runner.image +
                     "\ntest=" + o.daily_runner.test_command +
                     "\nrepeats=" + std::to_string(d.sweep.repeats) + "\n";
        if (d.sweep.comparison == core::ComparisonKind::pass_fail)
            d.identity += "mode=exit-code\n";
        return d;
    };

    // 1. Today's point (as the nightly job records it), with its build's commits.
    long record_runs = 0; // benchmark runs of the record step (counted in the budget too)
    if (!o.record_date.empty()) {
        const std::string record_date =
            o.record_date == "today" ? today_utc(a.clock) : o.record_date;
        if (!util::parse_date(record_date))
            throw_usage("--record '" + o.record_date + "': expected a date YYYY-MM-DD or today");
        progress.line("== record: nightly " + record_date + " into " + history->describe());
        daily_runners();
        auto d = daily_options(record_date, record_date, "record-" + record_date);
        d.sweep.strategy = core::SweepStrategy::exhaustive;
        d.rerun = true; // recording measures the nightly, whatever the history holds for it
        record_runs = run_daily(d, a, daily_instruments()).sweep.runs;
    }

    // 2. Detect against the whole history.
    progress.line("== detect: " + history->describe());
    DetectRequest dr;
    dr.history = o.history;
    dr.benchmark = o.daily_runner.benchmark;
    dr.metric = o.daily_runner.metric;
    dr.direction = o.daily_runner.direction;
    if (o.daily_runner.exit_code_mode) { // the runner records failure indicators as "failed"
        dr.metric = "failed";
        dr.direction = core::Direction::lower_is_better;
    }
    dr.options.threshold = o.threshold;
    dr.allow_empty = !o.from.empty() || !o.to.empty(); // the range's sweep decides
    const auto detected = run_detect(dr, a);
    inv.detect = detected.result;
    for (const auto& w : detected.warnings)
        progress.line("warning: " + w);
    const auto& det = inv.detect;
    core::Verdict verdict = det.verdict; // an explicit range's sweep overrides it (below)
    std::string reason = det.reason;
    res.verdict = verdict_word(det.verdict);
    progress.line("detect: " + res.verdict + " — " + det.reason);

    // 3. Narrow: the window(s) detect found, or the explicit --from/--to range.
    struct Window {
        std::string from, to;
        bool explicit_range;
    };
    std::vector<Window> windows;
    std::vector<const core::ChangePoint*> todo;
    if (!o.from.empty() || !o.to.empty()) {
        if (!util::parse_date(o.from) || !util::parse_date(o.to) || o.to < o.from)
            throw_usage("--from/--to '" + o.from + "'/'" + o.to +
                        "': expected two dates YYYY-MM-DD, --from not after --to");
        windows.push_back({o.from, o.to, true});
    } else if (det.verdict == core::Verdict::regression) {
        for (auto it = det.change_points.rbegin(); it != det.change_points.rend(); ++it)
            if (it->kind == core::ChangeKind::regression) {
                todo.push_back(&*it);
                if (o.narrow == "latest")
                    break;
            }
        for (const auto* cp : todo) {
            if (!util::parse_date(cp->last_before) || !util::parse_date(cp->first_after)) {
                progress.line("cannot narrow " + cp->last_before + " → " + cp->first_after +
                              ": labels are not nightly dates (YYYY-MM-DD)");
                continue;
            }
            windows.push_back({cp->last_before, cp->first_after, false});
        }
    }
    // The latest regression detect found (a copy: `inv` moves into the result below).
    const std::optional<core::ChangePoint> latest_todo =
        todo.empty() ? std::nullopt : std::optional<core::ChangePoint>(*todo.front());
    std::unique_ptr<ports::BuildingRunner> source_runner;
    for (const auto& w : windows) {
        progress.line("== daily: " + w.from + " → " + w.to);
        daily_runners();
        auto d = daily_options(w.from, w.to, "daily-" + w.from + "-" + w.to);
        auto daily = run_daily(d, a, daily_instruments());
        daily.image = o.daily_runner.image;
        if (daily.metric.empty()) {
            daily.metric = o.daily_runner.metric;
            daily.unit = o.daily_runner.unit.empty() ? o.daily_runner.metric : o.daily_runner.unit;
        }
        // Which boundaries to narrow: the largest regression in a detect window; in an explicit
        // range the latest regression (or every one with --narrow all), latest first.
        std::vector<const core::Boundary*> bounds;
        if (!w.explicit_range) {
            if (const auto* b = pick_boundary(daily))
                bounds.push_back(b);
        } else {
            for (auto it = daily.sweep.boundaries.rbegin(); it != daily.sweep.boundaries.rend();
                 ++it)
                if (it->kind == core::ChangeKind::regression) {
                    bounds.push_back(&*it);
                    if (o.narrow == "latest")
                        break;
                }
        }
        if (w.explicit_range) {
            const auto rv = core::range_verdict(daily);
            verdict = rv.verdict;
            reason = rv.reason;
            res.verdict = verdict_word(verdict);
            progress.line("range " + w.from + " → " + w.to + ": " + res.verdict + " — " + reason);
        }
        inv.daily.push_back(daily);
        const std::size_t daily_index = inv.daily.size() - 1;
        const auto& dref = inv.daily.back();
        if (bounds.empty())
            progress.line("daily: no decided regression boundary between " + w.from + " and " +
                          w.to);
        for (const auto* b : bounds) {
            const std::string good_label = dref.sweep.points[b->last_before].label;
            const std::string bad_label = dref.sweep.points[b->first_after].label;
            // Sources, environment or both (core/environment): same sources → no hourly stage.
            const auto attr = core::attribute_boundary(dref, *b);
            inv.regressions.push_back({daily_index, good_label, bad_label, std::nullopt});
            progress.line("cause " + good_label + " → " + bad_label + ": " +
                          core::describe_attribution(attr));
            if (res.outputs.find("last-good") == res.outputs.end()) {
                res.outputs["last-good"] = good_label;
                res.outputs["first-bad"] = bad_label;
                res.outputs["relative-change"] = util::format_fixed(b->relative_change, 4);
                res.outputs["cause"] = std::string(core::to_string(attr.cause));
                std::vector<std::string> diff;
                for (const auto& c : attr.diff)
                    diff.push_back(c.component + " " + (c.before.empty() ? "absent" : c.before) +
                                   " -> " + (c.after.empty() ? "absent" : c.after));
                if (!diff.empty())
                    res.outputs["environment-diff"] = util::join(diff, "; ");
            }
            if (attr.cause == core::Cause::environment) {
                progress.line("hourly skipped: nightlies " + good_label + " and " + bad_label +
                              " were built from the same source commits; the change is "
                              "environmental");
                continue;
            }
            if (!o.hourly || o.hourly_options.repos.empty())
                continue;
            if (attr.cause == core::Cause::both)
                progress.line("sources and environment both changed: the sources are narrowed "
                              "inside the last good nightly " +
                              good_label + ", holding its environment");
            auto good = point_commits(dref, b->last_before);
            auto bad = point_commits(dref, b->first_after);
            HourlyOptions h = o.hourly_options;
            h.secrets = secrets;
            bool have_all = true;
            for (const auto& r : h.repos) {
                if (!good.count(r.name) || !bad.count(r.name)) {
                    progress.line("hourly skipped: nightlies " + good_label + " and " + bad_label +
                                  " carry no recorded commit for repo '" + r.name +
                                  "' (set --commits-probe)");
                    have_all = false;
                    break;
                }
                h.good_commits[r.name] = good.at(r.name);
                h.bad_commits[r.name] = bad.at(r.name);
            }
            if (!have_all)
                continue;
            progress.line("== hourly: " + core::format_commits(h.good_commits) + " → " +
                          core::format_commits(h.bad_commits));
            h.state_dir = sub_state("hourly-" + good_label + "-" + bad_label);
            h.settings_key = "build=" + o.hourly_runner.build_command +
                             " test=" + o.hourly_runner.test_command +
                             " repeats=" + std::to_string(h.repeats);
            h.direction = o.hourly_runner.direction;
            if (h.exit_code_mode)
                h.settings_key += " mode=exit-code";
            // The source states are rebuilt inside the last good nightly's environment.
            auto rc = o.hourly_runner;
            rc.image = core::expand_image(rc.image, good_label);
            source_runner = a.runners.make(rc);
            Instruments hw;
            hw.builder = source_runner.get();
            hw.runner = source_runner.get();
            auto hourly = run_hourly(h, a, hw);
            source_runner.reset(); // a kept container is stopped and removed here
            if (hourly.metric.empty())
                hourly.metric = o.hourly_runner.metric;
            if (hourly.unit.empty())
                hourly.unit = o.hourly_runner.unit.empty() ? hourly.metric : o.hourly_runner.unit;
            inv.hourly.push_back(std::move(hourly));
            inv.regressions.back().hourly = inv.hourly.size() - 1;
        }
    }

    // 4. Report: the investigation, rendered to markdown and JSON from the same model.
    // `verdict` is the pipeline's (an explicit range's sweep decides it); `detect` keeps its own.
    inv.verdict = verdict;
    inv.reason = reason;
    inv.spend.runs = record_runs; // the record step's runs count too
    for (const auto& d : inv.daily)
        inv.spend.runs += d.sweep.runs;
    for (const auto& h : inv.hourly) {
        inv.spend.runs += h.spend.runs;
        inv.spend.builds += h.spend.builds;
        inv.spend.resumed_runs += h.spend.resumed_runs;
        inv.spend.resumed_builds += h.spend.resumed_builds;
    }
    inv.spend.seconds = a.clock.now() - started;
    if (!o.reproduce.empty())
        inv.reproduce.push_back(o.reproduce);
    files.make_dirs(o.out_dir);
    res.result_path = o.out_dir + "/result.json";
    res.report_path = o.out_dir + "/report.md";
    res.investigation = std::move(inv);
    const core::ResultDocument doc = res.investigation;
    files.write_atomic(res.result_path, report::render_json(doc));
    report::MarkdownOptions mo;
    mo.key = o.key;
    res.markdown = report::render_markdown(doc, mo);
    files.write_atomic(res.report_path, res.markdown);
    res.summary = report::verdict_sentence(doc);
    const auto& done = res.investigation;

    // 5. Outputs, summary, annotations, comment.
    res.outputs["verdict"] = res.verdict;
    res.outputs["report-path"] = res.report_path;
    res.outputs["result-path"] = res.result_path;
    if (latest_todo && res.outputs.find("last-good") == res.outputs.end()) {
        res.outputs["relative-change"] = util::format_fixed(latest_todo->relative_change, 4);
        res.outputs["last-good"] = latest_todo->last_before;
        res.outputs["first-bad"] = latest_todo->first_after;
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
    append_summary(a.actions, res.markdown);
    if (verdict == core::Verdict::regression)
        annotate(a.actions, "error", "perfsweep: " + done.detect.metric + " regression",
                 res.summary);
    else if (verdict == core::Verdict::inconclusive)
        annotate(a.actions, "warning", "perfsweep: inconclusive", reason);
    if (o.comment && o.comment->number && verdict == core::Verdict::regression) {
        auto host = a.code_hosts.open(o.token_env);
        CommentRequest req = *o.comment;
        req.body = res.markdown;
        req.key = o.key;
        const auto posted = post_sticky_comment(*host, req);
        progress.line("comment " + posted.action + ": " + posted.url);
        res.outputs["comment-url"] = posted.url;
    } else if (o.comment && !o.comment->number) {
        // The scheduled job's sticky issue: every night decides, a quiet one costs one lookup.
        const NightState night = night_state(verdict);
        if (night != NightState::undecided) {
            auto host = a.code_hosts.open(o.token_env);
            StickyIssueRequest req;
            req.repo = o.comment->repo;
            req.key = o.key;
            req.title = o.comment->new_issue_title;
            req.labels = o.comment->labels;
            req.close_on_recovery = o.close_on_recovery;
            const std::string metric = det.metric.empty() ? o.daily_runner.metric : det.metric;
            if (res.outputs.count("last-good") && res.outputs.count("first-bad"))
                req.regression_id =
                    metric + " " + res.outputs["last-good"] + ".." + res.outputs["first-bad"];
            const std::string note =
                "**Recovered** (perfsweep, " + today_utc(a.clock) + "): " + res.summary;
            const auto r = update_sticky_issue(*host, req, night, res.markdown, note);
            progress.line("issue " + r.action + (r.url.empty() ? "" : ": " + r.url));
            if (!r.url.empty())
                res.outputs["comment-url"] = r.url;
            res.outputs["issue-action"] = r.action;
        }
    }
    publish_outputs(a.actions, res.outputs); // last: the comment step adds comment-url etc.

    res.exit_code = core::investigate_exit_code(verdict, o.fail_on_regression);
    return res;
}

} // namespace perfsweep::app
