// Injection (issue 8): hostile strings in every place untrusted text enters perfsweep — labels,
// benchmark output (stdout and stderr), metric and benchmark names, commit subjects, authors and
// branch names of the source repos, image tags, stored history, result JSON, issue bodies and
// comments on the (loopback) GitHub API, the event payload, and the action's inputs — while the
// real commands run with GITHUB_ACTIONS=true and GITHUB_OUTPUT / GITHUB_STEP_SUMMARY files.
// After every case: the canary file must not exist (nothing was executed), every workflow command
// the runner would read from stdout/stderr must be perfsweep's own (support/actions_audit), the
// GITHUB_OUTPUT file must parse with the runner's rules into the expected keys only, and the
// markdown (summary, report, posted comments) must not ping anyone or open a code fence.
#include "support/actions_audit.hpp"
#include "support/fake_github.hpp"
#include "support/figures.hpp"
#include "support/temp_dir.hpp"

#include <catch2/catch.hpp>
#include <rapidjson/document.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

using namespace perfsweep::test;
namespace fs = std::filesystem;

namespace {

/// The hostile strings; {C} is replaced by the canary path.
std::vector<std::string> hostile_strings(const std::string& canary) {
    std::vector<std::string> h = {
        "$(touch {C})",
        "`touch {C}`",
        "x; touch {C}; y",
        "x | touch {C}",
        "x && touch {C}",
        "q'\"q",
        "l1\n::set-output name=forged::1",
        "c1\r::add-mask::INJ",
        "::error::INJ",
        "%0A::warning::INJ%0D",
        "x ##[set-output name=forged;]1",
        "y ##[stop-commands]tok",
        "@victim ```inj",
        "bidi \xe2\x80\xae"
        "INJ\xe2\x81\xa6",
        "\xe2\x80\x83::notice::INJ",
        "::stop-commands::tok",
        std::string(100 * 1024, 'A') + "$(touch {C})",
    };
    for (auto& s : h) {
        for (auto p = s.find("{C}"); p != std::string::npos; p = s.find("{C}"))
            s.replace(p, 3, canary);
    }
    return h;
}

/// Counts per figure.
struct Totals {
    int cases = 0;
    int commands_executed = 0;   ///< canary files created
    int workflow_commands = 0;   ///< commands the runner would process (ours included)
    int forged_commands = 0;     ///< not perfsweep's own
    int forged_outputs = 0;      ///< GITHUB_OUTPUT entries/keys not expected, or a broken file
    int markdown_injections = 0; ///< raw @mention or ``` fence from untrusted text
    std::vector<std::string> notes;
};

/// Report the figure `suite` of `t` (cases, then `extra`, then the counts), then fail on any
/// executed command, forged workflow command or output, or markdown injection.
void report_and_check(const std::string& suite, const Totals& t,
                      const std::vector<FigureField>& extra = {}) {
    std::vector<FigureField> fields = {{"cases", std::to_string(t.cases)}};
    fields.insert(fields.end(), extra.begin(), extra.end());
    fields.insert(fields.end(), {{"commands_executed", std::to_string(t.commands_executed)},
                                 {"workflow_commands_seen", std::to_string(t.workflow_commands)},
                                 {"forged_workflow_commands", std::to_string(t.forged_commands)},
                                 {"forged_outputs", std::to_string(t.forged_outputs)},
                                 {"markdown_injections", std::to_string(t.markdown_injections)}});
    report_figure(suite, fields);
    std::string notes;
    for (const auto& n : t.notes)
        notes += n.substr(0, 300) + "\n";
    INFO(notes);
    CHECK(t.commands_executed == 0);
    CHECK(t.forged_commands == 0);
    CHECK(t.forged_outputs == 0);
    CHECK(t.markdown_injections == 0);
}

/// One sandbox: canary, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, and the Actions environment.
struct Sandbox {
    TempDir dir{"perfsweep-inject"};
    std::string canary = dir.file("CANARY");
    std::string output = dir.file("github_output");
    std::string summary = dir.file("step_summary.md");
    std::vector<std::string> hostile = hostile_strings(canary);

