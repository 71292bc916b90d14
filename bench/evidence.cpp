// Known states measured again by the whole pipeline (issue 31), without and with the evidence
// store, side by side: `investigate --record … --to-commit` in-process on the fake world of the
// investigate tests (tests/support/fakes: a nightly per date built from an in-memory xla line,
// a scripted benchmark 7 % slower from the culprit commit on, the commits probe, a history of the
// earlier nights). A run re-measures a known state when its sources (commits) were measured
// before by another kind of build (a nightly vs a rebuilt state) or by an earlier command (the
// nightly jobs that filled the history); repeats of a state by the same stage are new evidence.
// The first rebuilt run of a nightly's sources is the recipe's confirming run (a rebuild may
// differ from the image's own build; the issue allows one): counted apart, on both sides.
// Usage: bench_evidence [CULPRITS]
#include "app/daily.hpp"
#include "app/investigate.hpp"
#include "app/options.hpp"
#include "support/fakes/world.hpp"
#include "util/time.hpp"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

using namespace perfsweep;

namespace {

constexpr util::UnixSeconds k_may1 = 1714521600; // 2024-05-01T00:00:00Z

struct Figures {
    long runs = 0, builds = 0, known_runs = 0, confirming = 0;
    long avoided_runs = 0, avoided_builds = 0;
    double seconds = 0, known_seconds = 0;
    bool exact = false;
};

/// One whole pipeline: the history of 2024-05-01 .. 05-15, then investigate recording 05-16.
Figures pipeline(util::UnixSeconds culprit_time, bool evidence, int seed) {
    fakes::World w;
    auto xla = fakes::make_line("xla", "/src/xla", k_may1 - 3600, 36 * 20, 2400);
    const std::size_t culprit = xla.at_time(culprit_time) + 1;
    w.repos.add(xla);
    w.clock.t = static_cast<double>(k_may1 + 16 * 86400 + 3 * 3600);
    auto nightly = [&xla](const std::string& date) {
        return xla.at_time(util::days_from_civil(*util::parse_date(date)) * 86400);
    };
    // The ledger: which command and kind of build measured each state, every run's seconds.
    std::string command = "history";
    std::map<std::size_t, std::set<std::string>> measured_by; // commit → "command/kind"
    Figures f;
    w.runners.run = [&](const ports::PointRequest& r, int repeat) {
        const bool rebuilt = r.commits.count("xla") > 0;
        const std::size_t c = rebuilt ? xla.index_of(r.commits.at("xla")) : nightly(r.label);
        const std::string by = command + (rebuilt ? "/rebuilt" : "/nightly");
        auto& seen = measured_by[c];
        const bool known = !seen.empty() && !(seen.size() == 1 && seen.count(by));
        seen.insert(by);
        if (command != "history") {
            f.seconds += w.runners.seconds_per_run;
            if (known && rebuilt && f.confirming == 0) {
                ++f.confirming;
            } else if (known) {
                ++f.known_runs;
                f.known_seconds += w.runners.seconds_per_run;
            }
        }
        const double noise = 1 + 0.002 * ((repeat * 7 + static_cast<int>(c) + seed) % 5 - 2);
        return fakes::Run::of((c >= culprit ? 536.6 : 577.0) * noise);
    };
    w.runners.command = [&](const ports::PointRequest& r) {
        const auto& c = xla.commits.at(nightly(r.label));
        return ports::CommandOutcome{
            true, "", "xla " + c.sha + " " + util::format_iso8601(c.time) + "\n", ""};
    };
    app::OptionValues v(*app::find_command_spec("investigate"));
    for (const auto& [k, val] : std::vector<std::pair<const char*, const char*>>{
             {"history", "history.jsonl"},
             {"image", "nightly:{date}"},
             {"test", "bench {image}"},
             {"metric", "MLUPS"},
             {"benchmark", "lbm"},
             {"env-probe", "none"},
             {"commits-probe", "git -C /opt/xla log -1 --format='xla %H %cI'"},
             {"repeats", "3"},
             {"record", "2024-05-16"},
             {"step", "1h"},
             {"build", "build-xla {path:xla}"},
             {"hourly-test", "bench {path:xla}"},
             {"output-dir", "out"}})
        v.set(app::OptionName::checked(k), val);
    v.set("repo", std::vector<std::string>{"xla=/src/xla"});
    v.set_flag("to-commit");
    v.check();
    auto o = app::resolve_investigate(v, {"acme/lbm", &w.actions}).options;
    o.hourly_options.evidence.reuse = evidence;
    { // the earlier nightly jobs, one measurement (3 repeats) per night
        auto runner = w.runners.make(o.daily_runner);
        auto probe = w.runners.make(app::commits_probe_runner(o.daily_runner, o.commits_probe));
        auto history = w.histories.open("history.jsonl");
        app::DailyOptions past;
        past.dates = {*util::parse_day("2024-05-01"), *util::parse_day("2024-05-15")};
        past.benchmark = "lbm";
        past.sweep = o.daily.sweep;
        past.sweep.strategy = core::SweepStrategy::exhaustive;
        app::run_daily(past, w.adapters, {*runner, probe.get(), history.get()});
    }
    command = "investigate";
    w.runners.log = {};
    const auto r = app::run_investigate(o, w.adapters);
    const auto& inv = r.investigation;
    f.runs = w.runners.log.total_runs();
    f.builds = w.runners.log.total_builds();
    f.avoided_runs = inv.spend.avoided_runs;
    f.avoided_builds = inv.spend.avoided_builds;
    f.exact = inv.hourly.size() == 1 && inv.hourly[0].culprit &&
              inv.hourly[0].culprit->commit.sha == xla.sha(culprit);
    return f;
}

} // namespace

