// GitHub faults suite (issue 8): every fault kind of the loopback GitHub API
// (tests/support/fake_github/server.js) injected at every request index of the sticky comment
// flow (`perfsweep comment` creating, then updating) and of the nightly issue flow
// (`perfsweep comment --new-issue`, opening, then reusing the issue). Each flow must either
// complete (exit 0, exactly one report where it belongs) or fail cleanly (exit 2 or 3 with a
// "perfsweep: error: GitHub ..." message), never post a second copy, never hang, never print the
// token. Flows run on several fake servers at once (one per worker thread; the fault list of a
// server is shared by its requests, so a server serves one flow at a time).
//
// The first flow of each fault kind runs the sanitized binary (under `timeout`): the exit code,
// stderr's "perfsweep: error: GitHub ..." line and the token's absence from what the process
// prints. The other flows run the same command in-process, as the binary does (the CLI's option
// rules, the real ActionsEnv, the real libcurl GitHubClient, app::post_sticky_comment, the CLI's
// error-to-exit-code mapping), with a watchdog in place of `timeout`: a sanitized start costs
// ~0.1 CPU-s, which 182 flows made most of the suite's cost.

#include "adapters/github/actions_env.hpp"
#include "adapters/github/github_client.hpp"
#include "adapters/system/local_files.hpp"
#include "app/comment.hpp"
#include "app/options_data.hpp"
#include "support/command_values.hpp"
#include "support/fake_github.hpp"
#include "support/figures.hpp"
#include "support/temp_dir.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>
#include <rapidjson/document.h>

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

using namespace perfsweep;
using namespace perfsweep::test;

namespace {

constexpr const char* k_token = "tok-user";
constexpr const char* k_marker = "<!-- perfsweep:nightly -->";
constexpr int k_hang_after_s = 60;

struct Spawned {
    int exit_code = -1;
    std::string out, err;
};

/// Run `argv` with environment `env` (complete), capturing stdout and stderr. Thread-safe: the
/// pipes are close-on-exec, so concurrent children never hold each other's pipes.
Spawned spawn_capture(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
    // No Catch2 assertions here: this runs on worker threads.
    Spawned r;
    int out_pipe[2], err_pipe[2];
    if (::pipe2(out_pipe, O_CLOEXEC) != 0)
        return r;
    if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
        ::close(out_pipe[0]);
        ::close(out_pipe[1]);
        return r;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, out_pipe[1], 1);
    posix_spawn_file_actions_adddup2(&fa, err_pipe[1], 2);
    std::vector<char*> args, envp;
    for (const auto& a : argv)
        args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    for (const auto& e : env)
        envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    pid_t pid = -1;
    const int rc = ::posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), envp.data());
    posix_spawn_file_actions_destroy(&fa);
    ::close(out_pipe[1]);
    ::close(err_pipe[1]);
    if (rc != 0) {
        ::close(out_pipe[0]);
        ::close(err_pipe[0]);
        r.err = "posix_spawnp failed";
        return r;
    }
    pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
    std::string* sinks[2] = {&r.out, &r.err};
    int open_fds = 2;
    char buf[4096];
    while (open_fds > 0) {
        if (::poll(fds, 2, -1) < 0)
            break;
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            const auto n = ::read(fds[i].fd, buf, sizeof buf);
            if (n > 0) {
                sinks[i]->append(buf, static_cast<std::size_t>(n));
            } else {
                ::close(fds[i].fd);
                fds[i].fd = -1;
                --open_fds;
            }
        }
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return r;
}

/// The environment of this process with `overrides` ("K=V") replacing or adding entries.
std::vector<std::string> environment_with(const std::vector<std::string>& overrides) {
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e) {
        const std::string kv = *e;
        const auto key = kv.substr(0, kv.find('=') + 1);
        bool replaced = false;
        for (const auto& o : overrides)
            replaced |= o.rfind(key, 0) == 0;
        if (!replaced)
            env.push_back(kv);
    }
    env.insert(env.end(), overrides.begin(), overrides.end());
    return env;
}

