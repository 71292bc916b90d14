// The whole pipeline in-process with the in-memory ports (tests/support/fakes): record today's
// nightly → detect against the history → daily → hourly → commit → report → sticky comment, with
// a scripted benchmark whose metric drops at one commit of an in-memory repo. What the demo and
// the demo-world integration tests showed by spawning perfsweep over real git repos and shell
// benchmarks (20-29 s each under ASan), checked here in milliseconds; the binary's own runs of
// the real adapters stay in tests/integration.
#include "adapters/json/result_json.hpp"
#include "app/daily.hpp"
#include "app/dashboard.hpp"
#include "app/investigate.hpp"
#include "app/options.hpp"
#include "report/dashboard_html.hpp"
#include "support/fakes/world.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <vector>

using namespace perfsweep;

namespace {

constexpr util::UnixSeconds k_may1 = 1714521600; // 2024-05-01T00:00:00Z
constexpr util::UnixSeconds k_culprit_at = k_may1 + 12 * 86400 + 13 * 3600 + 600; // 05-13 13:10

/// A nightly per date built from the xla commit at midnight; from commit `culprit` on the
/// benchmark is 7 % slower. The commits probe prints the nightly's commit, like `git log -1`.
struct Pipeline {
    fakes::World w;
    fakes::CommitLine xla = fakes::make_line("xla", "/src/xla", k_may1 - 3600, 36 * 20, 2400);
    std::size_t culprit = 0;
    double slow = 536.6; ///< the benchmark from the culprit on (-7 %)

    explicit Pipeline(util::UnixSeconds culprit_time) {
        culprit = xla.at_time(culprit_time) + 1;
        xla.remote = "https://github.com/acme/xla.git";
        w.repos.add(xla);
        w.clock.t = static_cast<double>(k_may1 + 16 * 86400 + 3 * 3600); // 2024-05-17 03:00
        w.runners.run = [this](const ports::PointRequest& r, int repeat) {
            const std::size_t c = r.commits.count("xla") ? xla.index_of(r.commits.at("xla"))
                                                         : nightly_commit(r.label);
            const double noise = 1 + 0.0004 * ((repeat * 7 + static_cast<int>(c)) % 3 - 1);
            return fakes::Run::of((c >= culprit ? slow : 577.0) * noise);
        };
        w.runners.command = [this](const ports::PointRequest& r) {
            const auto& c = xla.commits.at(nightly_commit(r.label));
            return ports::CommandOutcome{
                true, "", "xla " + c.sha + " " + util::format_iso8601(c.time) + "\n", ""};
        };
        w.code_hosts.tokens["GITHUB_TOKEN"] = "ghs_faketoken";
        auto& pr = w.code_hosts.data.repos["acme/lbm"][42];
        pr.issue.number = 42;
        pr.issue.title = "nightly perf";
    }
    std::size_t nightly_commit(const std::string& date) const {
        return xla.at_time(util::days_from_civil(*util::parse_date(date)) * 86400);
    }
    /// The options a user gives `perfsweep investigate`, resolved by the CLI's rules.
    app::InvestigateOptions options(const std::vector<std::pair<std::string, std::string>>& more) {
        app::OptionValues v(*app::find_command_spec("investigate"));
        v.set("history", "history.jsonl");
        v.set("image", "nightly:{date}");
        v.set("test", "bench {image}");
        v.set("metric", "MLUPS");
        v.set("benchmark", "lbm");
        v.set("env-probe", "none");
        v.set("commits-probe", "git -C /opt/xla log -1 --format='xla %H %cI'");
        v.set("repeats", "3");
        v.set("record", "2024-05-16");
        v.set("repo", std::vector<std::string>{"xla=/src/xla"});
        v.set("step", "1h");
        v.set("hourly-repeats", "3");
        v.set_flag("to-commit");
        v.set("build", "build-xla {path:xla}");
        v.set("hourly-test", "bench {path:xla}");
        v.set("output-dir", "out");
        v.set("key", "lbm");
        for (const auto& [k, val] : more) // "" = a flag
            if (val.empty())
                v.set_flag(app::OptionName::checked(k));
            else
                v.set(app::OptionName::checked(k), val);
        v.check();
        return app::resolve_investigate(v, {"acme/lbm", &w.actions}).options;
    }
    /// The earlier nightly jobs: `first` .. `last` recorded, one measurement per night.
    void record_history(const std::string& last, const std::string& first = "2024-05-01") {
        auto o = options({});
        auto runner = w.runners.make(o.daily_runner);
        auto probe = w.runners.make(app::commits_probe_runner(o.daily_runner, o.commits_probe));
        auto history = w.histories.open("history.jsonl");
        app::DailyOptions past;
        past.dates = {*util::parse_day(first), *util::parse_day(last)};
        past.benchmark = "lbm";
        past.sweep = o.daily.sweep;
        past.sweep.strategy = core::SweepStrategy::exhaustive;
        app::run_daily(past, w.adapters, {*runner, probe.get(), history.get()});
        w.runners.log = {};
    }
    /// The one hourly stage of `inv`, checked to name this pipeline's culprit.
    const core::HourlyResult& culprit_found(const core::Investigation& inv) const {
        REQUIRE(inv.hourly.size() == 1);
        const auto& h = inv.hourly[0];
        INFO(h.message);
        REQUIRE(h.culprit);
        CHECK(h.culprit->commit.sha == xla.sha(culprit));
        return h;
    }
};

/// The pipeline most cases start from: the culprit a commit of 2024-05-13 13:10, the nightlies up
/// to 2024-05-15 recorded.
struct Recorded : Pipeline {
    Recorded() : Pipeline(k_culprit_at) { record_history("2024-05-15"); }
};

/// The "outputs:" progress lines, in order.
std::vector<std::string> outputs_lines(const std::vector<std::string>& lines) {
    std::vector<std::string> out;
    for (const auto& l : lines)
        if (l.rfind("outputs: ", 0) == 0)
            out.push_back(l);
    return out;
}

} // namespace

