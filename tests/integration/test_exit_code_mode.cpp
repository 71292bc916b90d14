// Exit-code mode and `perfsweep probe` end to end: the real binary, real child processes
// (simulated nightlies that crash, fail 30 % of the time, skip or abort), real git repos, and a
// real `git bisect run perfsweep probe ...`.

#include "support/git_repo.hpp"
#include "support/json_doc.hpp"
#include "support/temp_dir.hpp"
#include "util/strings.hpp"

#include <catch2/catch.hpp>
#include <rapidjson/document.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

using namespace perfsweep;
using namespace perfsweep::test;
namespace fs = std::filesystem;

namespace {

std::string python() {
    return fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
}

// A simulated nightly test: exit status by date from a JSON config. crash_from: SIGSEGV (after
// printing colored output and a secret); flaky_from: fails `rate` of the runs (deterministic per
// date and run number); skip: exit 125; abort: exit 130.
const char* k_nightly = R"PY(import hashlib, json, os, sys
cfg = json.load(open(sys.argv[1])); date = sys.argv[2]; counters = sys.argv[3]
os.makedirs(counters, exist_ok=True)
p = os.path.join(counters, date)
n = int(open(p).read()) + 1 if os.path.exists(p) else 1
open(p, "w").write(str(n))
print("testing nightly %s run %d" % (date, n))
if date in cfg.get("skip", []): sys.exit(125)
if date in cfg.get("abort", []): sys.exit(130)
if cfg.get("crash_from") and date >= cfg["crash_from"]:
    for i in range(30): print("step %d" % i)
    print("token is " + os.environ.get("SIM_TOKEN", ""))
    print("\x1b[31mFatal Python error: Segmentation fault\x1b[0m")
    print("```\n# injected heading")
    sys.stdout.flush(); os.kill(os.getpid(), 11)
if cfg.get("flaky_from") and date >= cfg["flaky_from"]:
    h = int(hashlib.sha256(("%s/%d" % (date, n)).encode()).hexdigest(), 16) % 1000
    if h < cfg["rate"] * 1000:
        print("AssertionError: flaky"); sys.exit(1)
print("passed")
)PY";

struct Nightlies {
    TempDir dir{"perfsweep-exitcode"};
    std::string script = dir.file("nightly.py");
    std::string config = dir.file("config.json");
    explicit Nightlies(const std::string& cfg) {
        write_file(script, k_nightly);
        write_file(config, cfg);
    }
    std::vector<std::string> daily(const std::string& from, const std::string& to,
                                   std::vector<std::string> extra) const {
        std::vector<std::string> a{"daily",
                                   "--from",
                                   from,
                                   "--to",
                                   to,
                                   "--check",
                                   "exit-code",
                                   "--test",
                                   python() + " -S " + script + " " + config + " {date} " +
                                       dir.file("counts"),
                                   "--logs",
                                   dir.file("logs")};
        a.insert(a.end(), extra.begin(), extra.end());
        return a;
    }
};

const long long k_t0 = 1692835200; // 2023-08-24T00:00:00Z

std::string git(const std::string& dir, const std::vector<std::string>& args) {
    return git_at(dir, args, k_t0);
}

// A repo of 24 commits one hour apart; speed.txt holds 100, from commit `slow` on 90; the file
// crash exists from commit `crash` on. Returns the shas.
std::vector<std::string> make_repo(const std::string& repo, int slow, int crash) {
    fs::create_directories(repo);
    git(repo, {"init", "-q", "-b", "main"});
    std::vector<std::string> shas;
    for (int i = 0; i < 24; ++i) {
        write_file(repo + "/speed.txt", i >= slow ? "90\n" : "100\n");
        write_file(repo + "/n.txt", std::to_string(i) + "\n");
        if (i >= crash)
            write_file(repo + "/crash", "1\n");
        git(repo, {"add", "-A"});
        git_at(repo, {"commit", "-q", "-m", "commit " + std::to_string(i)}, k_t0 + i * 3600);
        shas.push_back(git(repo, {"rev-parse", "HEAD"}));
    }
    git(repo, {"update-ref", "refs/remotes/origin/main", "main"});
    return shas;
}

} // namespace

