// The composition root: the only place that creates adapters and hands them to the CLI.

#include "adapters/json/report_input_json.hpp"
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
    a.parse_report_input = adapters::report_input_from_json;
    a.report_input_to_json = adapters::report_input_to_json;
    return cli::run(argc, argv, a);
}