TEST_CASE("investigate in-process: detect, daily, hourly and commit stages name the culprit",
          "[usecase][investigate]") {
    Recorded p;
    auto o = p.options({{"comment", ""}, {"pr", "42"}, {"fail-on-regression", ""}});
    const auto r = app::run_investigate(o, p.w.adapters);
    INFO(p.w.progress.lines.size());
    CHECK(r.verdict == "regression");
    CHECK(r.exit_code == 1); // --fail-on-regression
    const auto& inv = r.investigation;
    REQUIRE(inv.daily.size() == 1);
    REQUIRE(inv.regressions.size() == 1);
    CHECK(inv.regressions[0].last_good == "2024-05-13");
    CHECK(inv.regressions[0].first_bad == "2024-05-14");
    const auto& h = p.culprit_found(inv);
    CHECK(h.culprit->repo == "xla");
    CHECK(r.outputs.at("culprit") == "xla@" + p.xla.sha(p.culprit));
    CHECK(r.outputs.at("last-good") == "2024-05-13");
    // Every run and build the scripted runner did is counted once in the investigation's spend:
    // today's record, the daily sweep and the hourly + commit stages.
    CHECK(inv.spend.runs == p.w.runners.log.total_runs());
    CHECK(inv.spend.builds == p.w.runners.log.total_builds());
    for (const auto& [state, n] : p.w.runners.log.builds) {
        INFO(state);
        CHECK(n == 1); // no source state built twice
    }
    // The source states were rebuilt inside the last good nightly.
    CHECK(p.w.runners.log.configs.back().image == "nightly:2024-05-13");
    // report.md and result.json are rendered from the same model; result.json reads back.
    const auto& md = p.w.files.files.at("out/report.md");
    // The culprit is named as OWNER/NAME from the repo's remote, with its compare link.
    CHECK_THAT(md, Catch::Contains("culprit: acme/xla@" + p.xla.sha(p.culprit).substr(0, 7)));
    CHECK_THAT(md, Catch::Contains("https://github.com/acme/xla/compare/"));
    const auto doc =
        adapters::read_result_document(p.w.files.files.at("out/result.json"), "out/result.json");
    const auto* back = std::get_if<core::Investigation>(&doc);
    REQUIRE(back);
    REQUIRE(back->hourly.size() == 1);
    CHECK(back->hourly[0].culprit->commit.sha == h.culprit->commit.sha);
    // The report went to the PR as one sticky comment (the token stays out of it).
    const auto& comments = p.w.code_hosts.data.repos["acme/lbm"][42].comments;
    REQUIRE(comments.size() == 1);
    CHECK_THAT(comments[0].body, Catch::Contains("<!-- perfsweep:lbm -->"));
    CHECK(comments[0].body.find("ghs_faketoken") == std::string::npos);
    // The benchmarks never inherit the token.
    CHECK(p.w.secrets.protected_names.empty()); // the CLI protects it (cmd_investigate)

    SECTION("a second run resumes nothing new and updates the same comment") {
        p.w.runners.log = {};
        o.record.reset();
        const auto again = app::run_investigate(o, p.w.adapters);
        CHECK(again.outputs.at("culprit") == r.outputs.at("culprit"));
        CHECK(p.w.code_hosts.data.repos["acme/lbm"][42].comments.size() == 1);
    }
}