int main(int argc, char** argv) {
    const int culprits = argc > 1 ? std::atoi(argv[1]) : 8;
    std::printf("whole pipeline in-process (history 05-01..05-15, investigate --record 05-16 "
                "--to-commit), %d culprit commits on 2024-05-13; known = runs of sources measured "
                "before by another kind of build or an earlier command, +c = the recipe's "
                "confirming run\n",
                culprits);
    std::printf("%-7s | %-31s | %-31s | %s\n", "culprit", "without: runs builds known+c",
                "with evidence: the same", "avoided runs/builds");
    Figures before_all, after_all;
    bool exact = true;
    for (int k = 0; k < culprits; ++k) {
        const auto t = k_may1 + 12 * 86400 + (k * 2 + 9) * 3600 + 600; // 09:10, 11:10, ...
        const auto a = pipeline(t, false, k), b = pipeline(t, true, k);
        exact = exact && a.exact && b.exact;
        std::printf(
            "%-7s | %4ld %4ld %3ld+%ld (%5.1f %%) %-5s | %4ld %4ld %3ld+%ld (%5.1f %%) %-5s "
            "| %ld/%ld\n",
            util::format_iso8601(t).substr(11, 5).c_str(), a.runs, a.builds, a.known_runs,
            a.confirming, 100 * a.known_seconds / a.seconds, a.exact ? "exact" : "WRONG", b.runs,
            b.builds, b.known_runs, b.confirming, 100 * b.known_seconds / b.seconds,
            b.exact ? "exact" : "WRONG", b.avoided_runs, b.avoided_builds);
        for (auto [sum, x] : {std::pair{&before_all, &a}, std::pair{&after_all, &b}}) {
            sum->runs += x->runs;
            sum->builds += x->builds;
            sum->known_runs += x->known_runs;
            sum->confirming += x->confirming;
            sum->seconds += x->seconds;
            sum->known_seconds += x->known_seconds;
        }
    }
    const double before = 100 * before_all.known_seconds / before_all.seconds;
    const double after = 100 * after_all.known_seconds / after_all.seconds;
    std::printf("all     | runs %ld, builds %ld: re-measured known states %.1f %% of the benchmark "
                "seconds (+%ld confirming runs) | with evidence: runs %ld, builds %ld: %.1f %% "
                "(+%ld) | culprit %s (goal: <= 5 %%, culprit exact)\n",
                before_all.runs, before_all.builds, before, before_all.confirming, after_all.runs,
                after_all.builds, after, after_all.confirming,
                exact ? "exact in every run" : "WRONG");
    return exact && after <= 5 ? 0 : 1;
}