TEST_CASE("daily --check exit-code finds the day nightlies start crashing, 125 is skipped",
          "[exitcode][daily]") {
    Nightlies n(R"({"crash_from":"2023-08-17","skip":["2023-08-16","2023-08-05"]})");
    auto r = run_perfsweep(n.daily("2023-08-01", "2023-08-28", {"--repeats", "1", "--json"}),
                           {"SIM_TOKEN=s3cr3t-value-xyz"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    auto d = parse_json_object(r.out);
    const auto& b = d["boundaries"];
    REQUIRE(b.Size() == 1);
    CHECK(std::string(b[0]["last_before"].GetString()) == "2023-08-15");
    CHECK(std::string(b[0]["first_after"].GetString()) == "2023-08-17");
    CHECK(std::string(b[0]["kind"].GetString()) == "regression");
    CHECK(b[0]["old"].GetDouble() == 0);
    CHECK(b[0]["new"].GetDouble() == 1);
    REQUIRE(b[0]["broken_between"].Size() == 1);
    CHECK(std::string(b[0]["broken_between"][0].GetString()) == "2023-08-16");

    // The text output words it, with the first bad nightly's log excerpt: ANSI stripped, the
    // secret masked, and the log's lines cannot start workflow commands or break out.
    auto t = run_perfsweep(n.daily("2023-08-01", "2023-08-28", {"--repeats", "1"}),
                           {"SIM_TOKEN=s3cr3t-value-xyz"});
    REQUIRE(t.exit_code == 0);
    CHECK(t.out.find("started failing (0/") != std::string::npos);
    CHECK(t.out.find("Fatal Python error: Segmentation fault") != std::string::npos);
    CHECK(t.out.find("\x1b[") == std::string::npos);
    CHECK(t.out.find("s3cr3t-value-xyz") == std::string::npos);
    CHECK(t.out.find("token is ***") != std::string::npos);
    CHECK(t.out.find("step 29") != std::string::npos);
    CHECK(t.out.find("step 5\n") == std::string::npos); // only the last lines
}

// A 30 % flaky failure found with repeats, its rates and the report with the first failing run's
// log: tests/unit/test_usecase_exit_code.cpp (in-process, scripted exit statuses).

TEST_CASE("daily --check exit-code aborts on a status >= 128 and resumes from its state",
          "[exitcode][daily]") {
    Nightlies n(R"({"crash_from":"2023-08-09","abort":["2023-08-10"]})");
    const auto state = n.dir.file("state");
    auto r = run_perfsweep(
        n.daily("2023-08-01", "2023-08-12",
                {"--repeats", "1", "--strategy", "exhaustive", "--state", state, "--json"}));
    CHECK(r.exit_code == 3);
    CHECK(r.err.find("2023-08-10 exited 130") != std::string::npos);
    CHECK(r.err.find("128 and above abort") != std::string::npos);
    // The aborting run was not committed; the runs before it were.
    int committed = 0;
    for (const auto& line : util::split(read_file(state + "/journal.tsv"), '\n'))
        committed += line.rfind("run\t", 0) == 0 ? 1 : 0;
    CHECK(committed == 9);
    // Fixed test (no abort): the sweep resumes and runs only what is left.
    write_file(n.config, R"({"crash_from":"2023-08-09"})");
    auto again = run_perfsweep(
        n.daily("2023-08-01", "2023-08-12",
                {"--repeats", "1", "--strategy", "exhaustive", "--state", state, "--json"}));
    INFO(again.err);
    REQUIRE(again.exit_code == 0);
    CHECK(again.err.find("resuming from") != std::string::npos);
    auto d = parse_json_object(again.out);
    CHECK(d["resumed_runs"].GetInt() == 9);
    REQUIRE(d["boundaries"].Size() == 1);
    CHECK(std::string(d["boundaries"][0]["first_after"].GetString()) == "2023-08-09");
}

TEST_CASE("hourly --check exit-code narrows the commit stage to the commit that starts failing",
          "[exitcode][hourly]") {
    TempDir dir("perfsweep-exitcode-hourly");
    const auto repo = dir.file("app");
    const auto shas = make_repo(repo, 100, 13);
    write_file(dir.file("test.sh"), "test ! -e \"$1/crash\"\n");
    auto r = run_perfsweep({"hourly", "--repo", "app=" + repo, "--good-commits", "app=" + shas[2],
                            "--bad-commits", "app=" + shas[21], "--to-commit", "--check",
                            "exit-code", "--repeats", "1", "--build", "true", "--test",
                            "sh " + dir.file("test.sh") + " {path:app}", "--logs", dir.file("logs"),
                            "--json"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.find("\"sha\": \"" + shas[13] + "\"") != std::string::npos);
}

TEST_CASE("probe exit codes: 0 good, 1 bad, 125 skip, 128 for its own errors",
          "[exitcode][probe]") {
    TempDir dir("perfsweep-probe");
    const auto logs = dir.file("logs");
    auto probe = [&](std::vector<std::string> args) {
        args.insert(args.begin(), "probe");
        args.insert(args.end(), {"--logs", logs});
        return run_perfsweep(args).exit_code;
    };
    auto sh = [](const std::string& s) { return "sh -c '" + s + "'"; };
    CHECK(probe({"--check", "exit-code", "--test", sh("exit 0"), "--repeats", "2"}) == 0);
    CHECK(probe({"--check", "exit-code", "--test", sh("exit 3")}) == 1);
    CHECK(probe({"--check", "exit-code", "--test", sh("kill -SEGV $$")}) == 1); // a crash
    CHECK(probe({"--check", "exit-code", "--test", sh("exit 125")}) == 125);
    CHECK(probe({"--check", "exit-code", "--test", sh("exit 124")}) == 125); // timeout wrapper
    CHECK(probe({"--check", "exit-code", "--test", "sleep 5", "--timeout", "1s"}) == 125);
    CHECK(probe({"--check", "exit-code", "--test", sh("exit 0"), "--build", sh("exit 1")}) == 125);
    CHECK(probe({"--check", "exit-code", "--test", sh("exit 130")}) == 128);
    CHECK(probe({"--check", "exit-code", "--test", "no-such-command-xyz"}) == 128);
    CHECK(probe({"--test", sh("echo MLUPS: 96"), "--reference", "100", "--threshold", "0.05"}) ==
          0);
    CHECK(probe({"--test", sh("echo MLUPS: 94"), "--reference", "100", "--threshold", "0.05"}) ==
          1);
    CHECK(probe({"--test", sh("echo MLUPS: 94"), "--good-value", "100", "--good-value", "98"}) ==
          1);
    CHECK(probe({"--test", sh("echo time: 1.04"), "--metric", "time", "--direction", "lower",
                 "--reference", "1.0"}) == 0);
    CHECK(probe({"--test", sh("echo no metric"), "--reference", "100"}) == 125);
    // Usage errors: never 1-127, so git bisect run aborts instead of marking a commit bad.
    CHECK(probe({"--check", "exit-code"}) == 128);           // no --test
    CHECK(probe({"--bogus-flag", "--test", "true"}) == 128); // CLI11 parse
    CHECK(probe({"--check", "exit-code", "--test", "true", "--repeats", "x"}) == 128); // CLI11
    CHECK(probe({"--check", "exit", "--test", "true"}) == 128);
    CHECK(probe({"--test", sh("echo MLUPS: 1")}) == 128); // no reference
    CHECK(probe({"--test", sh("echo MLUPS: 1"), "--reference", "100", "--good-value", "1"}) == 128);
    CHECK(probe({"--test", sh("echo MLUPS: 1"), "--reference", "abc"}) == 128);
    CHECK(probe({"--test", sh("echo MLUPS: 1"), "--history", dir.file("none.jsonl")}) == 128);
    // History as the reference: the latest ok record of the benchmark.
    const auto hist = dir.file("h.jsonl");
    REQUIRE(run_perfsweep({"run", "--test", sh("echo MLUPS: 100"), "--benchmark", "b", "--history",
                           hist, "--logs", logs})
                .exit_code == 0);
    CHECK(probe({"--test", sh("echo MLUPS: 80"), "--benchmark", "b", "--history", hist}) == 1);
    CHECK(probe({"--test", sh("echo MLUPS: 99"), "--benchmark", "b", "--history", hist}) == 0);
    // After the regression was recorded (label 2023-08-22 at 80), the latest record is bad:
    // --good-label names the known good nightly instead (its values pooled).
    for (const auto& [label, value] : std::vector<std::pair<std::string, std::string>>{
             {"2023-08-21", "100"}, {"2023-08-21", "102"}, {"2023-08-22", "80"}})
        REQUIRE(run_perfsweep({"run", "--test", sh("echo MLUPS: " + value), "--benchmark", "b",
                               "--label", label, "--history", hist, "--logs", logs})
                    .exit_code == 0);
    CHECK(probe({"--test", sh("echo MLUPS: 81"), "--benchmark", "b", "--history", hist}) == 0);
    CHECK(probe({"--test", sh("echo MLUPS: 81"), "--benchmark", "b", "--history", hist,
                 "--good-label", "2023-08-21"}) == 1);
    CHECK(probe({"--test", sh("echo MLUPS: 100"), "--benchmark", "b", "--history", hist,
                 "--good-label", "2023-08-21"}) == 0);
    CHECK(probe({"--test", sh("echo MLUPS: 1"), "--benchmark", "b", "--history", hist,
                 "--good-label", "2099-01-01"}) == 128); // no such record
    CHECK(probe({"--test", sh("echo MLUPS: 1"), "--reference", "1", "--good-label", "x"}) == 128);
}

TEST_CASE("git bisect run perfsweep probe finds the culprit commit", "[exitcode][probe][git]") {
    TempDir dir("perfsweep-bisect");
    const auto repo = dir.file("repo");
    const auto shas = make_repo(repo, 9, 17);
    write_file(dir.file("bench.sh"), "echo \"MLUPS: $(cat speed.txt)\"\n");
    write_file(dir.file("check.sh"), "test ! -e crash || exit 7\n");
    auto bisect = [&](const std::vector<std::string>& probe_args) {
        (void)run_command({"git", "-C", repo, "bisect", "reset", "-q"});
        git(repo, {"bisect", "start", shas[23], shas[0]});
        std::vector<std::string> argv{"git", "-C", repo, "bisect", "run", PERFSWEEP_EXE, "probe"};
        argv.insert(argv.end(), probe_args.begin(), probe_args.end());
        argv.insert(argv.end(), {"--logs", dir.file("logs")});
        return run_command(argv);
    };
    SECTION("metric mode with a threshold") {
        auto r = bisect(
            {"--test", "sh " + dir.file("bench.sh"), "--reference", "100", "--threshold", "0.05"});
        INFO(r.out << r.err);
        CHECK(r.exit_code == 0);
        CHECK(r.out.find(shas[9] + " is the first bad commit") != std::string::npos);
    }
    SECTION("exit-code mode") {
        auto r = bisect({"--check", "exit-code", "--test", "sh " + dir.file("check.sh")});
        INFO(r.out << r.err);
        CHECK(r.exit_code == 0);
        CHECK(r.out.find(shas[17] + " is the first bad commit") != std::string::npos);
    }
    SECTION("a usage error aborts the bisection instead of marking a commit bad") {
        auto r = bisect({"--check", "exit-code", "--test", "true", "--no-such-flag"});
        CHECK(r.exit_code != 0);
        CHECK(r.out.find("is the first bad commit") == std::string::npos);
        // No commit was judged: the log holds only the start and its two given ends.
        const auto log = git(repo, {"bisect", "log"});
        CHECK(log.find("git bisect bad") == std::string::npos);
        CHECK(log.find("git bisect good") == std::string::npos);
        CHECK(log.find("git bisect skip") == std::string::npos);
    }
    (void)run_command({"git", "-C", repo, "bisect", "reset", "-q"});
}

TEST_CASE("run --check exit-code records every repeat's exit status in the measurement",
          "[exitcode][run]") {
    TempDir dir("perfsweep-exitcode-run");
    const auto counter = dir.file("n");
    write_file(dir.file("t.sh"), "n=$(cat " + counter +
                                     " 2>/dev/null || echo 0); n=$((n+1)); "
                                     "echo $n > " +
                                     counter + "; [ $n -ne 2 ] || exit 4; exit 0\n");
    const auto hist = dir.file("h.jsonl");
    auto r =
        run_perfsweep({"run", "--check", "exit-code", "--test", "sh " + dir.file("t.sh"),
                       "--repeats", "3", "--json", "--history", hist, "--logs", dir.file("logs")});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    auto d = parse_json_object(r.out);
    REQUIRE(d["exit_codes"].Size() == 3);
    CHECK(d["exit_codes"][1].GetInt() == 4);
    CHECK(d["values"][1].GetDouble() == 1);
    CHECK(d["values"][0].GetDouble() == 0);
    CHECK(std::string(d["metric"].GetString()) == "failed");
    // The history line round-trips (and older lines without exit_codes still parse: every other
    // history test).
    CHECK(read_file(hist).find("\"exit_codes\":[0,4,0]") != std::string::npos);
}

TEST_CASE(
    "investigate with `check = \"exit-code\"` in its config: detect, daily and the report say "
    "the nightly started failing, with its log's last lines",
    "[exitcode][investigate]") {
    Nightlies n(R"({"crash_from":"2023-08-09"})");
    const auto history = n.dir.file("history.jsonl");
    const std::vector<std::string> env{"SIM_TOKEN=simulated-secret-0123"};
    // The nightly job recorded every day so far (2 runs each); then today's nightly is recorded
    // by investigate itself, which detects the change, narrows it and writes the report.
    auto seed =
        run_perfsweep(n.daily("2023-08-01", "2023-08-12",
                              {"--repeats", "2", "--strategy", "exhaustive", "--history", history}),
                      env);
    INFO(seed.err);
    REQUIRE(seed.exit_code == 0);
    const auto out = n.dir.file("out");
    write_file(n.dir.file("perfsweep.toml"),
               "[investigate]\ncheck = \"exit-code\"\nhistory = \"" + history +
                   "\"\nrecord = \"2023-08-13\"\nrepeats = 2\nstrategy = \"exhaustive\"\n"
                   "test = \"" +
                   python() + " -S " + n.script + " " + n.config + " {date} " +
                   n.dir.file("counts") + "\"\nlogs = \"" + n.dir.file("logs") +
                   "\"\noutput-dir = \"" + out + "\"\nfail-on-regression = true\n");
    auto r = run_perfsweep({"--config", n.dir.file("perfsweep.toml"), "investigate"}, env);
    INFO(r.err);
    CHECK(r.exit_code == 1); // a regression, and --fail-on-regression
    const auto md = read_file(out + "/report.md");
    INFO(md);
    CHECK(md.find("started failing (0/") != std::string::npos);
    CHECK(md.find("between nightly 2023-08-08 and 2023-08-09") != std::string::npos);
    CHECK(md.find("### First failing run") != std::string::npos);
    CHECK(md.find("**Nightly 2023-08-09** (killed by signal 11 (SIGSEGV))") != std::string::npos);
    CHECK(md.find("Fatal Python error: Segmentation fault") != std::string::npos);
    CHECK(md.find("step 29") != std::string::npos);
    CHECK(md.find("step 5\n") == std::string::npos);              // the last lines only
    CHECK(md.find("\x1b") == std::string::npos);                  // ANSI stripped
    CHECK(md.find("simulated-secret-0123") == std::string::npos); // masked
    CHECK(md.find("token is ***") != std::string::npos);
    // The log's own ``` cannot close the fence: the excerpt's fence is longer.
    CHECK(md.find("````text\n") != std::string::npos);
    CHECK(md.find("\n# injected heading") != std::string::npos); // inside the fence
    // Detect judged failure rates, not a metric.
    const auto d = parse_json_object(read_file(out + "/result.json"));
    CHECK(std::string(d["detect"]["mode"].GetString()) == "exit-code");
    CHECK(std::string(d["detect"]["verdict"].GetString()) == "regression");
    REQUIRE(d["daily"].Size() == 1);
    CHECK(std::string(d["daily"][0]["mode"].GetString()) == "exit-code");
    const auto& b = d["daily"][0]["boundaries"][0];
    CHECK(b["failures"]["before"]["failed"].GetInt() == 0);
    CHECK(b["failures"]["after"]["passed"].GetInt() == 0);
    CHECK(b["first_bad_log"]["exit_code"].GetInt() == -11);
}

TEST_CASE("hourly --check exit-code: undecided window ends double their runs instead of reading a "
          "flaky failure as no change",
          "[exitcode][hourly]") {
    TempDir dir("perfsweep-exitcode-flaky");
    const auto repo = dir.file("app");
    const auto shas = make_repo(repo, 100, 13);
    // From commit 13 on, every second run of a state fails (deterministic 50 % flakiness).
    write_file(dir.file("test.sh"), "c=\"$2/$(basename \"$3\")\"; mkdir -p \"$2\"\n"
                                    "n=$(( $(cat \"$c\" 2>/dev/null || echo 0) + 1 )); echo $n > "
                                    "\"$c\"\n"
                                    "echo \"run $n\"\n"
                                    "if [ -e \"$1/crash\" ] && [ $((n % 2)) -eq 0 ]; then echo "
                                    "'FAILED test_flaky'; exit 1; fi\n");
    auto hourly = [&](const std::string& max_repeats, const std::string& counts) {
        return run_perfsweep(
            {"hourly",
             "--repo",
             "app=" + repo,
             "--good-commits",
             "app=" + shas[2],
             "--bad-commits",
             "app=" + shas[21],
             "--check",
             "exit-code",
             "--repeats",
             "3",
             "--max-repeats",
             max_repeats,
             "--build",
             "true",
             "--test",
             "sh " + dir.file("test.sh") + " {path:app} " + dir.file(counts) + " {commit:app}",
             "--logs",
             dir.file("logs"),
             "--json"});
    };
    // Without more runs (cap 3): 0/3 against 1/3 failed cannot be told apart.
    auto few = hourly("3", "counts-few");
    INFO(few.err);
    REQUIRE(few.exit_code == 0);
    const auto f = parse_json_object(few.out);
    CHECK(f["conclusion"].GetString() == std::string("no_change"));
    // The cap holds for every state the search measured, not only for the window ends.
    std::size_t most = 0;
    for (const auto& st : f["states"].GetArray())
        most = std::max<std::size_t>(most, st["values"].Size());
    CHECK(most == 3);
    // With a cap of 24 runs the ends are told apart and the stage narrows the window.
    auto more = hourly("24", "counts-more");
    INFO(more.err);
    CHECK(more.err.find("window ends undecided") != std::string::npos);
    const auto d = parse_json_object(more.out);
    CHECK(d["conclusion"].GetString() == std::string("window"));
    CHECK(d["window"]["first_bad"]["commits"]["app"].GetString() == shas[13]);
    for (const auto& st : d["states"].GetArray())
        CHECK(st["values"].Size() <= 24);
    REQUIRE(d["window"].HasMember("failures"));
    CHECK(d["window"]["failures"]["before"]["failed"].GetInt() == 0);
    CHECK(d["window"]["failures"]["after"]["failed"].GetInt() > 0);
    CHECK(std::string(d["window"]["first_bad_log"]["excerpt"].GetString())
              .find("FAILED test_flaky") != std::string::npos);
}