    std::vector<std::string> env(std::vector<std::string> extra = {}) const {
        std::vector<std::string> e = {
            "GITHUB_ACTIONS=true", "GITHUB_OUTPUT=" + output, "GITHUB_STEP_SUMMARY=" + summary,
            "GITHUB_EVENT_PATH=",  "GITHUB_EVENT_NAME=",      "GITHUB_REPOSITORY=",
            "GITHUB_TOKEN="};
        e.insert(e.end(), extra.begin(), extra.end());
        return e;
    }
};

std::string short_name(const std::string& s) {
    std::string o;
    for (char c : s.substr(0, 40))
        o += (c == '\n' || c == '\r') ? '~' : c;
    return o;
}

/// Raw mentions of @victim and fences opened by the hostile text in `md`.
int markdown_problems(const std::string& md) {
    int n = 0;
    for (auto p = md.find("@victim"); p != std::string::npos; p = md.find("@victim", p + 1))
        ++n;
    for (auto p = md.find("```inj"); p != std::string::npos; p = md.find("```inj", p + 1))
        ++n;
    return n;
}

/// Audit one finished command; `keys` are the GITHUB_OUTPUT names it may write.
void audit(Sandbox& sb, Totals& t, const std::string& what, const CommandResult& r,
           const std::set<std::string>& keys, const std::vector<std::string>& markdown = {},
           const std::set<std::string>& masks = {}) {
    ++t.cases;
    if (fs::exists(sb.canary)) {
        ++t.commands_executed;
        t.notes.push_back(what + ": canary created");
        fs::remove(sb.canary);
    }
    for (const auto* stream : {&r.out, &r.err}) {
        const auto a = audit_workflow_commands(*stream, masks);
        t.workflow_commands += a.commands;
        t.forged_commands += static_cast<int>(a.forged.size());
        for (const auto& f : a.forged)
            t.notes.push_back(what + ": forged " + short_name(f));
    }
    if (fs::exists(sb.output)) {
        std::string err;
        const auto entries = parse_github_output(read_file(sb.output), &err);
        if (!err.empty()) {
            ++t.forged_outputs;
            t.notes.push_back(what + ": GITHUB_OUTPUT " + err);
        }
        for (const auto& [k, v] : entries)
            if (!keys.count(k)) {
                ++t.forged_outputs;
                t.notes.push_back(what + ": unexpected output key " + short_name(k));
            }
        fs::remove(sb.output);
    }
    std::vector<std::string> md = markdown;
    if (fs::exists(sb.summary)) {
        md.push_back(read_file(sb.summary));
        fs::remove(sb.summary);
    }
    for (const auto& m : md) {
        const int n = markdown_problems(m);
        t.markdown_injections += n;
        if (n)
            t.notes.push_back(what + ": markdown injection");
    }
}

std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> out;
    std::size_t start = 0;
    for (std::size_t p = text.find('\n'); p != std::string::npos; p = text.find('\n', start)) {
        out.push_back(text.substr(start, p - start));
        start = p + 1;
    }
    return out;
}

std::string git(const std::string& dir, const std::vector<std::string>& args,
                const std::vector<std::string>& env = {}) {
    std::vector<std::string> argv{"git", "-C", dir};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = run_command(argv, env);
    INFO("git " << args.front() << ": " << r.err);
    REQUIRE(r.exit_code == 0);
    return r.out;
}

} // namespace

