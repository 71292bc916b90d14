#pragma once
// The one bundle of side effects, created by the composition root (src/main.cpp) and handed to
// the CLI, which hands it to every use case the same way: `run_x(options, adapters)`; the sweep
// stages also get the instances their caller opened from it (app/instruments.hpp). Every member
// is an interface (tests/support/fakes implements each in memory); none is optional. Text
// formats (JSON) are not side effects: they are read by plain functions of the adapters layer
// (adapters/json) at the edge, where the CLI reads a file, and the use cases get core types.

#include "ports/actions_runner.hpp"
#include "ports/clock.hpp"
#include "ports/code_host.hpp"
#include "ports/demo_world.hpp"
#include "ports/files.hpp"
#include "ports/history_store.hpp"
#include "ports/progress.hpp"
#include "ports/runner_config.hpp"
#include "ports/secrets.hpp"
#include "ports/source_repo.hpp"

namespace perfsweep::ports {

/// Every port the commands may use.
struct Adapters {
    Files& files;               ///< reading and atomic writing of files
    Progress& progress;         ///< progress lines for humans
    Clock& clock;               ///< now and sleep
    ActionsRunner& actions;     ///< the GitHub Actions runner contract (no-ops outside)
    HistoryStores& histories;   ///< opens --history stores
    Runners& runners;           ///< creates benchmark runners from a RunnerConfig
    SourceRepos& repos;         ///< opens source clones (hourly and commit stages)
    CodeHosts& code_hosts;      ///< opens the code host (comments, issues)
    Secrets& secrets;           ///< credentials to hide from children and logs
    DemoWorldMaker& demo_world; ///< the offline demo's world
};

} // namespace perfsweep::ports
