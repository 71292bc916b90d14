#pragma once
// A whole ports::Adapters in memory, for testing use cases in-process: every side effect is a
// fake (files, clock, histories, scripted runners, source repos, code host, Actions runner,
// secrets). The text formats are plain functions of adapters/json (pure, nothing to fake).

#include "app/compare.hpp"
#include "ports/adapters.hpp"
#include "support/fakes/code_host.hpp"
#include "support/fakes/memory.hpp"
#include "support/fakes/memory_repo.hpp"
#include "support/fakes/scripted_runner.hpp"
#include "support/recording_progress.hpp"

namespace perfsweep::fakes {

/// The demo world is not in memory: refuses.
class NoDemoWorld final : public ports::DemoWorldMaker {
public:
    /// Throws: the in-memory world has no demo.
    ports::DemoWorld create(const std::string& root) override;
};

/// Every port, faked; `adapters` is the bundle a use case gets.
struct World {
    MemoryFiles files;
    test::RecordingProgress progress;
    ManualClock clock;
    RecordingActions actions;
    MemoryHistories histories;
    ScriptedRunners runners{clock};
    MemoryRepos repos;
    FakeCodeHosts code_hosts;
    FakeSecrets secrets;
    NoDemoWorld demo_world;
    ports::Adapters adapters{files,   progress, clock,      actions, histories,
                             runners, repos,    code_hosts, secrets, demo_world};

    World() = default;
    World(const World&) = delete;
    World& operator=(const World&) = delete;
};

/// Stores `text` as the file `name` of `w` and imports it into the history `history`, as
/// `perfsweep import NAME --history HISTORY` does (any format import reads, JSON included).
void import_file(World& w, const std::string& name, std::string text, const std::string& history);

/// The `perfsweep compare` request of a scripted benchmark: `bash bench/run.sh 256` (benchmark
/// run.sh, metric MLUPS, no container), the head in this folder and the base in ../base.
app::CompareRequest compare_request();

} // namespace perfsweep::fakes
