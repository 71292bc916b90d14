// The composition root: the only place that creates adapters and hands them to the CLI.

#include "main.hpp"

#include "adapters/demo/demo_world.hpp"
#include "adapters/git/libgit2_repo.hpp"
#include "adapters/github/actions_env.hpp"
#include "adapters/github/github_client.hpp"
#include "adapters/history/git_branch_store.hpp"
#include "adapters/history/jsonl_store.hpp"
#include "adapters/process/process.hpp"
#include "adapters/process/process_runner.hpp"
#include "adapters/process/secrets.hpp"
#include "adapters/slurm/held_allocation.hpp"
#include "adapters/system/local_files.hpp"
#include "cli/cli.hpp"
#include "util/error.hpp"

#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <string>

namespace {

using namespace perfsweep;

std::string env_text(const std::string& name) {
    const char* v = std::getenv(name.c_str());
    return std::string(v ? v : "");
}

/// --history specs: git:BRANCH / git+URL#BRANCH stores, else a JSON Lines file.
class HistoryFactory final : public ports::HistoryStores {
public:
    std::unique_ptr<ports::HistoryStore> open(const std::string& spec) override {
        if (spec.empty())
            throw_usage("--history: empty path; expected a JSON Lines file such as history.jsonl");
        if (adapters::is_git_history_spec(spec)) { // git:BRANCH, git+URL#BRANCH
            const std::string start =
                env_text("GITHUB_WORKSPACE").empty() ? "." : env_text("GITHUB_WORKSPACE");
            adapters::GitStoreOptions opt;
            opt.token = env_text("GITHUB_TOKEN");
            opt.cache_dir =
                !env_text("PERFSWEEP_CACHE_DIR").empty() ? env_text("PERFSWEEP_CACHE_DIR")
                : !env_text("XDG_CACHE_HOME").empty()    ? env_text("XDG_CACHE_HOME") + "/perfsweep"
                                                         : env_text("HOME") + "/.cache/perfsweep";
            return std::make_unique<adapters::GitBranchStore>(
                adapters::parse_git_history_spec(spec, start), opt);
        }
        return std::make_unique<adapters::JsonlHistoryStore>(spec);
    }
};

/// Process runners; slurm with a kept container holds one allocation for the hourly search.
class RunnerFactory final : public ports::Runners {
public:
    RunnerFactory(ports::Progress& progress, ports::Clock& clock, bool in_actions)
        : m_progress(progress), m_clock(clock), m_in_actions(in_actions) {}
    std::unique_ptr<ports::BuildingRunner> make(const ports::RunnerConfig& config) override {
        auto c = config;
        c.echo_logs = c.echo_logs || m_in_actions;
        if (c.runtime == "slurm" && c.kept_container)
            return adapters::make_held_allocation_runner(c, m_progress, m_clock);
        return std::make_unique<adapters::ProcessRunner>(c, m_progress, m_clock);
    }

private:
    ports::Progress& m_progress;
    ports::Clock& m_clock;
    bool m_in_actions;
};

/// libgit2 clones.
class Libgit2Repos final : public ports::SourceRepos {
public:
    std::unique_ptr<ports::SourceRepo> open(const std::string& name,
                                            const std::string& path) override {
        return adapters::open_libgit2_repo(name, path);
    }
};

/// The GitHub REST API at GITHUB_API_URL; timeouts from PERFSWEEP_GITHUB_*.
class GitHubHosts final : public ports::CodeHosts {
public:
    GitHubHosts(ports::ActionsRunner& actions, ports::Clock& clock)
        : m_actions(actions), m_clock(clock) {}
    std::unique_ptr<ports::CodeHost> open(const std::string& token_env) override {
        auto opt = adapters::github_options_from_env(env_text, token_env);
        m_actions.add_mask(opt.token); // ::add-mask:: once, inside Actions only
        return std::make_unique<adapters::GitHubClient>(opt, m_clock);
    }

private:
    ports::ActionsRunner& m_actions;
    ports::Clock& m_clock;
};

/// This process's environment secrets (adapters/process/secrets).
class ProcessSecrets final : public ports::Secrets {
public:
    void protect_env(const std::string& name) override {
        if (!name.empty())
            adapters::protect_secret_env(name);
    }
    std::vector<std::string> values() override { return adapters::secret_values(); }
};

} // namespace

int perfsweep_main(int argc, char** argv) {
    const bool in_actions = env_text("GITHUB_ACTIONS") == "true";
    adapters::LocalFiles files;
    adapters::SystemClock clock;
    adapters::StreamProgress progress(stderr, in_actions);
    adapters::GitDemoWorldMaker demo_world;
    adapters::ActionsEnv actions(env_text, stdout);
    HistoryFactory histories;
    RunnerFactory runners(progress, clock, in_actions);
    Libgit2Repos repos;
    GitHubHosts code_hosts(actions, clock);
    ProcessSecrets secrets;
    ports::Adapters a{.files = files,
                      .progress = progress,
                      .clock = clock,
                      .actions = actions,
                      .histories = histories,
                      .runners = runners,
                      .repos = repos,
                      .code_hosts = code_hosts,
                      .secrets = secrets,
                      .demo_world = demo_world};
    return cli::run(argc, argv, a);
}