TEST_CASE("injection: hostile text in every input executes nothing and forges nothing",
          "[suites][injection]") {
    Sandbox sb;
    Totals t;
    const auto& H = sb.hostile;
    const std::set<std::string> none;
    const std::set<std::string> point_keys = {"points", "failed-points"}; // run and record
    const std::string bench = sb.dir.file("bench.sh");
    // The benchmark prints every hostile string on stdout and stderr, then its metric. One file
    // holds them all (a line each): two cat processes a run, not two a string.
    std::string all_hostile;
    for (const auto& h : H)
        all_hostile += h + "\n";
    const std::string hostile_file = sb.dir.file("hostile.txt");
    write_file(hostile_file, all_hostile);
    const std::string script = "#!/bin/sh\ncat '" + hostile_file + "'; cat '" + hostile_file +
                               "' >&2\nprintf 'MLUPS: 500.5\\n'\n";
    write_file(bench, script);
    const std::string history = sb.dir.file("history.jsonl");
    // At scale 1 every hostile string goes through every kind of place once (rotating over the
    // variants); PERFSWEEP_SUITE_SCALE >= 2 tries every string with every variant.
    const bool full = suite_scale() >= 2;

    // 1. run: hostile labels reach the test's argv ({label}), the log echo, the table, the JSON
    //    and the history; benchmark output is hostile on both streams.
    for (std::size_t i = 0; i < H.size(); ++i) {
        for (bool json : {false, true}) {
            if (!full && json != (i % 2 == 1))
                continue;
            std::vector<std::string> args = {"run",
                                             "--runtime",
                                             "none",
                                             "--test",
                                             "sh " + bench + " {label}",
                                             "--label",
                                             H[i],
                                             "--metric",
                                             "MLUPS",
                                             "--logs",
                                             sb.dir.file("logs"),
                                             "--benchmark",
                                             "bench " + H[(i + 3) % H.size()]};
            if (json)
                args.push_back("--json");
            else
                args.insert(args.end(), {"--history", history});
            auto r = run_perfsweep(args, sb.env());
            INFO("run label #" << i << " json=" << json << "\n" << r.err.substr(0, 2000));
            CHECK((r.exit_code == 0 || r.exit_code == 2));
            audit(sb, t, "run label #" + std::to_string(i), r, point_keys);
        }
    }
    // 2. record from a hostile output file with a hostile label and reason; 3. detect over the
    //    history of hostile labels (text and JSON).
    for (std::size_t i = 0; i < H.size(); ++i) {
        const std::string out = sb.dir.file("out.txt");
        write_file(out, H[i] + "\nMLUPS: 499\n" + H[(i + 1) % H.size()] + "\n");
        auto r = run_perfsweep({"record", "--history", history, "--metric", "MLUPS", "--label",
                                H[i], "--benchmark-output", out, "--benchmark",
                                "bench " + H[(i + 3) % H.size()]},
                               sb.env());
        INFO("record #" << i << " " << r.err.substr(0, 2000));
        CHECK((r.exit_code == 0 || r.exit_code == 2));
        audit(sb, t, "record #" + std::to_string(i), r, point_keys);
    }
    for (const char* fmt : {"", "--json"}) {
        std::vector<std::string> args = {"detect", "--history", history};
        if (*fmt)
            args.push_back(fmt);
        auto r = run_perfsweep(args, sb.env());
        CHECK(r.exit_code != 3);
        audit(sb, t, std::string("detect ") + fmt, r,
              {"verdict", "relative-change", "last-good", "first-bad", "series", "regressions"});
    }
    // 4. hostile flag values that are refused: the error message quotes them.
    for (std::size_t i = 0; i < H.size(); ++i) {
        std::size_t variant = 0;
        for (const auto& args : std::vector<std::vector<std::string>>{
                 {"run", "--runtime", H[i], "--test", "true"},
                 {"run", "--runtime", "none", "--test", "true", "--timeout", H[i]},
                 {"detect", "--history", sb.dir.file("missing") + H[i]},
                 {"investigate", "--history", history, "--from", H[i], "--to", "2023-08-01"},
                 {"report", "--input", H[i]},
                 {"comment", "--github-repo", H[i], "--issue", "1", "--body-file", bench},
                 {"hourly", "--repo", "x=" + H[i], "--from", "2023-08-24T00:00:00Z", "--to",
                  "2023-08-24T02:00:00Z", "--plan"}}) {
            if (!full && variant++ % 3 != i % 3)
                continue;
            auto r = run_perfsweep(args, sb.env({"GITHUB_TOKEN=tok-user"}));
            INFO(args[0] << " #" << i << ": " << r.err.substr(0, 500));
            CHECK(r.exit_code != 0);
            // detect on a missing history is inconclusive and publishes that verdict.
            const std::set<std::string> detect_keys = {"verdict", "relative-change", "last-good",
                                                       "first-bad"};
            audit(sb, t, args[0] + " bad flag #" + std::to_string(i), r,
                  args[0] == "detect" ? detect_keys : none, {}, {"tok-user"});
        }
    }
    // 5. hourly over a repo whose commit subject, body, author and merged branch name are hostile;
    //    then the report of its JSON (markdown candidates list).
    {
        const std::string repo = sb.dir.file("fw");
        fs::create_directories(repo);
        git(repo, {"init", "-q", "-b", "main"});
        auto at = [](int h) {
            const std::string d = "@" + std::to_string(1692835200 + h * 3600) + " +0000";
            return std::vector<std::string>{"GIT_AUTHOR_DATE=" + d, "GIT_COMMITTER_DATE=" + d};
        };
        const std::vector<std::string> who = {"-c", "user.name=Dev", "-c",
                                              "user.email=dev@example.com"};
        auto commit = [&](int h, const std::string& speed, const std::string& msg,
                          const std::vector<std::string>& author) {
            write_file(repo + "/speed.txt", speed + "\n");
            write_file(repo + "/hour.txt", std::to_string(h) + "\n");
            git(repo, {"add", "-A"});
            std::vector<std::string> a = author.empty() ? who : author;
            a.insert(a.end(), {"commit", "-q", "-m", msg});
            git(repo, a, at(h));
        };
        commit(0, "100", "init", {});
        const std::string branch = "pr/$(touch${IFS}" + sb.canary + ")`id`;x|y&&@victim";
        git(repo, {"checkout", "-q", "-b", branch});
        std::string body = "::set-output name=forged::1 @victim ```inj ##[set-output name=x;]y\n\n";
        for (std::size_t i = 0; i + 1 < H.size(); ++i)
            body += H[i] + "\n";
        commit(
            1, "80", body,
            {"-c",
             "user.name=Eve ::error::INJ @victim ```inj ##[add-mask]x $(touch " + sb.canary + ")",
             "-c", "user.email=eve@victim.example"});
        git(repo, {"checkout", "-q", "main"});
        auto merge = who;
        merge.insert(merge.end(), {"merge", "-q", "--no-ff", "--no-edit", branch});
        git(repo, merge, at(2));
        commit(3, "80", "docs `touch " + sb.canary + "`", {});
        git(repo, {"update-ref", "refs/remotes/origin/main", "main"});
        const std::string bench2 = sb.dir.file("bench2.sh");
        write_file(bench2, "#!/bin/sh\necho \"MLUPS: $(cat \"$1/speed.txt\").$(($$ % 10))\"\n");
        const std::string result = sb.dir.file("hourly.json");
        for (bool json : {false, true}) {
            std::vector<std::string> args = {"hourly",
                                             "--repo",
                                             "fw=" + repo,
                                             "--from",
                                             "2023-08-24T00:30:00Z",
                                             "--to",
                                             "2023-08-24T03:30:00Z",
                                             "--step",
                                             "1h",
                                             "--test",
                                             "sh " + bench2 + " {path:fw}",
                                             "--build",
                                             "true",
                                             "--to-commit",
                                             "--logs",
                                             sb.dir.file("hlogs"),
                                             "--metric",
                                             "MLUPS"};
            if (json)
                args.push_back("--json");
            auto r = run_perfsweep(args, sb.env());
            INFO("hourly: " << r.err.substr(0, 3000));
            CHECK(r.exit_code == 0);
            audit(sb, t, json ? "hourly --json" : "hourly", r, none);
            if (json)
                write_file(result, r.out);
        }
        CHECK(read_file(result).find("Merge branch") != std::string::npos);
        for (const char* fmt : {"markdown", "json"}) {
            std::vector<std::string> args = {"report", "--input", result};
            if (std::string(fmt) == "json")
                args.push_back("--json");
            auto r = run_perfsweep(args, sb.env());
            CHECK(r.exit_code == 0);
            audit(sb, t, std::string("report hourly ") + fmt, r, none,
                  {std::string(fmt) == "markdown" ? r.out : ""});
        }
    }

    // 6. image tags: hostile text in the --image template (fake docker on PATH, which runs the
    //    container's command here with execvp). The image must reach docker as ONE argv word.
    {
        const std::string bin = sb.dir.file("bin"), state = sb.dir.file("dstate");
        const std::string calls = sb.dir.file("docker-calls.jsonl");
        fs::create_directories(bin);
        fs::create_directories(state);
        fs::create_symlink(std::string(PERFSWEEP_SOURCE_DIR) + "/tests/support/fake_docker",
                           bin + "/docker");
        std::string remote;
        std::vector<std::string> images;
        for (const auto& h : H)
            if (h.find_first_of("\r\n") == std::string::npos && h.size() < 1000) {
                images.push_back("reg/jax:nightly-2023-08-24" + h);
                remote += images.back() + "\n";
            }
        write_file(state + "/remote", remote);
        write_file(state + "/images", "");
        const std::vector<std::string> denv = {"PATH=" + bin + ":" + std::getenv("PATH"),
                                               "FAKE_DOCKER_LOG=" + calls,
                                               "FAKE_DOCKER_STATE=" + state};
        int one_word = 0, refused_images = 0;
        std::string missing;
        for (std::size_t i = 0; i < images.size(); ++i) {
            const std::string tmpl = "reg/jax:nightly-{date}" + images[i].substr(26);
            auto r = run_perfsweep({"run", "--runtime", "docker", "--image", tmpl, "--date",
                                    "2023-08-24", "--test", "sh " + bench, "--metric", "MLUPS",
                                    "--logs", sb.dir.file("dlogs")},
                                   sb.env(denv));
            INFO("docker image #" << i << ": " << r.err.substr(0, 1500));
            CHECK((r.exit_code == 0 || r.exit_code == 2 || r.exit_code == 4));
            audit(sb, t, "docker image #" + std::to_string(i), r, point_keys);
            // Exactly one argv word of some docker call equals the expanded image.
            bool found = false;
            if (fs::exists(calls))
                for (const auto& line : split_lines(read_file(calls))) {
                    rapidjson::Document d;
                    d.Parse(line.c_str());
                    if (!d.HasParseError() && d.IsArray())
                        for (const auto& w : d.GetArray())
                            found = found || (w.IsString() && w.GetString() == images[i]);
                }
            one_word += found ? 1 : 0;
            // A template that does not split (an unclosed quote) is refused, naming --image.
            const bool refused =
                !found && r.exit_code == 2 && r.err.find("--image") != std::string::npos;
            refused_images += refused ? 1 : 0;
            if (!found && !refused)
                missing += "#" + std::to_string(i) + " rc " + std::to_string(r.exit_code) + " " +
                           r.err.substr(0, 300) + "\n";
        }
        INFO("images reaching docker as one argv word: " << one_word << "/" << images.size() << "\n"
                                                         << missing);
        CHECK(one_word + refused_images == static_cast<int>(images.size()));
        CHECK(one_word >= static_cast<int>(images.size()) - 1);
    }

    report_and_check("injection_cli", t, {{"hostile_strings", std::to_string(H.size())}});
}