TEST_CASE(
    "investigate in-process: a rerun resumes its journals, one with another metric starts new "
    "ones",
    "[usecase][investigate][resume]") {
    // Each stage's journal names what its results depend on (journal_identity): the same command
    // resumes every stage; another metric must not reuse the runs measured for the first one (the
    // investigate journals used to leave out metric, runtime and image, and resumed them).
    // An explicit range: detect needs no history of the other metric.
    Pipeline p(k_culprit_at);
    auto rerun = [&p](std::vector<std::pair<std::string, std::string>> more) {
        more.insert(more.end(), {{"from", "2024-05-08"}, {"to", "2024-05-16"}});
        auto o = p.options(more);
        o.record.reset();
        p.w.progress.lines.clear();
        p.w.runners.log = {};
        return app::run_investigate(o, p.w.adapters);
    };
    auto resumed = [&p] {
        std::size_t n = 0;
        for (const auto& l : p.w.progress.lines)
            n += l.rfind("resuming from st/", 0) == 0 ? 1 : 0;
        return n;
    };
    const auto first = rerun({{"state", "st"}});
    REQUIRE(first.investigation.hourly.size() == 1);
    REQUIRE(first.investigation.hourly[0].culprit);
    CHECK(resumed() == 0);

    const auto same = rerun({{"state", "st"}});
    CHECK(resumed() == 2); // the daily and the hourly stage
    CHECK(same.investigation.daily.at(0).resumed_runs > 0);
    CHECK(same.investigation.hourly.at(0).spend.resumed_builds > 0);
    CHECK(p.w.runners.log.total_builds() == 0);

    const auto other = rerun({{"state", "st"}, {"metric", "MLUPS_fp16"}});
    INFO(util::join(p.w.progress.lines, "\n"));
    CHECK(resumed() == 0);
    REQUIRE(other.investigation.daily.size() == 1);
    CHECK(other.investigation.daily[0].resumed_runs == 0);
    REQUIRE(other.investigation.hourly.size() == 1);
    CHECK(other.investigation.hourly[0].spend.resumed_runs == 0);
    CHECK(other.investigation.hourly[0].spend.resumed_builds == 0);
    CHECK(p.w.runners.log.total_builds() > 0);
    std::size_t journals = 0;
    for (const auto& [path, text] : p.w.files.files)
        journals += path.size() > 12 && path.rfind("/journal.tsv") == path.size() - 12 ? 1 : 0;
    CHECK(journals == 4); // daily and hourly, for each metric
}

TEST_CASE("investigate in-process: hourly window ends too noisy in their first runs get more runs "
          "before the stage says no change",
          "[usecase][investigate][hourly]") {
    // The nightlies are quiet; inside the container the first runs of every source state are
    // +3 %, -3 %, 0 %, +3 % (a cold cache, a clock boost) and later runs quiet. 3 runs per window
    // end of the 7 % step give p ~ 0.05: metric mode used to stop there with "the window ends do
    // not differ significantly" (what 3 H200 runs of a -3.8 % step did), while the nightlies had
    // shown the step. The culprit (14:20) is one of two commits of the hour 14:00 -> 15:00.
    Pipeline p(k_may1 + 12 * 86400 + 14 * 3600 + 600);
    p.record_history("2024-05-15");
    const auto quiet = p.w.runners.run;
    p.w.runners.run = [&p, quiet](const ports::PointRequest& r, int repeat) {
        auto run = quiet(r, repeat);
        if (r.commits.count("xla") && repeat < 4) // +3 %, -3 %, 0, +3 %: warmup or not
            run.value *= 1 + 0.03 * (repeat % 3 == 0 ? 1 : repeat % 3 == 1 ? -1 : 0);
        return run;
    };
    auto o = p.options({});
    const auto r = app::run_investigate(o, p.w.adapters);
    const auto& lines = p.w.progress.lines;
    CHECK(std::any_of(lines.begin(), lines.end(), [](const std::string& l) {
        return l.find("window ends undecided (change -7.") != std::string::npos &&
               l.find("): 3 more runs each") != std::string::npos;
    }));
    // The output links are announced when they change: the hourly window, then the commit
    // stage's pair.
    const auto announced = outputs_lines(lines);
    CHECK(announced.size() == 2);
    CHECK(std::adjacent_find(announced.begin(), announced.end()) == announced.end());
    p.culprit_found(r.investigation);
}

