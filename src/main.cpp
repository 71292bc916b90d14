// The composition root: the only place that creates adapters and hands them to the CLI.

#include "adapters/history/git_branch_store.hpp"
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
        throw_usage("history '" + spec + "': no history store is available yet");
    };
    a.parse_report_input = adapters::report_input_from_json;
    a.report_input_to_json = adapters::report_input_to_json;
    return cli::run(argc, argv, a);
}