/// `perfsweep comment ARGS` in-process in an environment of only `env` ("K=V"), as the binary
/// runs it (src/cli/cmd_comment.cpp, main.cpp's GitHubHosts): out is what it prints, err the CLI's
/// error line, the exit code the CLI's (2 usage, 3 other errors; 3 and "internal error" for an
/// exception that is not a perfsweep::Error). Thread-safe; no Catch2 assertions.
Spawned comment_in_process(const std::vector<std::string>& args,
                           const std::vector<std::string>& env) {
    const auto get = env_reader(env);
    Spawned r;
    try {
        const auto [res, repo] = post_comment_in_process(args, get);
        r.out = res.action + " " + repo + "#" + std::to_string(res.number) +
                (res.url.empty() ? "" : " " + res.url) + "\n";
        r.exit_code = 0;
    } catch (const Error& e) {
        r.err = std::string("perfsweep: error: ") + e.what() + "\n";
        r.exit_code = e.kind() == ErrorKind::usage ? 2 : 3;
    } catch (const std::exception& e) {
        r.err = std::string("perfsweep: internal error: ") + e.what() + "\n";
        r.exit_code = 3;
    }
    return r;
}

/// Ends the test process when an in-process flow runs past k_hang_after_s (what `timeout` does
/// to a binary run): a thread blocked in the client cannot be stopped otherwise.
class Watchdog {
public:
    explicit Watchdog(std::size_t slots) : m_started(slots), m_what(slots) {
        for (auto& s : m_started)
            s = 0;
        m_thread = std::thread([this] { watch(); });
    }
    ~Watchdog() {
        m_done = true;
        m_thread.join();
    }
    Watchdog(const Watchdog&) = delete;
    Watchdog& operator=(const Watchdog&) = delete;
    /// Slot `slot` runs the flow `what` from now.
    void start(std::size_t slot, const std::string& what) {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_what[slot] = what;
        m_started[slot] = now_ms();
    }
    /// Slot `slot` runs nothing.
    void stop(std::size_t slot) { m_started[slot] = 0; }

private:
    static long long now_ms() {
        return std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::steady_clock::now().time_since_epoch())
            .count();
    }
    void watch() {
        while (!m_done) {
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            for (std::size_t i = 0; i < m_started.size(); ++i) {
                const long long t = m_started[i];
                if (t != 0 && now_ms() - t > k_hang_after_s * 1000LL) {
                    std::lock_guard<std::mutex> lock(m_mutex);
                    std::fprintf(stderr, "GitHub faults: hung (over %d s): %s\n", k_hang_after_s,
                                 m_what[i].c_str());
                    std::_Exit(1);
                }
            }
        }
    }
    std::vector<std::atomic<long long>> m_started;
    std::vector<std::string> m_what;
    std::mutex m_mutex;
    std::atomic<bool> m_done{false};
    std::thread m_thread;
};

rapidjson::Document parse_json(const std::string& s) {
    rapidjson::Document d;
    d.Parse(s.c_str());
    return d;
}

/// One fault kind: the fault object's fields, and which requests it applies to.
struct FaultKind {
    std::string name;
    std::string fields; ///< JSON members without braces
    enum { any, write, list } applies = any;
};