TEST_CASE("investigate in-process: the output links are announced once when the commit stage "
          "confirms the hourly window",
          "[usecase][investigate][hourly]") {
    // Commits every 40 minutes (:20, :00, :40), hourly states at whole hours: the window 13:00
    // -> 14:00 of 2024-05-13 holds one commit (13:40), the culprit, so the commit stage confirms
    // the hourly pair.
    Pipeline p(k_may1 + 12 * 86400 + 13 * 3600 + 1800);
    p.record_history("2024-05-15");
    const auto r = app::run_investigate(p.options({}), p.w.adapters);
    REQUIRE(r.outputs.count("culprit"));
    CHECK(r.outputs.at("culprit") == "xla@" + p.xla.sha(p.culprit));
    INFO(util::join(p.w.progress.lines, "\n"));
    CHECK(outputs_lines(p.w.progress.lines).size() == 1);
}

TEST_CASE("investigate in-process: a healthy history is no regression and posts nothing",
          "[usecase][investigate]") {
    Pipeline p(k_may1 + 40 * 86400); // after every nightly
    p.record_history("2024-05-15");
    auto o = p.options({{"comment", ""}, {"pr", "42"}, {"fail-on-regression", ""}});
    const auto r = app::run_investigate(o, p.w.adapters);
    CHECK(r.verdict == "no_regression");
    CHECK(r.exit_code == 0);
    CHECK(r.investigation.daily.empty());
    CHECK(p.w.runners.log.total_builds() == 0);
    CHECK(p.w.runners.log.total_runs() == 3); // today's record only
}

TEST_CASE("investigate in-process: an explicit release range is decided by its sweep",
          "[usecase][investigate]") {
    // Between two releases with an empty history: detect has nothing to judge, so the verdict,
    // exit code and outputs follow the range's daily sweep.
    auto range = [](util::UnixSeconds culprit_time) {
        auto p = std::make_unique<Pipeline>(culprit_time);
        p->w.actions.active = true;
        auto o =
            p->options({{"from", "2024-05-01"}, {"to", "2024-05-16"}, {"fail-on-regression", ""}});
        o.record.reset();
        o.hourly = false;
        const auto r = app::run_investigate(o, p->w.adapters);
        return std::make_pair(std::move(p), r);
    };
    const auto [p, r] = range(k_may1 + 8 * 86400 + 3600); // nightly 2024-05-10 is the first bad
    const auto& lines = p->w.progress.lines;
    CHECK(std::count(lines.begin(), lines.end(),
                     "detect: inconclusive — no measurement of this benchmark in the history "
                     "yet") == 1);
    auto has_line = [](const std::vector<std::string>& ls, const std::string& part) {
        return std::any_of(ls.begin(), ls.end(),
                           [&](const std::string& l) { return l.find(part) != std::string::npos; });
    };
    CHECK(has_line(lines, "range 2024-05-01 → 2024-05-16: regression"));
    CHECK(r.verdict == "regression");
    CHECK(r.exit_code == 1);
    CHECK(p->w.actions.outputs.at("verdict") == "regression");
    CHECK(p->w.actions.outputs.at("last-good") == "2024-05-09");
    CHECK(p->w.actions.outputs.at("first-bad") == "2024-05-10");
    CHECK(p->w.files.files.at("out/result.json")
              .rfind("{\n  \"kind\": \"investigate\",\n  \"format_version\": 2,\n  "
                     "\"verdict\": \"regression\",",
                     0) == 0);
    CHECK_THAT(p->w.files.files.at("out/report.md"),
               Catch::Contains("between nightly 2024-05-09 and 2024-05-10"));
    CHECK_THAT(p->w.actions.summary, Catch::Contains("2024-05-10"));
    // The sweep's measurements went into the history (the next run has something to detect
    // on); a clear step needs no escalation: no nightly ran more than --repeats times.
    const auto& stored = p->w.histories.at("history.jsonl").records;
    CHECK(!stored.empty());
    for (const auto& [label, n] : p->w.runners.log.runs) {
        INFO(label);
        CHECK(n <= 3);
    }
    CHECK(p->w.runners.log.total_builds() == 0);

    // The same range without a change: no_regression, exit 0.
    const auto [q, same] = range(k_may1 + 40 * 86400);
    CHECK(same.verdict == "no_regression");
    CHECK(same.exit_code == 0);
    CHECK(q->w.actions.outputs.at("verdict") == "no_regression");
    CHECK(has_line(q->w.progress.lines, "no level change between the"));

    // A range backwards is refused with the flags named, before anything runs.
    Pipeline bad(k_may1);
    CHECK_THROWS_WITH(
        app::run_investigate(bad.options({{"from", "2024-05-30"}, {"to", "2024-05-01"}}),
                             bad.w.adapters),
        Catch::Contains("--from/--to"));
    CHECK(bad.w.runners.log.total_runs() == 0);
}

