// Issue 8 suite "Secrets": every command runs with GITHUB_TOKEN, PERFSWEEP_GIT_TOKEN and a
// configured --token-env variable set to one unique secret, on success and error paths (bad
// flags, a benchmark that prints its whole environment and fails, credentials inside a git+https
// history URL, HTTP 401 from the loopback GitHub). Then stdout/stderr, every file written (logs,
// state, history, reports, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, git cache) and the requests the
// fake GitHub server recorded are searched for the secret. The only allowed appearance is the
// `::add-mask::` line that asks the Actions runner to mask it.

#include "support/env_guard.hpp"
#include "support/fake_github.hpp"
#include "support/figures.hpp"
#include "support/temp_dir.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace perfsweep::test;
namespace fs = std::filesystem;

namespace {

/// `text` without the lines that start with "::add-mask::" (counted in `masks`).
std::string without_mask_lines(const std::string& text, int& masks) {
    std::istringstream in(text);
    std::string line, out;
    while (std::getline(in, line)) {
        if (line.rfind("::add-mask::", 0) == 0) {
            ++masks;
            continue;
        }
        out += line + "\n";
    }
    return out;
}

int occurrences(const std::string& text, const std::string& secret) {
    int n = 0;
    for (auto pos = text.find(secret); pos != std::string::npos; pos = text.find(secret, pos + 1))
        ++n;
    return n;
}

} // namespace

