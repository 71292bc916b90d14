// One whole `investigate` in-process (record → detect → daily → hourly → commit) with the
// scripted runner and in-memory repo of tests/support/fakes, over a real JSON Lines history: every
// benchmark invocation is counted at the runner, nothing the history or an earlier stage already
// measured is measured again, and the investigation's spend is what the runner saw.
#include "adapters/history/jsonl_store.hpp"
#include "adapters/system/local_files.hpp"
#include "app/investigate.hpp"
#include "support/fakes/world.hpp"
#include "support/temp_dir.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <catch2/catch.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

using namespace perfsweep;

namespace {

constexpr int k_days = 10;                 // nightlies 2023-08-01 .. 2023-08-10
constexpr int k_culprit = 25;              // the xla commit that costs 10 %
const util::UnixSeconds k_t0 = 1690848000; // 2023-08-01T00:00:00Z

std::string day(int d) {
    return "2023-08-" + std::string(d < 9 ? "0" : "") + std::to_string(d + 1);
}
int commit_of_day(int d) { // nightly d was built from xla commit 4d+3
    return 4 * d + 3;
}

/// The xla main line: a commit every 6 hours from 2023-08-01, so nightly d's commit is older
/// than its date.
const fakes::CommitLine& xla() {
    static const auto line = fakes::make_line("xla", "/src/xla", k_t0, 4 * k_days + 4, 6 * 3600);
    return line;
}
std::string sha(int i) {
    return xla().sha(static_cast<std::size_t>(i));
}
int index_of(const std::string& s) {
    return static_cast<int>(xla().index_of(s));
}

const std::map<std::string, std::string> k_machine = {{"gpu", "NVIDIA H200"}, {"driver", "580"}};

/// Index of nightly `label` ("2023-08-DD").
int day_index(const std::string& label) {
    return std::stoi(label.substr(8)) - 1;
}

/// Opens the real JSON Lines store at the spec's path.
class JsonlHistories final : public ports::HistoryStores {
public:
    std::unique_ptr<ports::HistoryStore> open(const std::string& spec) override {
        return std::make_unique<adapters::JsonlHistoryStore>(spec);
    }
};

} // namespace

TEST_CASE("investigate measures nothing twice: history dates, the recorded nightly and the "
          "hourly window ends are reused, and its spend is what the runner ran",
          "[investigate][spend]") {
    test::TempDir dir;
    const std::string history_path = dir.file("history.jsonl");
    // The nightly job's earlier nights, measured on this machine: days 0-4 and 7-8 (the runner
    // was offline on days 5 and 6).
    std::vector<core::Measurement> earlier;
    for (int d : {0, 1, 2, 3, 4, 7, 8}) {
        core::Measurement m;
        m.benchmark = "bench";
        m.metric = "MLUPS";
        m.label = day(d);
        m.stage = core::Stage::daily;
        m.runner = k_machine;
        m.commits["xla"] = sha(commit_of_day(d));
        m.values = {(commit_of_day(d) >= k_culprit ? 900.0 : 1000.0) * (1 + 0.0002 * (d % 3 - 1))};
        earlier.push_back(m);
    }
    adapters::JsonlHistoryStore(history_path).append(earlier);

    // The simulated benchmark: 1000 MLUPS, 900 from the culprit commit on, a tiny deterministic
    // noise; nightlies carry their build's commit (the commits probe prints it).
    fakes::World w; // the other ports, in memory
    w.clock.t = static_cast<double>(k_t0 + k_days * 86400);
    w.runners.machine = k_machine;
    w.runners.run = [](const ports::PointRequest& r, int repeat) {
        const int commit = r.commits.count("xla") ? index_of(r.commits.at("xla"))
                                                  : commit_of_day(day_index(r.label));
        return fakes::Run::of((commit >= k_culprit ? 900.0 : 1000.0) *
                              (1 + 0.0002 * ((repeat * 7 + commit * 3) % 5 - 2)));
    };
    w.runners.command = [](const ports::PointRequest& r) {
        return ports::CommandOutcome{true, "",
                                     "xla " + sha(commit_of_day(day_index(r.label))) + "\n", ""};
    };
    w.repos.add(xla());
    JsonlHistories histories;
    adapters::LocalFiles files;
    ports::Adapters a{files,     w.progress, w.clock,      w.actions, histories,
                      w.runners, w.repos,    w.code_hosts, w.secrets, w.demo_world};
    const auto& log = w.runners.log;

    app::InvestigateOptions o; // the planners' defaults
    o.history = history_path;
    o.record = app::RecordNight{false, *util::parse_day(day(9))};
    o.daily_runner.test_command = "bench";
    o.daily_runner.benchmark = "bench";
    o.daily_runner.metric = "MLUPS";
    o.commits_probe = "probe";
    o.daily.sweep.min_change = o.threshold;
    o.hourly_options.repos = {{"xla", "/src/xla", "origin/main"}};
    o.hourly_options.to_commit = true;
    o.hourly_runner = o.daily_runner;
    o.hourly_runner.build_command = "build";
    o.out_dir = dir.file("out");

    const auto res = app::run_investigate(o, a);
    INFO(util::join(w.progress.lines, "\n"));
    REQUIRE(res.verdict == "regression");
    REQUIRE(res.outputs.count("culprit"));
    CHECK(res.outputs.at("culprit") == "xla@" + sha(k_culprit));

    // Nightlies: today's once (the record step, one run at first); the history's never; the two
    // unmeasured ones once each (10 % apart with 0.02 % noise: one run decides).
    CHECK(log.runs.at(day(9)) == 1);
    for (int d : {0, 1, 2, 3, 4, 7, 8}) {
        INFO(day(d));
        CHECK(log.runs.count(day(d)) == 0);
    }
    CHECK(log.runs.at(day(5)) == 1);
    CHECK(log.runs.at(day(6)) == 1);
    CHECK(log.commands.count(day(5)) == 1); // the commits probe: not a benchmark run
    // Source states: each built once; the commit stage measured no state the hourly stage had.
    for (const auto& [state, n] : log.builds) {
        INFO(state);
        CHECK(n == 1);
    }
    // Spend: every run and build counted once, the same as the runner saw.
    const auto& spend = res.investigation.spend;
    CHECK(spend.runs == log.total_runs());
    CHECK(spend.builds == log.total_builds());
}