TEST_CASE("injection: GitHub comments, the pipeline, issue requests and the action's inputs",
          "[suites][injection]") {
    Sandbox sb;
    Totals t;
    const auto& H = sb.hostile;
    FakeGitHub gh;
    const std::string history = sb.dir.file("history.jsonl");
    const bool full = suite_scale() >= 2; // see the first case
    std::string bench_name = "b";
    for (std::size_t i = 0; i + 1 < H.size(); ++i) // all but the 100 kB one, in one name
        bench_name += " " + H[i];
    // 1. investigate over a history whose benchmark name, images and reasons are hostile: step
    //    outputs, job summary, report.
    for (int d = 1; d <= 8; ++d) {
        const std::string day = "2023-08-0" + std::to_string(d);
        auto r = run_perfsweep({"record", "--history", history, "--metric", "MLUPS", "--benchmark",
                                bench_name, "--label", day, "--value", "500", "--value", "501",
                                "--image", H[static_cast<std::size_t>(d) % H.size()]},
                               sb.env());
        REQUIRE(r.exit_code == 0);
        audit(sb, t, "record " + day, r, {"points", "failed-points"});
    }
    const std::set<std::string> investigate_keys = {
        "verdict",     "relative-change", "last-good",   "first-bad", "window",          "culprit",
        "report-path", "result-path",     "comment-url", "cause",     "environment-diff"};
    auto inv =
        run_perfsweep({"investigate", "--history", history, "--metric", "MLUPS", "--benchmark",
                       bench_name, "--test", "true", "--output-dir", sb.dir.file("inv")},
                      sb.env());
    INFO(inv.err.substr(0, 2000));
    CHECK(inv.exit_code == 0);
    const std::string report = sb.dir.file("inv/report.md");
    REQUIRE(fs::exists(report));
    audit(sb, t, "investigate", inv, investigate_keys, {read_file(report), inv.out});

    // 2. The offline demo (the whole pipeline) inside Actions.
    auto demo = run_perfsweep({"demo", "--output-dir", sb.dir.file("demo")}, sb.env());
    CHECK(demo.exit_code == 0);
    audit(sb, t, "demo", demo, investigate_keys, {demo.out});

    if (gh.available()) {
        // 3. comment: the hostile report onto an issue whose title, body and other comments are
        //    hostile (one copies our marker); then --new-issue with a hostile title; then the
        //    target from a hostile issue_comment payload.
        std::string seed = R"({"repo":"acme/lbm","number":5,"issue":{"title":")";
        auto esc = [](const std::string& s) {
            std::string o;
            for (char c : s) {
                if (c == '"' || c == '\\')
                    o += '\\', o += c;
                else if (c == '\n')
                    o += "\\n";
                else if (c == '\r')
                    o += "\\r";
                else
                    o += c;
            }
            return o;
        };
        seed += esc(H[6]) + R"(","body":")" + esc(bench_name) +
                R"("},"comments":[{"login":"mallory","body":")" +
                esc("<!-- perfsweep:default -->\n" + bench_name) +
                R"("},{"login":"mallory","body":")" + esc(H[16]) + R"("}]})";
        gh.control("seed", seed);
        const std::vector<std::string> genv = {"GITHUB_API_URL=" + gh.url(),
                                               "GITHUB_TOKEN=tok-user",
                                               "PERFSWEEP_GITHUB_BACKOFF_S=0.05"};
        auto c1 = run_perfsweep(
            {"comment", "--github-repo", "acme/lbm", "--issue", "5", "--body-file", report},
            sb.env(genv));
        CHECK(c1.exit_code == 0);
        const std::string state = gh.control("state");
        audit(sb, t, "comment", c1, {"comment-url", "number"}, {}, {"tok-user"});
        auto c2 = run_perfsweep({"comment", "--github-repo", "acme/lbm", "--new-issue", bench_name,
                                 "--issue-label", "perf", "--body-file", report},
                                sb.env(genv));
        CHECK(c2.exit_code == 0);
        audit(sb, t, "comment --new-issue", c2, {"comment-url", "number"}, {}, {"tok-user"});
        const std::string event = sb.dir.file("event.json");
        write_file(event, R"({"action":"created","issue":{"number":5,"title":")" + esc(H[7]) +
                              R"("},"comment":{"body":")" + esc(bench_name) +
                              R"("},"repository":{"full_name":"acme/lbm"}})");
        auto c3 = run_perfsweep(
            {"comment", "--github-repo", "acme/lbm", "--body-file", report},
            sb.env({"GITHUB_API_URL=" + gh.url(), "GITHUB_TOKEN=tok-user",
                    "GITHUB_EVENT_PATH=" + event, "GITHUB_EVENT_NAME=issue_comment"}));
        CHECK(c3.exit_code == 0);
        // What perfsweep posted: our comment bodies and the new issue's body (an issue title is
        // plain text on GitHub: neither mentions nor fences render there).
        std::vector<std::string> posted;
        {
            rapidjson::Document d;
            const std::string st = gh.control("state");
            d.Parse(st.c_str());
            REQUIRE(!d.HasParseError());
            for (const auto& i : d["issues"].GetObject()) {
                if (i.value.HasMember("login") && i.value["login"] == "perf-bot-user")
                    posted.emplace_back(i.value["body"].GetString());
                for (const auto& c : i.value["comments"].GetArray())
                    if (c["login"] == "perf-bot-user")
                        posted.emplace_back(c["body"].GetString());
            }
        }
        CHECK(posted.size() == 2); // one sticky comment (updated twice) and the new issue
        audit(sb, t, "comment (event target)", c3, {"comment-url", "number"}, posted, {"tok-user"});
        CHECK(state.find("mallory") != std::string::npos);

        // 4. issue-request with every hostile string in the block and in the login.
        std::string block = "```perfsweep\nfrom: 2023-08-01\nto: 2023-08-09\n";
        for (std::size_t i = 0; i + 1 < H.size(); ++i)
            block += "metric: " + H[i] + "\n" + H[i] + ": 1\n";
        block += "```\n";
        for (const std::string& login : {std::string("alice"), H[6]}) {
            write_file(event, R"({"action":"labeled","issue":{"number":9,"body":")" + esc(block) +
                                  R"(","author_association":"OWNER","user":{"login":")" +
                                  esc(login) + R"("}},"repository":{"full_name":"acme/lbm"}})");
            auto r =
                run_perfsweep({"issue-request"},
                              sb.env({"GITHUB_API_URL=" + gh.url(), "GITHUB_TOKEN=tok-user",
                                      "GITHUB_EVENT_PATH=" + event, "GITHUB_EVENT_NAME=issues"}));
            CHECK(r.exit_code == 2);
            audit(sb, t, "issue-request", r, {"accepted", "comment-url"}, {}, {"tok-user"});
        }
    } else {
        WARN("node not found; the GitHub cases are skipped");
    }

    // 5. The action's wrapper (action/run.sh) with the real binary: every hostile string as the
    //    label, benchmark name and test argument of `run`, and as the history of `detect`.
    const std::string bench = sb.dir.file("bench.sh");
    write_file(bench, "#!/bin/sh\nprintf '%s\\n' \"$@\"\nprintf 'MLUPS: 500\\n'\n");
    for (std::size_t i = 0; i < H.size(); ++i) {
        for (const std::string mode : {"run", "detect"}) {
            if (!full && (mode == "run") != (i % 3 != 2))
                continue;
            std::vector<std::string> env =
                sb.env({"PERFSWEEP_BIN=" + std::string(PERFSWEEP_EXE), "PERFSWEEP_IN_MODE=" + mode,
                        "PERFSWEEP_IN_METRIC=MLUPS", "GITHUB_TOKEN=ghs_secret"});
            if (mode == "run")
                env.insert(env.end(), {"PERFSWEEP_IN_RUNTIME=none", "PERFSWEEP_IN_LABEL=" + H[i],
                                       "PERFSWEEP_IN_TEST=sh " + bench + " {label} " + H[i],
                                       "PERFSWEEP_IN_EXTRA_ARGS=--logs=" + sb.dir.file("alogs") +
                                           "\n--benchmark=" + H[(i + 1) % H.size()]});
            else
                env.insert(env.end(), {"PERFSWEEP_IN_HISTORY=" + H[i]});
            auto r =
                run_command({"bash", std::string(PERFSWEEP_SOURCE_DIR) + "/action/run.sh"}, env);
            INFO(mode << " #" << i << ": " << r.err.substr(0, 1000));
            CHECK(r.exit_code != 127);
            // detect also publishes its verdict, window ends and series counts, run its points
            // (action.yml's outputs).
            audit(sb, t, "action " + mode + " #" + std::to_string(i), r,
                  {"exit-code", "verdict", "relative-change", "last-good", "first-bad", "series",
                   "regressions", "points", "failed-points"},
                  {}, {"ghs_secret"});
        }
    }

    report_and_check("injection_github_pipeline_action", t);
}