TEST_CASE("investigate in-process on schedule events keeps one sticky issue: opened, updated, "
          "recovered",
          "[usecase][investigate][issue]") {
    Recorded p;
    p.w.actions.active = true;
    p.w.actions.target.event_name = "schedule";
    p.w.actions.target.why_none = "a schedule event has no issue or PR";
    auto o = p.options({{"comment", ""}, {"key", "nightly-mlups"}});
    REQUIRE(o.comment);
    CHECK(o.comment->new_issue_title == "perfsweep: MLUPS regression");
    auto& issues = p.w.code_hosts.data.repos["acme/lbm"];
    // Night 1: the regression opens the issue.
    app::run_investigate(o, p.w.adapters);
    REQUIRE(issues.size() == 2); // the PR of the fixture and the new issue
    const auto& opened = issues.rbegin()->second;
    CHECK(opened.issue.title == "perfsweep: MLUPS regression");
    CHECK(opened.labels == std::vector<std::string>{"perfsweep"});
    CHECK_THAT(opened.issue.body,
               Catch::Contains("<!-- perfsweep:nightly-mlups -->") && Catch::Contains("acme/xla@"));
    CHECK(p.w.actions.outputs.at("issue-action") == "issue-created");
    CHECK(p.w.actions.outputs.at("comment-url") == opened.issue.url);
    // Night 2: still the same regression; the same issue, no second one.
    o.record.reset();
    app::run_investigate(o, p.w.adapters);
    CHECK(issues.size() == 2);
    // Night 3: healthy (a flat history): the issue is told, and closed on request.
    auto& flat = p.w.histories.at("flat.jsonl").records;
    for (int i = 1; i <= 12; ++i) {
        core::Measurement m;
        m.benchmark = "lbm";
        m.metric = "MLUPS";
        m.unit = "MLUPS";
        m.label = "2024-05-" + std::string(i < 10 ? "0" : "") + std::to_string(i);
        m.values = {577.0 + i % 3};
        flat.push_back(m);
    }
    auto healthy =
        p.options({{"comment", ""}, {"key", "nightly-mlups"}, {"close-on-recovery", ""}});
    healthy.history = "flat.jsonl";
    healthy.record.reset();
    const auto r = app::run_investigate(healthy, p.w.adapters);
    CHECK(r.verdict == "no_regression");
    const auto& closed = issues.rbegin()->second;
    CHECK(issues.size() == 2);
    CHECK(closed.issue.state == "closed");
    REQUIRE(closed.comments.size() == 1);
    CHECK_THAT(closed.comments[0].body, Catch::Contains("**Recovered**"));
}

TEST_CASE("investigate in-process: the detected drop is narrowed first and its hourly stage "
          "starts before the rest of the range is covered",
          "[usecase][investigate][focus]") {
    // The history holds 05-01..05-04 (577), 05-15 and tonight's 05-16 (536.6): detect reports the
    // drop 05-04 → 05-15. In the range 05-05..05-16 the nightlies also dip 3 % on 05-07..05-09,
    // which no history shows. The sweep decides the drop's boundary (05-13 | 05-14) first, the
    // hourly stage runs on it, then the sweep covers the rest and still reports the dip's
    // boundaries.
    Pipeline p(k_culprit_at);
    const auto script = p.w.runners.run;
    p.w.runners.run = [script](const ports::PointRequest& r, int repeat) {
        auto run = script(r, repeat);
        if (r.label >= "2024-05-07" && r.label <= "2024-05-09")
            run.value *= 0.97;
        return run;
    };
    p.record_history("2024-05-04");
    p.record_history("2024-05-15", "2024-05-15");
    auto o = p.options({{"from", "2024-05-05"}, {"to", "2024-05-16"}});
    const auto r = app::run_investigate(o, p.w.adapters);
    INFO(util::join(p.w.progress.lines, "\n"));
    const auto& inv = r.investigation;
    p.culprit_found(inv);
    REQUIRE(inv.regressions.size() == 1);
    CHECK(inv.regressions[0].first_bad == "2024-05-14");
    // The order of the runs: the daily points (dates) before the first hourly point (a time)
    // decided the drop; the rest of the range was covered after the hourly stage.
    const auto& points = p.w.runners.log.points;
    const auto first_hourly = std::find_if(points.begin(), points.end(), [](const auto& q) {
        return q.label.find('T') != std::string::npos;
    });
    REQUIRE(first_hourly != points.end());
    std::set<std::string> before, after;
    for (auto it = points.begin(); it != points.end(); ++it)
        if (it->label.size() == 10 && it->label < "2024-05-15") // a nightly of the range
            (it < first_hourly ? before : after).insert(it->label);
    CHECK(before.size() <= 5);
    CHECK(!after.empty());
    // The whole sweep: the dip's two boundaries and the drop, each announced when decided.
    REQUIRE(inv.daily.size() == 1);
    std::vector<std::string> found;
    for (const auto& b : inv.daily[0].sweep.boundaries)
        found.push_back(inv.daily[0].sweep.points[b.last_before].label + "|" +
                        inv.daily[0].sweep.points[b.first_after].label + " " +
                        std::string(core::to_string(b.kind)));
    CHECK(found == std::vector<std::string>{"2024-05-06|2024-05-07 regression",
                                            "2024-05-09|2024-05-10 improvement",
                                            "2024-05-13|2024-05-14 regression"});
    const auto& lines = p.w.progress.lines;
    CHECK(std::count_if(lines.begin(), lines.end(), [](const std::string& l) {
              return l.rfind("boundary 2024-05-13 → 2024-05-14: regression", 0) == 0;
          }) == 1);
}

