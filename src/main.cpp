// The composition root: the only place that creates adapters and hands them to the CLI.

#include "adapters/git/libgit2_repo.hpp"
#include "adapters/json/hourly_json.hpp"
#include "adapters/process/process.hpp"
#include "adapters/process/process_runner.hpp"
#include "adapters/system/local_files.hpp"
#include "cli/cli.hpp"
#include "util/error.hpp"

#include <cstdlib>
#include <string>

int main(int argc, char** argv) {
    using namespace perfsweep;
    const bool in_actions =
        std::getenv("GITHUB_ACTIONS") && std::string(std::getenv("GITHUB_ACTIONS")) == "true";
    adapters::LocalFiles files;
    adapters::SystemClock clock;
    adapters::StreamProgress progress(stderr, in_actions);

    ports::Adapters a;
    a.files = &files;
    a.clock = &clock;
    a.progress = &progress;
    a.open_history = [](const std::string& spec) -> std::unique_ptr<ports::HistoryStore> {
        throw_usage("history '" + spec + "': no history store is available yet");
    };
    a.make_runner =
        [&](const ports::RunnerConfig& config) -> std::unique_ptr<ports::BuildingRunner> {
        auto c = config;
        c.echo_logs = c.echo_logs || in_actions;
        return std::make_unique<adapters::ProcessRunner>(c, progress, clock);
    };
    adapters::Libgit2Guard libgit2;
    a.open_source_repo = adapters::open_libgit2_repo;
    a.hourly_json = adapters::hourly_to_json;
    adapters::install_interrupt_handlers();
    return cli::run(argc, argv, a);
}
