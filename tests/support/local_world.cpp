#include "support/local_world.hpp"

#include "adapters/git/libgit2_repo.hpp"
#include "adapters/history/jsonl_store.hpp"
#include "adapters/process/process_runner.hpp"

namespace perfsweep::test {

std::unique_ptr<ports::HistoryStore> LocalHistories::open(const std::string& spec) {
    return std::make_unique<adapters::JsonlHistoryStore>(spec);
}

std::unique_ptr<ports::BuildingRunner> LocalRunners::make(const ports::RunnerConfig& config) {
    return std::make_unique<adapters::ProcessRunner>(config, m_progress, m_clock);
}

std::unique_ptr<ports::SourceRepo> LocalRepos::open(const std::string& name,
                                                    const std::string& path) {
    return adapters::open_libgit2_repo(name, path);
}

} // namespace perfsweep::test
