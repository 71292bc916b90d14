#pragma once
// The bundle of real side effects handed from the composition root (main.cpp) to the CLI.
// Each capability is a factory or a shared object; the CLI never names an adapter class.

#include "core/report_model.hpp"
#include "ports/actions_runner.hpp"
#include "ports/clock.hpp"
#include "ports/code_host.hpp"
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
    /// Open the history named by `spec` ("path.jsonl", "git:BRANCH", ...). Throws on a bad spec.
    std::function<std::unique_ptr<HistoryStore>(const std::string& spec)> open_history;
    /// Parse a stage result JSON `text` read from `source` into the report model (usage error on
    /// wrong types, naming `source` and the JSON path).
    std::function<core::ReportInput(const std::string& text, const std::string& source)>
        parse_report_input;
    /// Encode the report model as JSON.
    std::function<std::string(const core::ReportInput&)> report_input_to_json;
    /// Open the code host (GitHub REST API at GITHUB_API_URL) with the token from environment
    /// variable `token_env`. Throws a usage error when the token is missing.
    std::function<std::unique_ptr<CodeHost>(const std::string& token_env)> open_code_host;
    /// The GitHub Actions runner contract (no-ops outside Actions).
    ActionsRunner* actions = nullptr;
};

} // namespace perfsweep::ports