TEST_CASE("investigate in-process: the first bad night, one new point, is measured again and "
          "narrowed to the culprit in the same run",
          "[usecase][investigate]") {
    // The culprit lands on 2024-05-15 13:40: the nightly of 05-16 (recorded now) is the first and
    // only point of the new level, 6 % down. One point cannot tell an outlier from a new level;
    // the same nightly measured again can.
    Pipeline p(k_may1 + 14 * 86400 + 13 * 3600 + 1800);
    p.slow = 577.0 * 0.94;
    p.record_history("2024-05-15");
    const auto r = app::run_investigate(p.options({}), p.w.adapters);
    INFO(util::join(p.w.progress.lines, "\n"));
    CHECK(r.verdict == "regression");
    CHECK_THAT(r.investigation.detect.reason,
               Catch::Contains("the nightly 2024-05-16 measured again") &&
                   Catch::Contains("first point of a new level"));
    REQUIRE(r.investigation.regressions.size() == 1);
    CHECK(r.investigation.regressions[0].last_good == "2024-05-15");
    CHECK(r.investigation.regressions[0].first_bad == "2024-05-16");
    REQUIRE(r.outputs.count("culprit"));
    CHECK(r.outputs.at("culprit") == "xla@" + p.xla.sha(p.culprit));
    // Every run is counted: the record, the new runs of 05-16, the daily and the source stages.
    CHECK(r.investigation.spend.runs == p.w.runners.log.total_runs());
    CHECK(p.w.runners.log.runs.at("2024-05-16") >= 6);
}

TEST_CASE("investigate in-process: a lone low newest point that is back at the level when "
          "measured again is a transient outlier",
          "[usecase][investigate]") {
    Pipeline p(k_may1 + 40 * 86400); // no culprit in these nightlies
    p.record_history("2024-05-15");
    const auto quiet = p.w.runners.run;
    int runs_of_16 = 0;
    p.w.runners.run = [&](const ports::PointRequest& r, int repeat) {
        auto run = quiet(r, repeat);
        if (r.label == "2024-05-16" && runs_of_16++ < 3) // a bad hour of the machine
            run.value *= 0.93;
        return run;
    };
    const auto r = app::run_investigate(p.options({}), p.w.adapters);
    INFO(util::join(p.w.progress.lines, "\n"));
    CHECK(r.verdict == "no_regression");
    CHECK_THAT(r.investigation.detect.reason, Catch::Contains("transient outlier"));
    CHECK(r.investigation.daily.empty());
    CHECK(p.w.runners.log.total_builds() == 0);
    CHECK(runs_of_16 == 6); // the record's 3 runs and 3 more
}