const std::vector<FaultKind>& fault_kinds() {
    static const std::vector<FaultKind> kinds = {
        {"500", R"("status":500)"},
        {"502", R"("status":502)"},
        {"503_retry_after", R"("status":503,"retry_after":1)"},
        {"403_rate_limit", R"("status":403,"reset_in":0,"message":"API rate limit exceeded")"},
        {"401", R"("status":401,"message":"Bad credentials")"},
        {"404", R"("status":404,"message":"Not Found")"},
        {"422", R"("status":422,"message":"Validation Failed")"},
        {"drop_before_response", R"("drop":"before")"},
        {"drop_after_processing", R"("drop":"after")", FaultKind::write},
        {"slow_request_beyond_timeout", R"("delay_ms":1500)"},
        {"slow_reply_beyond_timeout", R"("reply_delay_ms":1500)"},
        {"malformed_json", R"("body":"{\"id\": 12, \"body\": ")"},
        {"truncated_body", R"("truncate":true)"},
        {"wrong_content_type", R"("content_type":"text/html","body":"<html>Unicorn!</html>")"},
        {"link_loop", R"("link_loop":true)", FaultKind::list},
    };
    return kinds;
}

/// The four flows: sticky comment created / updated, nightly issue opened / reused.
enum class FlowKind { comment_create, comment_update, issue_create, issue_update };

const char* flow_name(FlowKind k) {
    switch (k) {
    case FlowKind::comment_create:
        return "comment-create";
    case FlowKind::comment_update:
        return "comment-update";
    case FlowKind::issue_create:
        return "issue-create";
    case FlowKind::issue_update:
        return "issue-update";
    }
    return "?";
}

/// A request of a fault-free run: "GET /repos/.../comments".
struct Step {
    std::string method, path;
};

/// One flow to run: a flow kind with a fault (or none) at one request index.
struct Flow {
    FlowKind kind;
    const FaultKind* fault = nullptr; ///< null: the fault-free baseline
    int at = 0;                       ///< request index the fault hits
    int times = 1;                    ///< consecutive matching requests it hits
    bool binary = false;              ///< run the binary (else the command in-process)
};

/// What one flow did.
struct Outcome {
    bool completed = false, failed_cleanly = false, hung = false;
    int duplicates = 0;
    std::string why; ///< for failure messages
    std::vector<Step> steps;
};

/// "comment-create fault=500 at=2 times=1 (binary)".
std::string describe(const Flow& f) {
    return std::string(flow_name(f.kind)) + " fault=" + (f.fault ? f.fault->name : "none") +
           " at=" + std::to_string(f.at) + " times=" + std::to_string(f.times) +
           (f.binary ? " (binary)" : " (in-process)");
}

class Worker {
public:
    Worker() = default;
    bool available() const { return m_gh.available(); }

    std::string control(const std::string& what, const std::string& json = "") const {
        return m_gh.control(what, json);
    }

    /// Run `f` on this worker's server as flow number `id`; an in-process run is watched by
    /// `watchdog` (when given) in slot `slot`.
    Outcome run(const Flow& f, int id, Watchdog* watchdog = nullptr, std::size_t slot = 0) {
        const std::string repo = "acme/flow" + std::to_string(id);
        const std::string old_body = std::string(k_marker) + "\nold report\n";
        const std::string report =
            "## perfsweep\nMLUPS fell 7.0 % (flow " + std::to_string(id) + ")\n";
        const std::string new_body = std::string(k_marker) + "\n" + report;
        // Seed what an earlier nightly left.
        if (f.kind == FlowKind::comment_update)
            control(
                "seed",
                R"({"repo":")" + repo +
                    R"(","number":5,"comments":[{"login":"perf-bot-user","body":"<!-- perfsweep:nightly -->\nold report\n"}]})");
        if (f.kind == FlowKind::issue_update)
            control(
                "seed",
                R"({"repo":")" + repo +
                    R"(","number":1,"issue":{"title":"Perf regression","body":"<!-- perfsweep:nightly -->\nold report\n","labels":["perfsweep"],"login":"perf-bot-user"},"comments":[{"login":"perf-bot-user","body":"<!-- perfsweep:nightly -->\nold report\n"}]})");
        const auto before = request_count();
        if (f.fault)
            control("faults", "[{\"skip\":" + std::to_string(f.at) + ",\"times\":" +
                                  std::to_string(f.times) + "," + f.fault->fields + "}]");
        const std::string body_file = m_dir.file("body-" + std::to_string(id) + ".md");
        write_file(body_file, report);
        std::vector<std::string> args = {"--github-repo", repo,    "--body-file",
                                         body_file,       "--key", "nightly"};
        if (f.kind == FlowKind::comment_create || f.kind == FlowKind::comment_update) {
            args.insert(args.end(), {"--pr", "5"});
        } else {
            args.insert(args.end(),
                        {"--new-issue", "Perf regression", "--issue-label", "perfsweep"});
        }
        const std::vector<std::string> env = {"GITHUB_API_URL=" + m_gh.url(),
                                              std::string("GITHUB_TOKEN=") + k_token,
                                              "PERFSWEEP_GITHUB_BACKOFF_S=0.05",
                                              "PERFSWEEP_GITHUB_TIMEOUT_S=1",
                                              "GITHUB_ACTIONS=",
                                              "GITHUB_EVENT_PATH=",
                                              "GITHUB_REPOSITORY="};
        Spawned r;
        if (f.binary) {
            std::vector<std::string> argv = {
                "timeout", "-k", "5", std::to_string(k_hang_after_s), PERFSWEEP_EXE, "comment"};
            argv.insert(argv.end(), args.begin(), args.end());
            r = spawn_capture(argv, environment_with(env));
        } else {
            if (watchdog)
                watchdog->start(slot, describe(f));
            r = comment_in_process(args, env);
            if (watchdog)
                watchdog->stop(slot);
        }
        control("faults_clear");

        Outcome o;
        o.steps = requests_since(before);
        // Where the report is now.
        int comments = 0, issues = 0;
        bool new_in_place = false;
        const auto state = parse_json(control("state"));
        if (!state.IsObject() || !state.HasMember("issues")) {
            o.why = "the fake server's state is not readable";
            return o;
        }
        for (auto it = state["issues"].MemberBegin(); it != state["issues"].MemberEnd(); ++it) {
            const auto& i = it->value;
            if (std::string(i["repo"].GetString()) != repo)
                continue;
            const std::string ibody = i["body"].GetString();
            if (ibody.find(k_marker) != std::string::npos) {
                ++issues;
                new_in_place |= f.kind == FlowKind::issue_create && ibody == new_body;
            }
            for (const auto& c : i["comments"].GetArray()) {
                const std::string cbody = c["body"].GetString();
                if (std::string(c["login"].GetString()) == "perf-bot-user" &&
                    cbody.find(k_marker) != std::string::npos) {
                    ++comments;
                    new_in_place |= f.kind != FlowKind::issue_create && cbody == new_body;
                }
            }
        }
        const int want_comments = f.kind == FlowKind::issue_create ? 0 : 1;
        const int want_issues =
            f.kind == FlowKind::issue_create || f.kind == FlowKind::issue_update ? 1 : 0;
        o.duplicates = std::max(0, comments - want_comments) + std::max(0, issues - want_issues);
        const bool token_leaked = (r.out + r.err).find(k_token) != std::string::npos;
        o.hung = r.exit_code == 124 || r.exit_code == 137;
        const bool kept_old = f.kind == FlowKind::comment_update || f.kind == FlowKind::issue_update
                                  ? comments == want_comments && issues == want_issues
                                  : true;
        o.completed = r.exit_code == 0 && !token_leaked && o.duplicates == 0 &&
                      comments == want_comments && issues == want_issues && new_in_place;
        o.failed_cleanly = !o.completed && (r.exit_code == 2 || r.exit_code == 3) &&
                           !token_leaked && o.duplicates == 0 && kept_old &&
                           r.err.find("perfsweep: error: GitHub") != std::string::npos &&
                           r.err.find("internal error") == std::string::npos;
        o.why = describe(f) + ": exit " + std::to_string(r.exit_code) + ", comments " +
                std::to_string(comments) + ", issues " + std::to_string(issues) +
                (token_leaked ? ", TOKEN LEAKED" : "") + "\nstdout: " + r.out +
                "\nstderr: " + r.err;
        return o;
    }

