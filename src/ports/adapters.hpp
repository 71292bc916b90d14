#pragma once
// The bundle of real side effects handed from the composition root (main.cpp) to the CLI.
// Each capability is a factory or a shared object; the CLI never names an adapter class.

#include "ports/clock.hpp"
#include "ports/demo_world.hpp"
#include "ports/files.hpp"
#include "ports/history_store.hpp"
#include "ports/progress.hpp"

#include <functional>
#include <memory>
#include <string>

namespace perfsweep::ports {

/// Every port the commands may use, created once in main().
struct Adapters {
    Files* files = nullptr;
    Progress* progress = nullptr;
    Clock* clock = nullptr;
    DemoWorldMaker* demo_world = nullptr;
    /// Open the history named by `spec` ("path.jsonl", "git:BRANCH", ...). Throws on a bad spec.
    std::function<std::unique_ptr<HistoryStore>(const std::string& spec)> open_history;
};

} // namespace perfsweep::ports
