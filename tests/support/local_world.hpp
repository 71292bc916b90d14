#pragma once
// The real local adapters in one ports::Adapters, for in-process tests of a use case where a real
// adapter is the point: files, the system clock, JSON Lines histories, process runners (real
// child processes) and libgit2 clones. Progress, the Actions runner, the code host and the
// secrets are the recording fakes of tests/support/fakes (inspectable, no environment).

#include "adapters/system/local_files.hpp"
#include "ports/adapters.hpp"
#include "support/fakes/code_host.hpp"
#include "support/fakes/memory.hpp"
#include "support/fakes/world.hpp"
#include "support/recording_progress.hpp"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace perfsweep::test {

/// --history specs as JSON Lines files at those paths.
class LocalHistories final : public ports::HistoryStores {
public:
    /// The JSON Lines store at `spec`.
    std::unique_ptr<ports::HistoryStore> open(const std::string& spec) override;
};

/// Process runners (adapters::ProcessRunner), as the binary makes them outside Actions: runtime
/// slurm with a kept container (the hourly stage) holds one allocation for the whole search.
class LocalRunners final : public ports::Runners {
public:
    /// Runners reporting to `progress`, timed by `clock`.
    LocalRunners(ports::Progress& progress, ports::Clock& clock)
        : m_progress(progress), m_clock(clock) {}
    /// A process runner for `config`.
    std::unique_ptr<ports::BuildingRunner> make(const ports::RunnerConfig& config) override;

private:
    ports::Progress& m_progress;
    ports::Clock& m_clock;
};

/// libgit2 clones.
class LocalRepos final : public ports::SourceRepos {
public:
    /// The clone at `path`.
    std::unique_ptr<ports::SourceRepo> open(const std::string& name,
                                            const std::string& path) override;
};

/// Every local adapter real, the rest recorded; `adapters` is the bundle a use case gets.
struct LocalWorld {
    adapters::LocalFiles files;
    adapters::SystemClock clock;
    RecordingProgress progress;
    fakes::RecordingActions actions;
    LocalHistories histories;
    LocalRunners runners{progress, clock};
    LocalRepos repos;
    fakes::FakeCodeHosts code_hosts;
    fakes::FakeSecrets secrets;
    fakes::NoDemoWorld demo_world;
    ports::Adapters adapters{files,   progress, clock,      actions, histories,
                             runners, repos,    code_hosts, secrets, demo_world};
    LocalWorld() = default;
    LocalWorld(const LocalWorld&) = delete;
    LocalWorld& operator=(const LocalWorld&) = delete;
};

/// How a command run in-process ended.
struct Ran {
    /// what the body set (the command's exit code); for an error, the one the CLI maps its kind
    /// to (2 usage, 3 infrastructure)
    int exit_code = -1;
    std::string out; ///< what the body set (what the command prints)
    std::string err; ///< the error's message, then every progress line of `w`
};

/// Run `body` in `w` as cli::run runs a command: an error ends it with its message and exit code.
Ran run_in(LocalWorld& w, const std::function<void(Ran&)>& body);

/// `perfsweep hourly ARGS --json` (command-line options) in-process on a fresh LocalWorld, as
/// cli's run_hourly runs it: options by the CLI's rules, the window of --from-result, then
/// app::plan_hourly (--plan) or app::run_hourly on the runner LocalRunners makes. `out` is what
/// --json prints, `exit_code` core::hourly_exit_code (2 for a usage error, as run_in says).
Ran hourly_in_process(const std::vector<std::string>& args);

} // namespace perfsweep::test