TEST_CASE("investigate keeps its result beside the history: the dashboard marks its window, hour "
          "and culprit, and the comment links the series' page and chart",
          "[usecase][investigate][dashboard]") {
    Recorded p;
    auto o =
        p.options({{"comment", ""}, {"pr", "42"}, {"dashboard-url", "https://acme.github.io/lbm"}});
    const auto r = app::run_investigate(o, p.w.adapters);
    REQUIRE(r.outputs.count("culprit"));
    // Kept beside the history, named by its window and series.
    const auto& beside = p.w.histories.at("history.jsonl").beside;
    REQUIRE(beside.size() == 1);
    const std::string kept = beside.begin()->first;
    CHECK(kept.rfind("investigations/2024-05-13_2024-05-14_lbm-mlups-", 0) == 0);
    // The dashboard of that history draws the investigation on its series' chart.
    app::DashboardRequest d;
    d.history = "history.jsonl";
    d.out_dir = "site";
    const auto res = app::run_dashboard(d, p.w.adapters, adapters::read_result_document);
    CHECK(res.series == 1);
    CHECK(res.investigations == 1);
    // The series' points are the nightlies': the rebuilt states the hourly stage keeps in the
    // history as evidence (issue 31) are no points of it (one rule with detect).
    const auto& stored = p.w.histories.at("history.jsonl").records;
    std::set<std::string> nightlies; // a point is a label: its records pool
    for (const auto& m : stored)
        if (m.stage != core::Stage::hourly && m.stage != core::Stage::commit)
            nightlies.insert(m.label);
    REQUIRE(std::any_of(stored.begin(), stored.end(),
                        [](const auto& m) { return m.stage == core::Stage::hourly; }));
    const auto model = app::build_dashboard(stored, {}, app::Threshold{});
    REQUIRE(model.series.size() == 1);
    CHECK(model.series[0].points.size() == nightlies.size());
    const auto key = core::investigation_series(r.investigation);
    const std::string& page = p.w.files.files.at("site/" + report::series_page(key));
    const std::string sha = p.xla.sha(p.culprit);
    CHECK_THAT(page, Catch::Contains("class=\"mk-nightly\"") &&
                         Catch::Contains("data-from=\"2024-05-13\" data-to=\"2024-05-14\""));
    CHECK_THAT(page,
               Catch::Contains("class=\"mk-hour\"") && Catch::Contains("data-sha=\"" + sha + "\""));
    CHECK_THAT(page, Catch::Contains("https://github.com/acme/xla/commit/" + sha));
    CHECK(p.w.files.files.count("site/" + report::series_image(key)));
    CHECK(p.w.files.files.count("site/investigations/" + kept.substr(15, kept.size() - 20) +
                                ".html"));
    // The sticky comment links that page and shows that chart.
    const auto& comments = p.w.code_hosts.data.repos["acme/lbm"][42].comments;
    REQUIRE(comments.size() == 1);
    CHECK_THAT(
        comments[0].body,
        Catch::Contains("(https://acme.github.io/lbm/" + report::series_page(key) + ")") &&
            Catch::Contains("(https://acme.github.io/lbm/" + report::series_image(key) + ")"));

    SECTION("published into a branch: the site's files beside that branch's history") {
        d.publish = "gh-pages";
        d.publish_dir = "perf";
        CHECK(app::run_dashboard(d, p.w.adapters, adapters::read_result_document).published ==
              "gh-pages:perf");
        const auto& site = p.w.histories.at("gh-pages").beside;
        CHECK(site.count(".nojekyll"));
        CHECK(site.count("perf/index.html"));
        CHECK(site.at("perf/" + report::series_page(key)) == page);
    }
    SECTION("a store that cannot keep it is a warning, not a failed investigation") {
        struct Refusing final : ports::HistoryStore {
            ports::HistoryLoad load() override { return {}; }
            void append(const std::vector<core::Measurement>&) override {}
            std::size_t append_missing(const std::vector<core::Measurement>&) override { return 0; }
            void write_beside(const std::vector<ports::SideFile>&) override {
                throw_infra("push rejected");
            }
            std::vector<ports::SideFile> read_beside(const std::string&) override { return {}; }
            std::string describe() const override { return "refusing"; }
        } refusing;
        CHECK(app::keep_investigation(refusing, r.investigation, p.w.progress).empty());
        CHECK_THAT(p.w.progress.lines.back(), Catch::Contains("warning: the result was not kept") &&
                                                  Catch::Contains("push rejected"));
    }
}

TEST_CASE("investigate in-process: a --state another perfsweep holds stops before anything runs "
          "(issue 29)",
          "[usecase][investigate][locks]") {
    // Two investigations on one --state measured every date twice; the lock is held for the whole
    // pipeline (its daily and hourly stages take it again within the process).
    Pipeline p(k_culprit_at);
    auto o = p.options({{"state", "st"}, {"from", "2024-05-08"}, {"to", "2024-05-16"}});
    p.w.files.held_elsewhere.insert("st");
    CHECK_THROWS_WITH(app::run_investigate(o, p.w.adapters), Catch::Contains("holds --state st"));
    CHECK(p.w.runners.log.total_runs() == 0);
    p.w.files.held_elsewhere.clear();
    o.record.reset();
    app::run_investigate(o, p.w.adapters);
    CHECK(p.w.files.locked.at("st") >= 1);
}

