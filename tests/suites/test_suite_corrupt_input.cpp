// Issue 8 suite "Corrupt input": the real binary on corrupt histories, imports, event payloads,
// benchmark output, dates, config files and state files. Every case must end in a clear error
// (exit 2 with the input, the place and what was expected in the message), a documented skip, or
// a documented acceptance; no case may crash, print an unbounded message, or change the stored
// history (every file of the case directory is compared byte for byte before and after).

#include "support/figures.hpp"
#include "support/temp_dir.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

using namespace perfsweep::test;
namespace fs = std::filesystem;

namespace {

/// What a case is documented to do.
enum class Outcome {
    error,    ///< exit 2 with a message naming input, place and expectation
    skip,     ///< the bad part is skipped as documented (a torn line, a failed point)
    accepted, ///< documented as valid input (BOM/CRLF, negative values, huge output)
};

struct Case {
    std::string name;
    std::vector<std::string> args;
    int exit_code = 2;
    std::vector<std::string> expect; ///< substrings of stdout+stderr
    Outcome outcome = Outcome::error;
    std::vector<std::string> env = {};
};

/// One perfsweep history line (the file store's format).
std::string hist_line(const std::string& label, double value) {
    return R"({"benchmark":"b","metric":"MLUPS","unit":"MLUPS","direction":"higher","values":[)" +
           std::to_string(value) + R"(],"label":")" + label +
           R"(","timestamp":"2023-08-24T03:00:00Z","stage":"record","image":"","digest":"",)"
           R"("commits":{},"commit_times":{},"runner":{},"status":"ok","reason":"","log":""})";
}

/// Every regular file under `root` (except the logs directory): its bytes, or for the huge
/// inputs (over 1 MiB) its size and modification time.
std::map<std::string, std::string> snapshot(const fs::path& root) {
    std::map<std::string, std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(root)) {
        const std::string rel = fs::relative(e.path(), root).string();
        if (!e.is_regular_file() || rel.rfind("logs", 0) == 0)
            continue;
        if (e.file_size() > (1u << 20))
            out[rel] = std::to_string(e.file_size()) + "@" +
                       std::to_string(e.last_write_time().time_since_epoch().count());
        else
            out[rel] = read_file(e.path().string());
    }
    return out;
}

/// Write `head`, then `count` bytes `fill`, then `tail` to `path`, 1 MiB at a time: the huge
/// inputs never sit whole in the test process, whose size every forked case pays again.
void write_huge(const std::string& path, const std::string& head, std::size_t count, char fill,
                const std::string& tail) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << head;
    const std::string chunk(std::size_t{1} << 20, fill);
    for (std::size_t left = count; left > 0;) {
        const std::size_t n = std::min(left, chunk.size());
        out.write(chunk.data(), static_cast<std::streamsize>(n));
        left -= n;
    }
    out << tail;
    REQUIRE(out.good());
}

} // namespace