TEST_CASE("secrets: no command prints, logs, stores or posts the token", "[suites][secrets]") {
    std::random_device rd;
    const std::string secret = "ghp_SuiteSecret" + std::to_string(rd()) + std::to_string(rd());
    // A second secret in MY_TOKEN, named with --token-env by the commands that take it.
    const std::string secret2 = "MyOtherSecret" + std::to_string(rd()) + std::to_string(rd());
    std::unique_ptr<FakeGitHub> server;
    {
        EnvGuard fake_token("FAKE_GITHUB_TOKEN", secret); // the fake server accepts it
        server = std::make_unique<FakeGitHub>();
    }
    const FakeGitHub& gh = *server;
    TempDir dir("perfsweep-secrets");
    const auto f = [&](const std::string& name) { return dir.file(name); };
    const std::string history = f("history.jsonl"), logs = f("logs");
    write_file(f("body.md"), "report body\n");
    write_file(f("event.json"), R"({"action": "opened", "issue": {"number": 7}})");
    write_file(f("out.txt"), "");
    write_file(f("summary.md"), "");
    write_file(f("old.csv"), "label,value\n2023-07-01,500\n2023-07-02,501\n2023-07-03,500\n"
                             "2023-07-04,501\n");
    auto script = [&](const std::string& name, const std::string& body) {
        write_file(f(name), "#!/bin/sh\n" + body);
        fs::permissions(f(name), fs::perms::owner_all);
        return f(name);
    };
    // A benchmark that prints its whole environment (and the token variables by name).
    const std::string leak = script(
        "leak.sh", "env\necho \"token=$GITHUB_TOKEN git=$PERFSWEEP_GIT_TOKEN my=$MY_TOKEN\"\n"
                   "echo \"MLUPS: $((500 + ${PERFSWEEP_REPEAT:-1} % 2))\"\n");
    const std::string leak_fail = script("leak-fail.sh", "env\necho \"$GITHUB_TOKEN\"\nexit 3\n");
    // The same benchmark printing the secret itself (as if it had found it elsewhere): masked.
    TempDir secret_dir("perfsweep-secret-src"); // outside the scanned directory
    write_file(secret_dir.file("secret.txt"), secret);
    const std::string echo_secret =
        script("echo-secret.sh",
               "printf 'MLUPS: %s\\n' \"$(cat '" + secret_dir.file("secret.txt") + "')\"\n");

    std::vector<std::string> env = {"GITHUB_TOKEN=" + secret,
                                    "PERFSWEEP_GIT_TOKEN=" + secret,
                                    "GITHUB_ACTIONS=true",
                                    "GITHUB_OUTPUT=" + f("out.txt"),
                                    "GITHUB_STEP_SUMMARY=" + f("summary.md"),
                                    "GITHUB_EVENT_PATH=" + f("event.json"),
                                    "GITHUB_EVENT_NAME=issues",
                                    "GITHUB_REPOSITORY=acme/lbm",
                                    "GITHUB_API_URL=" +
                                        (gh.available() ? gh.url() : "http://127.0.0.1:1"),
                                    "PERFSWEEP_GITHUB_BACKOFF_S=0",
                                    "PERFSWEEP_GITHUB_TIMEOUT_S=2",
                                    "PERFSWEEP_CACHE_DIR=" + f("cache")};
    const std::vector<std::string> bench = {"--runtime", "none", "--logs", logs};
    auto with = [](std::vector<std::string> a, const std::vector<std::string>& b) {
        a.insert(a.end(), b.begin(), b.end());
        return a;
    };
    struct Cmd {
        std::string name;
        std::vector<std::string> args;
        bool needs_server = false;
    };
    std::vector<Cmd> cmds = {
        {"version", {"version"}},
        {"--version", {"--version"}},
        {"record",
         {"record", "--history", history, "--metric", "MLUPS", "--label", "2023-07-05", "--value",
          "500"}},
        {"record: bad value",
         {"record", "--history", history, "--metric", "MLUPS", "--value", "x"}},
        {"record: git+https URL with credentials",
         {"record", "--history", "git+https://x-access-token:" + secret + "@127.0.0.1:1/o/r.git#d",
          "--metric", "MLUPS", "--value", "1"}},
        {"import", {"import", "--history", history, "--metric", "MLUPS", f("old.csv")}},
        {"import: missing file", {"import", "--history", history, f("nope.csv")}},
        {"detect", {"detect", "--history", history, "--json"}},
        {"detect: bad flag", {"detect", "--history", history, "--threshold", "lots"}},
        {"run: benchmark prints its environment",
         with({"run", "--test", leak, "--repeats", "2", "--history", history, "--label",
               "2023-07-06"},
              bench)},
        {"run: failing benchmark prints its environment",
         with({"run", "--test", leak_fail}, bench)},
        {"run: benchmark prints the secret", with({"run", "--test", echo_secret}, bench)},
        {"run: --json", with({"run", "--test", leak, "--json", "--date", "2023-07-07"}, bench)},
        {"run: bad flag", {"run", "--test", leak, "--repeats", "zero"}},
        {"daily", with({"daily", "--from", "2023-07-10", "--to", "2023-07-12", "--test", leak,
                        "--state", f("state"), "--history", history, "--json"},
                       bench)},
        {"daily: failing benchmark",
         with({"daily", "--from", "2023-07-10", "--to", "2023-07-11", "--test", leak_fail}, bench)},
        {"hourly: bad flag", {"hourly", "--from", "2023-07-10T00:00", "--test", leak}},
        {"hourly: fetch with token",
         {"hourly", "--from", "2023-07-10T00:00Z", "--to", "2023-07-10T06:00Z", "--test", leak,
          "--repo", "a=" + f("nope-repo"), "--token-env", "MY_TOKEN"}},
        {"investigate: bad flag",
         {"investigate", "--history", history, "--threshold", "x", "--token-env", "MY_TOKEN"}},
        {"investigate: record and detect",
         with({"investigate", "--history", history, "--output-dir", f("inv"), "--token-env",
               "MY_TOKEN", "--test", leak, "--record", "2023-07-08"},
              bench)},
        {"report",
         {"report", "--input",
          std::string(PERFSWEEP_SOURCE_DIR) + "/tests/data/results/investigate.json", "--output",
          f("report.md")}},
        {"plan",
         {"plan", "--stage", "daily", "--from", "2023-07-01", "--to", "2023-07-04", "--history",
          history, "--benchmark", leak, "--exclude-measured"}},
        {"merge", {"merge", "--stage", "daily", f("points"), "--json"}},
        {"comment", {"comment", "--body-file", f("body.md"), "--key", "secrets"}, true},
        {"comment: --token-env",
         {"comment", "--body-file", f("body.md"), "--key", "secrets", "--token-env", "MY_TOKEN"},
         true},
        {"comment: HTTP 401", {"comment", "--body-file", f("body.md"), "--issue", "8"}, true},
        {"comment: bad flag", {"comment", "--body-file", f("body.md"), "--pr", "zero"}},
        {"probe: benchmark prints its environment",
         with({"probe", "--test", leak, "--reference", "500", "--repeats", "2"}, bench)},
        {"probe: exit-code mode, failing benchmark",
         with({"probe", "--check", "exit-code", "--test", leak_fail}, bench)},
        {"issue-request: refused (no author), comment with --token-env",
         {"issue-request", "--event", f("event.json"), "--event-name", "issues", "--token-env",
          "MY_TOKEN"},
         true},
    };
    if (suite_scale() >= 2) // the whole pipeline (record, detect, daily, hourly, commit, report)
        cmds.push_back({"demo", {"demo", "--output-dir", f("demo")}});

    int masks = 0, found = 0, commands = 0;
    for (const auto& c : cmds) {
        if (c.needs_server && !gh.available()) {
            WARN("node is missing: skipped " << c.name);
            continue;
        }
        if (c.name == "comment: HTTP 401")
            gh.control("faults", R"([{"method":"GET","status":401,"message":"Bad credentials"}])");
        INFO("command: " << c.name);
        auto cmd_env = env;
        if (std::find(c.args.begin(), c.args.end(), "--token-env") != c.args.end())
            cmd_env.push_back("MY_TOKEN=" + secret2);
        const auto r = run_perfsweep(c.args, cmd_env);
        ++commands;
        WARN(c.name << ": exit " << r.exit_code);
        INFO("exit " << r.exit_code << "\n" << (r.out + r.err).substr(0, 3000));
        CHECK(r.exit_code >= 0);
        CHECK(r.exit_code < 128);
        const std::string printed = without_mask_lines(r.out, masks) + r.err;
        const int n = occurrences(printed, secret) + occurrences(printed, secret2);
        found += n;
        CHECK(n == 0);
        if (c.name == "run: --json")
            write_file(f("points/p.json"), r.out);
        if (c.name == "comment: HTTP 401")
            CHECK(r.exit_code == 3);
        if (c.name == "run: failing benchmark prints its environment")
            CHECK(r.exit_code == 4);
    }

    // Every file written by any command.
    int files = 0;
    for (const auto& e : fs::recursive_directory_iterator(dir.path())) {
        if (!e.is_regular_file())
            continue;
        ++files;
        const std::string text = read_file(e.path().string());
        const int n = occurrences(text, secret) + occurrences(text, secret2);
        INFO("file: " << e.path().string());
        CHECK(n == 0);
        found += n;
    }
    // What the benchmarks really saw: every environment dump shows empty token variables (the
    // tokens were not inherited; a masked "***" would mean they were).
    int env_dumps = 0;
    for (const auto& e : fs::recursive_directory_iterator(dir.path())) {
        if (!e.is_regular_file() || e.path().extension() != ".log")
            continue;
        const std::string text = read_file(e.path().string());
        if (text.find("token=") == std::string::npos)
            continue;
        ++env_dumps;
        INFO("log: " << e.path().string());
        CHECK(text.find("token= git= my=\n") != std::string::npos);
        CHECK(text.find("TOKEN=") == std::string::npos);
    }
    CHECK(env_dumps >= 4);
    // What reached the GitHub API (bodies, paths, queries, headers; the server redacts only the
    // Authorization header's value) and the comments it now holds.
    if (gh.available()) {
        const std::string requests = gh.control("requests"), state = gh.control("state");
        CHECK(requests.find("report body") != std::string::npos); // the comment really went out
        files += 2;
        for (const auto& s : {secret, secret2}) {
            found += occurrences(requests, s) + occurrences(state, s);
            CHECK(occurrences(requests, s) == 0);
            CHECK(occurrences(state, s) == 0);
        }
    }
    report_figure("secrets", {{"commands", std::to_string(commands)},
                              {"env_dumps", std::to_string(env_dumps)},
                              {"files_scanned", std::to_string(files)},
                              {"occurrences", std::to_string(found)},
                              {"add_mask_lines", std::to_string(masks)}});
}