namespace {

/// Runs and builds the scripted runner spent on the source state `commits` (the hourly and
/// commit stages' requests carry their commits; the nightlies' do not).
std::pair<long, long> spent_on(const fakes::World& w,
                               const std::map<std::string, std::string>& commits) {
    long runs = 0;
    for (const auto& r : w.runners.log.points)
        runs += r.commits == commits ? std::max(1, r.repeats) : 0;
    const auto b = w.runners.log.builds.find(fakes::state_key(commits));
    return {runs, b == w.runners.log.builds.end() ? 0 : b->second};
}

} // namespace

TEST_CASE("investigate in-process: the hourly window ends reuse the nightlies' values (one "
          "confirming run, no rebuild)",
          "[usecase][investigate][evidence]") {
    // Issue 31: on an H200 the window ends (the sources of nightlies 09-05 and 09-06) were built
    // and run 3 times each although the history and the daily stage had just measured those
    // nightlies. Now a window end whose commits equal a measured nightly's costs at most one run
    // and one build (the recipe's confirming run, once per stage), never a rebuild.
    Recorded p;
    const auto r = app::run_investigate(p.options({}), p.w.adapters);
    INFO(util::join(p.w.progress.lines, "\n"));
    const auto& h = p.culprit_found(r.investigation);
    const std::map<std::string, std::string> good{
        {"xla", p.xla.sha(p.nightly_commit("2024-05-13"))}};
    const std::map<std::string, std::string> bad{
        {"xla", p.xla.sha(p.nightly_commit("2024-05-14"))}};
    const auto [good_runs, good_builds] = spent_on(p.w, good);
    const auto [bad_runs, bad_builds] = spent_on(p.w, bad);
    CHECK(good_runs + bad_runs <= 1);     // the confirming run, for both ends together
    CHECK(good_builds + bad_builds <= 1); // and its build; nothing rebuilt
    for (const auto& [state, n] : p.w.runners.log.builds) {
        INFO(state);
        CHECK(n == 1);
    }
    // The report counts what the evidence spared.
    CHECK(h.spend.avoided_runs >= 5);
    CHECK(h.spend.avoided_builds >= 1);
    CHECK(r.investigation.spend.avoided_runs >= h.spend.avoided_runs);
    CHECK_THAT(p.w.files.files.at("out/report.md"), Catch::Contains("avoided: "));
    CHECK_THAT(p.w.files.files.at("out/result.json"), Catch::Contains("\"avoided_runs\":"));

    SECTION("a second investigation rebuilds no state the first measured") {
        p.w.runners.log = {};
        auto o = p.options({});
        o.record.reset();
        const auto again = app::run_investigate(o, p.w.adapters);
        p.culprit_found(again.investigation);
        CHECK(p.w.runners.log.total_builds() == 0);
        CHECK(p.w.runners.log.total_runs() == 0);
    }
}

TEST_CASE("investigate in-process: a rebuild that disagrees with the nightly's own build "
          "measures the window ends afresh",
          "[usecase][investigate][evidence]") {
    // The rebuild recipe costs 3 % against the image's own build (other flags): the confirming
    // run disagrees, so the nightlies' values are not pooled with the rebuilt states' and the
    // culprit is found from rebuilt states alone.
    Recorded p;
    const auto nightly = p.w.runners.run;
    p.w.runners.run = [nightly](const ports::PointRequest& r, int repeat) {
        auto run = nightly(r, repeat);
        if (r.commits.count("xla"))
            run.value *= 0.97;
        return run;
    };
    const auto r = app::run_investigate(p.options({}), p.w.adapters);
    INFO(util::join(p.w.progress.lines, "\n"));
    const auto& h = p.culprit_found(r.investigation);
    const auto& lines = p.w.progress.lines;
    CHECK(std::any_of(lines.begin(), lines.end(), [](const std::string& l) {
        return l.find("the rebuild differs from nightly 2024-05-13") != std::string::npos;
    }));
    CHECK(h.spend.reused_values == 0);
    const auto [good_runs, good_builds] =
        spent_on(p.w, {{"xla", p.xla.sha(p.nightly_commit("2024-05-13"))}});
    CHECK(good_runs >= 3);
    CHECK(good_builds == 1);
}
