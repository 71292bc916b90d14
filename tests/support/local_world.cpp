#include "support/local_world.hpp"

#include "adapters/git/libgit2_repo.hpp"
#include "adapters/history/jsonl_store.hpp"
#include "adapters/process/process_runner.hpp"
#include "util/error.hpp"

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

Ran run_in(LocalWorld& w, const std::function<void(Ran&)>& body) {
    Ran r;
    try {
        body(r);
    } catch (const Error& e) {
        r.err = std::string(e.what()) + "\n";
        r.exit_code = e.kind() == ErrorKind::usage ? 2 : 3;
    }
    for (const auto& line : w.progress.lines)
        r.err += line + "\n";
    return r;
}

} // namespace perfsweep::test