private:
    std::size_t request_count() const {
        const auto d = parse_json(control("requests"));
        return d.IsArray() ? d.Size() : 0;
    }

    std::vector<Step> requests_since(std::size_t n) const {
        const auto d = parse_json(control("requests"));
        std::vector<Step> out;
        for (rapidjson::SizeType i = static_cast<rapidjson::SizeType>(n);
             d.IsArray() && i < d.Size(); ++i)
            out.push_back({d[i]["method"].GetString(), d[i]["path"].GetString()});
        return out;
    }

    FakeGitHub m_gh;
    TempDir m_dir;
};

bool is_list(const Step& s) {
    return s.method == "GET" && (s.path.ends_with("/comments") || s.path.ends_with("/issues"));
}

bool is_write(const Step& s) {
    return s.method == "POST" || s.method == "PATCH";
}

} // namespace

TEST_CASE("GitHub faults: every fault kind at every request of the comment and issue flows",
          "[suites][github_faults]") {
    const int workers_wanted = 8;
    std::vector<std::unique_ptr<Worker>> workers;
    for (int i = 0; i < workers_wanted; ++i)
        workers.push_back(std::make_unique<Worker>());
    if (!workers.front()->available()) {
        WARN("node is not installed: skipping the GitHub faults suite");
        return;
    }
    const int scale = suite_scale();
    int next_id = 1;
    Watchdog watchdog(workers.size());

    // 1. Fault-free baselines: each flow completes, and its requests are the indices to hit.
    std::vector<Flow> flows;
    // Each fault kind runs the binary once, at its first request in flow kind (its index % 4).
    std::set<const FaultKind*> binary_kinds;
    const auto kind_index = [](const FaultKind& k) {
        return static_cast<int>(&k - fault_kinds().data());
    };
    for (auto kind : {FlowKind::comment_create, FlowKind::comment_update, FlowKind::issue_create,
                      FlowKind::issue_update}) {
        const auto base = workers.front()->run(Flow{kind}, next_id++, &watchdog, 0);
        INFO(base.why);
        REQUIRE(base.completed);
        REQUIRE(base.steps.size() >= 3);
        for (std::size_t at = 0; at < base.steps.size(); ++at)
            for (const auto& k : fault_kinds()) {
                if ((k.applies == FaultKind::list && !is_list(base.steps[at])) ||
                    (k.applies == FaultKind::write && !is_write(base.steps[at])))
                    continue;
                for (int times = 1; times <= scale; ++times)
                    flows.push_back(Flow{kind, &k, static_cast<int>(at), times,
                                         static_cast<int>(kind) == kind_index(k) % 4 &&
                                             binary_kinds.insert(&k).second});
            }
    }

    // 2. Every fault at every index, spread over the workers.
    std::vector<Outcome> outcomes(flows.size());
    std::atomic<std::size_t> next{0};
    REQUIRE(binary_kinds.size() == fault_kinds().size());
    std::vector<std::thread> threads;
    for (std::size_t w = 0; w < workers.size(); ++w)
        threads.emplace_back([&, w, wp = workers[w].get()] {
            for (std::size_t i; (i = next++) < flows.size();)
                outcomes[i] = wp->run(flows[i], next_id + static_cast<int>(i), &watchdog, w);
        });
    for (auto& t : threads)
        t.join();

    int completed = 0, failed_cleanly = 0, duplicates = 0, hung = 0;
    for (const auto& o : outcomes) {
        completed += o.completed;
        failed_cleanly += o.failed_cleanly;
        duplicates += o.duplicates;
        hung += o.hung;
    }
    report_figure("github_faults", {{"flows", std::to_string(flows.size())},
                                    {"completed", std::to_string(completed)},
                                    {"failed_cleanly", std::to_string(failed_cleanly)},
                                    {"duplicate_comments", std::to_string(duplicates)},
                                    {"hung", std::to_string(hung)},
                                    {"fault_kinds", std::to_string(fault_kinds().size())}});
    for (const auto& o : outcomes) {
        INFO(o.why);
        CHECK((o.completed || o.failed_cleanly));
        CHECK(o.duplicates == 0);
        CHECK(!o.hung);
    }
}