TEST_CASE("corrupt input: every case is a clear error or a documented skip, history unchanged",
          "[suites][corrupt]") {
    TempDir dir("perfsweep-corrupt");
    const auto f = [&](const std::string& name) { return dir.file(name); };
    const std::string logs = f("logs");
    const std::size_t huge = static_cast<std::size_t>(50) << 20; // 50 MiB lines
    const std::size_t huge_output = static_cast<std::size_t>(16 * suite_scale()) << 20;

    // The stored history: six good nights.
    std::string good;
    for (int d = 1; d <= 6; ++d)
        good += hist_line("2023-08-0" + std::to_string(d), 500 + d % 2) + "\n";
    const std::string history = f("history.jsonl");
    write_file(history, good);
    const std::string line3 = hist_line("2023-08-03", 500);
    auto lines = [&](int from, int to) {
        std::string s;
        for (int d = from; d <= to; ++d)
            s += hist_line("2023-08-0" + std::to_string(d), 500 + d % 2) + "\n";
        return s;
    };
    auto with_line3 = [&](const std::string& bad) {
        return lines(1, 2) + bad + "\n" + lines(4, 6);
    };
    write_file(f("torn.jsonl"), good + line3.substr(0, line3.size() / 2));
    write_file(f("mid.jsonl"), with_line3("{\"benchmark\":\"b\",garbage"));
    write_file(f("cut.jsonl"), with_line3(line3.substr(0, 70)));
    write_file(f("utf8.jsonl"), with_line3(hist_line("2023-08-\xff\xfe", 500)));
    write_file(f("types.jsonl"),
               with_line3(std::string(line3).replace(
                   line3.find("[500"), line3.find(']') + 1 - line3.find("[500"), "\"abc\"")));
    write_file(f("absurd.jsonl"), with_line3(hist_line("2023-08-03", 1e308)));
    write_huge(f("hugeline.jsonl"), lines(1, 2) + "{\"label\":\"", huge, 'z', "\n" + lines(4, 6));

    // Imports.
    write_file(f("cols.csv"), "label,value,colour\n2023-08-10,500,red\n");
    write_file(f("fields.csv"), "label,value\n2023-08-10,500\n2023-08-11,500,7\n");
    write_file(f("type.csv"), "label,value\n2023-08-10,500\n2023-08-11,abc\n");
    write_file(f("nan.csv"), "label,value\n2023-08-10,nan\n");
    write_file(f("inf.csv"), "label,value\n2023-08-10,500;-inf\n");
    write_file(f("absurd.csv"), "label,value\n2023-08-10,1e308\n");
    write_file(f("bom.csv"), "\xEF\xBB\xBFlabel,value\r\n2023-08-10,500\r\n2023-08-11,5OO\r\n");
    write_file(f("bom-ok.csv"), "\xEF\xBB\xBF"
                                "label,value\r\n2023-08-10,500\r\n2023-08-11,501\r\n2023-08-12,"
                                "500\r\n2023-08-13,501\r\n2023-08-14,500\r\n");
    write_file(f("utf8.csv"), "label,value\n2023-\xc3\x28-10,500\n");
    write_file(f("notz.csv"), "label,value,timestamp\n2023-08-10,500,2023-08-10T03:00:00\n");
    write_file(f("feb30.csv"), "label,value,timestamp\n2023-08-10,500,2023-02-30T03:00:00Z\n");
    write_huge(f("huge.csv"), "label,value\n2023-08-10,500\n", huge, 'y', "\n");
    write_file(f("grep.txt"), "OUT-08-10:MLUPS: 500\nTraceback (most recent call last)\n");
    write_file(f("notjson.js"), "window.BENCHMARK_DATA = {not json");
    write_file(f("shape.js"), "window.BENCHMARK_DATA = {\"entries\": [1, 2]}");
    write_file(f("noid.js"), "window.BENCHMARK_DATA = {\"entries\": {\"s\": [{\"commit\": {\"id\": "
                             "5}, \"date\": 1, \"benches\": []}]}}");
    write_file(f("empty.js"), "");
    write_file(f("types.jsonl.in"), with_line3(std::string(line3).replace(
                                        line3.find("\"label\":\"2023"), 8, "\"label\":7,\"x\":")));

    // Event payloads.
    write_file(f("body.md"), "report\n");
    write_file(f("ev-missing.json"), R"({"action": "opened", "pull_request": {"title": "t"}})");
    write_file(f("ev-string.json"), R"({"pull_request": {"number": "12"}})");
    write_file(f("ev-negative.json"), R"({"issue": {"number": -3}})");
    write_file(f("ev-notjson.json"), R"({"pull_req)");
    write_file(f("ev-array.json"), "[1, 2]");
    write_file(f("ev-prstring.json"), R"({"pull_request": "42"})");
    write_file(f("ev-dispatch.json"), R"({"inputs": {"pr": "12; rm -rf /"}})");

    // Benchmark output.
    auto script = [&](const std::string& name, const std::string& body) {
        write_file(f(name), "#!/bin/sh\n" + body);
        fs::permissions(f(name), fs::perms::owner_all);
        return f(name);
    };
    const std::string nan_sh = script("nan.sh", "echo 'MLUPS: nan'\n");
    const std::string inf_sh = script("inf.sh", "echo 'MLUPS: 500'; echo 'MLUPS: -inf'\n");
    const std::string big_sh = script("big.sh", "echo 'MLUPS: 1e308'\n");
    const std::string neg_sh = script("neg.sh", "echo 'MLUPS: -5.5'\n");
    write_huge(f("huge-output.txt"), "", huge_output, 'x', "\nMLUPS: 512.5\n");
    const std::string huge_sh = script("huge.sh", "cat '" + f("huge-output.txt") + "'\n");
    const std::string garbled_sh =
        script("garbled.sh", "printf '\\377\\376 MLUPS: 499.5 \\300\\n'\n");
    const std::string ok_sh = script("ok.sh", "echo 'MLUPS: 500'\n");

    // Config files.
    write_file(f("value.toml"), "[daily]\nrepeats = \"three\"\n");
    write_file(f("key.toml"), "[daily]\nbogus = 3\n");
    write_file(f("section.toml"), "[daily\nrepeats = 3\n");
    write_file(f("date.toml"), "[daily]\nfrom = \"2023-02-30\"\n");

    // State files: a finished resumable sweep, then damaged copies.
    const std::vector<std::string> daily = {
        "daily",  "--from", "2023-08-01", "--to", "2023-08-03", "--runtime", "none",
        "--test", ok_sh,    "--logs",     logs,   "--repeats",  "2"};
    auto daily_with = [&](const std::string& state) {
        auto a = daily;
        a.insert(a.end(), {"--state", state});
        return a;
    };
    REQUIRE(run_perfsweep(daily_with(f("state"))).exit_code == 0);
    for (const char* copy : {"state-trunc", "state-garbled", "state-sweep", "state-old"})
        fs::copy(f("state"), f(copy), fs::copy_options::recursive);
    const std::string trunc = f("state-trunc/journal.tsv");
    const auto journal = read_file(trunc);
    write_file(trunc, journal.substr(0, journal.find("\nrun\t") + 40)); // a torn second record
    const std::string garbled = f("state-garbled/journal.tsv");
    write_file(garbled, journal.substr(0, journal.find('\n') + 1) + "garbage{\n");
    const std::string other = f("state-sweep/journal.tsv");
    write_file(other, "journal\t1\tdaily\tfrom=2023-0\n");
    write_file(f("state-old/run-000001.json"), "1\n{}\n"); // an older perfsweep's state files

    const std::vector<std::string> gh_env = {"GITHUB_TOKEN=t0k", "GITHUB_REPOSITORY=acme/lbm",
                                             "GITHUB_API_URL=http://127.0.0.1:1",
                                             "PERFSWEEP_GITHUB_BACKOFF_S=0"};
    auto event = [&](const std::string& file, const std::string& name) {
        auto env = gh_env;
        env.push_back("GITHUB_EVENT_PATH=" + f(file));
        env.push_back("GITHUB_EVENT_NAME=" + name);
        return env;
    };
    const std::vector<std::string> comment = {"comment", "--body-file", f("body.md")};
    auto detect = [&](const std::string& file) {
        return std::vector<std::string>{"detect", "--history", f(file)};
    };
    auto import = [&](const std::string& file, std::vector<std::string> extra = {}) {
        std::vector<std::string> a = {"import", "--history", history, "--metric", "MLUPS", f(file)};
        a.insert(a.end(), extra.begin(), extra.end());
        return a;
    };
    auto run = [&](const std::string& sh) {
        return std::vector<std::string>{"run", "--runtime", "none", "--test", sh, "--logs", logs};
    };
    auto record_value = [&](const std::string& v) {
        return std::vector<std::string>{"record",  "--history",  history,   "--metric", "MLUPS",
                                        "--label", "2023-08-10", "--value", v};
    };

    const std::vector<Case> cases = {
        // Stored history (JSON Lines).
        {"history: torn last line",
         detect("torn.jsonl"),
         0,
         {"torn.jsonl:7", "torn"},
         Outcome::skip},
        {"history: garbled middle line", detect("mid.jsonl"), 2, {"mid.jsonl:3", "invalid JSON"}},
        {"history: truncated middle line",
         detect("cut.jsonl"),
         0,
         {"cut.jsonl:3", "skipped a torn record"},
         Outcome::skip},
        {"history: invalid UTF-8", detect("utf8.jsonl"), 2, {"utf8.jsonl:3", "encoding"}},
        {"history: values of the wrong type",
         detect("types.jsonl"),
         2,
         {"types.jsonl:3", "'values'"}},
        {"history: absurd value", detect("absurd.jsonl"), 2, {"absurd.jsonl:3", "absurd", "e+30"}},
        {"history: 50 MiB torn line",
         detect("hugeline.jsonl"),
         0,
         {"hugeline.jsonl:3", "skipped a torn record"},
         Outcome::skip},
        // Imports into the history.
        {"csv: unknown column",
         import("cols.csv"),
         2,
         {"cols.csv:1", "unknown CSV column 'colour'", "expected label,value"}},
        {"csv: wrong field count",
         import("fields.csv"),
         2,
         {"fields.csv:3", "3 fields, the header has 2"}},
        {"csv: wrong type", import("type.csv"), 2, {"type.csv:3", "'abc'", "not a finite number"}},
        {"csv: NaN", import("nan.csv"), 2, {"nan.csv:2", "'nan'", "not a finite number"}},
        {"csv: -inf repeat", import("inf.csv"), 2, {"inf.csv:2", "'-inf'"}},
        {"csv: absurd 1e308", import("absurd.csv"), 2, {"absurd.csv:2", "absurd magnitude"}},
        {"csv: BOM + CRLF, bad value on line 3", import("bom.csv"), 2, {"bom.csv:3", "'5OO'"}},
        {"csv: invalid UTF-8",
         import("utf8.csv"),
         2,
         {"utf8.csv:2", "invalid UTF-8", "expected UTF-8"}},
        {"csv: time without zone",
         import("notz.csv"),
         2,
         {"notz.csv:2", "no zone", "expected ISO 8601"}},
        {"csv: 2023-02-30 timestamp",
         import("feb30.csv"),
         2,
         {"feb30.csv:2", "timestamp '2023-02-30T03:00:00Z'"}},
        {"csv: 50 MiB line", import("huge.csv"), 2, {"huge.csv:3", "1 fields, the header has 2"}},
        {"grep: traceback line",
         import("grep.txt"),
         2,
         {"grep.txt:2", "expected 'LABEL:MLUPS: NUMBER'"}},
        {"data.js: not JSON",
         import("notjson.js", {"--format", "benchmark-action"}),
         2,
         {"notjson.js", "invalid JSON"}},
        {"data.js: wrong shape",
         import("shape.js", {"--format", "benchmark-action"}),
         2,
         {"shape.js", "'entries'"}},
        {"data.js: commit id of the wrong type",
         import("noid.js", {"--format", "benchmark-action"}),
         2,
         {"noid.js", "entries.s[0].commit.id"}},
        {"data.js: empty", import("empty.js"), 2, {"empty.js", "empty"}},
        {"jsonl: label of the wrong type",
         import("types.jsonl.in", {"--format", "jsonl"}),
         2,
         {"types.jsonl.in:3", "'label'"}},
        {"csv: BOM + CRLF accepted",
         {"detect", "--input", f("bom-ok.csv"), "--metric", "MLUPS"},
         0,
         {"5 points"},
         Outcome::accepted},
        // Values on the command line.
        {"record: --value nan",
         record_value("nan"),
         2,
         {"--value 'nan'", "expected a finite number"}},
        {"record: --value -inf", record_value("-inf"), 2, {"--value '-inf'"}},
        {"record: --value 1e308",
         record_value("1e308"),
         2,
         {"--value '1e308'", "absurd magnitude"}},
        {"record: --label invalid UTF-8",
         {"record", "--history", history, "--metric", "MLUPS", "--label", "2023-\xff", "--value",
          "1"},
         2,
         {"--label", "invalid UTF-8"}},
        // Benchmark output: a bad value makes the point failed (no value), never a number.
        {"output: NaN",
         run(nan_sh),
         4,
         {"metric value 'nan' is not a finite number", "failed"},
         Outcome::skip},
        {"output: -inf after a good value",
         run(inf_sh),
         4,
         {"line 2: metric value '-inf'"},
         Outcome::skip},
        {"output: absurd 1e308", run(big_sh), 4, {"'1e308' is absurd magnitude"}, Outcome::skip},
        {"output: negative value", run(neg_sh), 0, {"-5.5", "ok"}, Outcome::accepted},
        {"output: huge line then the metric", run(huge_sh), 0, {"512.5", "ok"}, Outcome::accepted},
        {"output: invalid UTF-8 around the metric",
         run(garbled_sh),
         0,
         {"499.5", "ok"},
         Outcome::accepted},
        // Dates and times.
        {"date: 2023-02-30",
         {"daily", "--from", "2023-02-30", "--to", "2023-03-05", "--test", ok_sh},
         2,
         {"--from '2023-02-30'", "expected a calendar date"}},
        {"date: 2023-13-01",
         {"plan", "--stage", "daily", "--from", "2023-12-01", "--to", "2023-13-01"},
         2,
         {"--to '2023-13-01'", "calendar date"}},
        {"date: 2023-02-29 (not a leap year)",
         {"run", "--date", "2023-02-29", "--test", ok_sh},
         2,
         {"--date '2023-02-29'"}},
        {"time without zone",
         {"hourly", "--from", "2023-08-01T10:00", "--to", "2023-08-02T10:00Z", "--test", ok_sh,
          "--repo", "a=" + dir.path().string()},
         2,
         {"--from '2023-08-01T10:00'", "no zone"}},
        // Event payloads (GITHUB_EVENT_PATH); the API URL is closed, so reaching it would be
        // exit 3.
        {"event: number missing",
         comment,
         2,
         {"'pull_request' event names no PR", "pull_request.number"},
         Outcome::error,
         event("ev-missing.json", "pull_request")},
        {"event: number is a string",
         comment,
         2,
         {"ev-string.json", "'pull_request.number'", "positive integer"},
         Outcome::error,
         event("ev-string.json", "pull_request")},
        {"event: negative issue number",
         comment,
         2,
         {"ev-negative.json", "'issue.number'"},
         Outcome::error,
         event("ev-negative.json", "issues")},
        {"event: not JSON",
         comment,
         2,
         {"ev-notjson.json", "invalid JSON at offset"},
         Outcome::error,
         event("ev-notjson.json", "pull_request")},
        {"event: an array",
         comment,
         2,
         {"ev-array.json", "not a JSON object"},
         Outcome::error,
         event("ev-array.json", "issue_comment")},
        {"event: pull_request is a string",
         comment,
         2,
         {"ev-prstring.json", "'pull_request' is not an object"},
         Outcome::error,
         event("ev-prstring.json", "pull_request")},
        {"event: dispatch input not a number",
         comment,
         2,
         {"ev-dispatch.json", "input 'pr'"},
         Outcome::error,
         event("ev-dispatch.json", "workflow_dispatch")},
        {"event: file missing",
         comment,
         2,
         {"no-such-event.json", "cannot read"},
         Outcome::error,
         event("no-such-event.json", "pull_request")},
        // Config files (TOML).
        {"config: bad value",
         {"--config", f("value.toml"), "daily", "--to", "2023-08-03", "--test", ok_sh},
         2,
         {"--repeats", "three", "value.toml"}},
        {"config: unknown key",
         {"--config", f("key.toml"), "daily", "--to", "2023-08-03", "--test", ok_sh},
         2,
         {"[daily] has no key 'bogus'", "key.toml"}},
        {"config: broken section",
         {"--config", f("section.toml"), "daily", "--to", "2023-08-03", "--test", ok_sh},
         2,
         {"section.toml:1:", "TOML"}},
        {"config: impossible date",
         {"--config", f("date.toml"), "daily", "--to", "2023-08-03", "--test", ok_sh},
         2,
         {"--from '2023-02-30'"}},
        {"config: missing file",
         {"--config", f("nope.toml"), "daily", "--to", "2023-08-03", "--test", ok_sh},
         2,
         {"nope.toml"}},
        // State files of a resumable sweep.
        {"state: torn journal record", daily_with(f("state-trunc")), 2, {"journal.tsv:2:", "torn"}},
        {"state: garbled journal record",
         daily_with(f("state-garbled")),
         2,
         {"journal.tsv:2:", "unknown record 'garbage{'"}},
        {"state: journal of another sweep",
         daily_with(f("state-sweep")),
         2,
         {"journal.tsv", "use a fresh --state directory"}},
        {"state: an older perfsweep's state files",
         daily_with(f("state-old")),
         2,
         {"run-000001.json", "older perfsweep", "use a fresh --state directory"}},
    };

    int clear_errors = 0, skips = 0, accepted = 0, history_changed = 0, crashes = 0;
    for (const auto& c : cases) {
        INFO("case: " << c.name);
        const auto before = snapshot(dir.path());
        const auto r = run_perfsweep(c.args, c.env);
        const std::string all = r.out + r.err;
        INFO("exit " << r.exit_code << "\n" << all.substr(0, 2000));
        const bool crashed = r.exit_code < 0 || r.exit_code >= 128 ||
                             all.find("Sanitizer") != std::string::npos ||
                             all.find("runtime error") != std::string::npos ||
                             all.find("internal error") != std::string::npos;
        crashes += crashed ? 1 : 0;
        CHECK_FALSE(crashed);
        CHECK(r.exit_code == c.exit_code);
        bool all_found = true;
        for (const auto& s : c.expect) {
            INFO("expected substring: " << s);
            const bool found = all.find(s) != std::string::npos;
            all_found = all_found && found;
            CHECK(found);
        }
        CHECK(r.err.size() < 4096); // messages quote inputs briefly, never a 50 MiB line
        const bool changed = snapshot(dir.path()) != before;
        history_changed += changed ? 1 : 0;
        CHECK_FALSE(changed);
        if (!crashed && !changed && all_found && r.exit_code == c.exit_code) {
            clear_errors += c.outcome == Outcome::error ? 1 : 0;
            skips += c.outcome == Outcome::skip ? 1 : 0;
            accepted += c.outcome == Outcome::accepted ? 1 : 0;
        }
    }
    CHECK(read_file(history) == good);
    CHECK(clear_errors + skips + accepted == static_cast<int>(cases.size()));
    report_figure("corrupt-input", {{"cases", std::to_string(cases.size())},
                                    {"clear_errors", std::to_string(clear_errors)},
                                    {"documented_skips", std::to_string(skips)},
                                    {"accepted", std::to_string(accepted)},
                                    {"history_changed", std::to_string(history_changed)},
                                    {"crashes", std::to_string(crashes)}});
}
