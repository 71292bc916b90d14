// The composition root: the only place that creates adapters and hands them to the CLI.

#include "main.hpp"

#include "adapters/demo/demo_world.hpp"
#include "adapters/git/libgit2_repo.hpp"
#include "adapters/github/actions_env.hpp"
#include "adapters/github/github_client.hpp"
#include "adapters/history/git_branch_store.hpp"
#include "adapters/history/jsonl_store.hpp"
#include "adapters/json/benchmark_action_json.hpp"
#include "adapters/json/issue_event_json.hpp"
#include "adapters/json/measurement_json.hpp"
#include "adapters/json/result_json.hpp"
#include "adapters/process/process.hpp"
#include "adapters/process/process_runner.hpp"
#include "adapters/slurm/held_allocation.hpp"
#include "adapters/system/local_files.hpp"
#include "adapters/system/result_files.hpp"
#include "cli/cli.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <string>

int perfsweep_main(int argc, char** argv) {
    using namespace perfsweep;
    const bool in_actions =
        std::getenv("GITHUB_ACTIONS") && std::string(std::getenv("GITHUB_ACTIONS")) == "true";
    adapters::LocalFiles files;
    adapters::SystemClock clock;
    adapters::StreamProgress progress(stderr, in_actions);
    adapters::GitDemoWorldMaker demo_world;
    adapters::JsonResultReader result_reader;

    ports::Adapters a;
    a.files = &files;
    a.clock = &clock;
    a.progress = &progress;
    a.demo_world = &demo_world;
    a.result_reader = &result_reader;
    a.open_history = [](const std::string& spec) -> std::unique_ptr<ports::HistoryStore> {
        if (spec.empty())
            throw_usage("--history: empty path; expected a JSON Lines file such as history.jsonl");
        if (adapters::is_git_history_spec(spec)) { // git:BRANCH, git+URL#BRANCH
            auto env = [](const char* n) {
                return std::string(std::getenv(n) ? std::getenv(n) : "");
            };
            const std::string start =
                env("GITHUB_WORKSPACE").empty() ? "." : env("GITHUB_WORKSPACE");
            adapters::GitStoreOptions opt;
            opt.token = env("GITHUB_TOKEN");
            opt.cache_dir = !env("PERFSWEEP_CACHE_DIR").empty() ? env("PERFSWEEP_CACHE_DIR")
                            : !env("XDG_CACHE_HOME").empty() ? env("XDG_CACHE_HOME") + "/perfsweep"
                                                             : env("HOME") + "/.cache/perfsweep";
            return std::make_unique<adapters::GitBranchStore>(
                adapters::parse_git_history_spec(spec, start), opt);
        }
        return std::make_unique<adapters::JsonlHistoryStore>(spec);
    };
    a.parse_json_import = [](const std::string& text, const std::string& file,
                             core::ImportFormat format, const core::ImportDefaults& defaults) {
        if (format == core::ImportFormat::benchmark_action)
            return adapters::parse_benchmark_action(text, file, defaults);
        return adapters::parse_history_jsonl(text, file).records;
    };
    a.make_runner =
        [&](const ports::RunnerConfig& config) -> std::unique_ptr<ports::BuildingRunner> {
        auto c = config;
        c.echo_logs = c.echo_logs || in_actions;
        if (c.runtime == "slurm" && c.kept_container) // hourly: one allocation for the search
            return adapters::make_held_allocation_runner(c, progress, clock);
        return std::make_unique<adapters::ProcessRunner>(c, progress, clock);
    };
    a.measurement_json = [](const core::Measurement& m) {
        return adapters::measurement_to_json(m);
    };
    a.measurement_from_json = [](const std::string& json, const std::string& where) {
        return adapters::measurement_from_json(json, where);
    };
    adapters::Libgit2Guard libgit2;
    a.open_source_repo = adapters::open_libgit2_repo;
    auto getenv_str = [](const std::string& n) {
        const char* v = std::getenv(n.c_str());
        return std::string(v ? v : "");
    };
    adapters::ActionsEnv actions(getenv_str, stdout);
    a.actions = &actions;
    a.protect_secret_env = [](const std::string& name) { adapters::protect_secret_env(name); };
    a.open_code_host = [&](const std::string& token_env) -> std::unique_ptr<ports::CodeHost> {
        adapters::GitHubOptions opt;
        opt.token = getenv_str(token_env);
        if (opt.token.empty())
            throw_usage("--token-env " + token_env +
                        ": the environment variable is empty or not set");
        actions.add_mask(opt.token); // ::add-mask:: once, inside Actions only
        if (!getenv_str("GITHUB_API_URL").empty())
            opt.api_url = getenv_str("GITHUB_API_URL");
        auto num = [&](const char* n, double& out) {
            const std::string v = getenv_str(n);
            if (v.empty())
                return;
            auto d = util::parse_double(v);
            if (!d || *d < 0)
                throw_usage(std::string(n) + " '" + v + "': expected a number >= 0");
            out = *d;
        };
        num("PERFSWEEP_GITHUB_TIMEOUT_S", opt.timeout_s);
        num("PERFSWEEP_GITHUB_BACKOFF_S", opt.backoff_s);
        num("PERFSWEEP_GITHUB_MAX_WAIT_S", opt.max_wait_s);
        return std::make_unique<adapters::GitHubClient>(opt, clock);
    };
    a.expand_result_files = adapters::expand_result_files;
    a.parse_issue_event = adapters::issue_event_from_json;
    a.secret_values = adapters::secret_values;
    return cli::run(argc, argv, a);
}
