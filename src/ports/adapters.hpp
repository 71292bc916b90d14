#pragma once
// The bundle of real side effects handed from the composition root (main.cpp) to the CLI.
// Each capability is a factory or a shared object; the CLI never names an adapter class.

#include "core/import_formats.hpp"
#include "core/issue_request.hpp"
#include "ports/actions_runner.hpp"
#include "ports/clock.hpp"
#include "ports/code_host.hpp"
#include "ports/demo_world.hpp"
#include "ports/files.hpp"
#include "ports/history_store.hpp"
#include "ports/progress.hpp"
#include "ports/result_reader.hpp"
#include "ports/runner_config.hpp"
#include "ports/source_repo.hpp"

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace perfsweep::ports {

/// Every port the commands may use, created once in main().
struct Adapters {
    Files* files = nullptr;
    Progress* progress = nullptr;
    Clock* clock = nullptr;
    DemoWorldMaker* demo_world = nullptr;
    /// Open the history named by `spec` ("path.jsonl", "git:BRANCH", ...). Throws on a bad spec.
    std::function<std::unique_ptr<HistoryStore>(const std::string& spec)> open_history;
    /// Parse a JSON-based import (benchmark-action or jsonl) read from `file`; errors name
    /// file:line.
    std::function<std::vector<core::Measurement>(const std::string& text, const std::string& file,
                                                 core::ImportFormat format,
                                                 const core::ImportDefaults& defaults)>
        parse_json_import;
    /// Create the runner for `config` (runtime none/docker/podman/slurm, kept container). Throws a
    /// usage error for a bad config.
    std::function<std::unique_ptr<BuildingRunner>(const RunnerConfig& config)> make_runner;
    /// Encode one measurement as a compact JSON object (the history record format).
    std::function<std::string(const core::Measurement& m)> measurement_json;
    /// Decode one measurement JSON object; throws a usage error naming `where` (file:line).
    std::function<core::Measurement(const std::string& json, const std::string& where)>
        measurement_from_json;
    /// Open a source repo clone (libgit2) for the hourly and commit stages.
    OpenSourceRepo open_source_repo;
    /// Reads result documents (`report --input`, `hourly --from-result`).
    const ResultReader* result_reader = nullptr;
    /// Open the code host (GitHub REST API at GITHUB_API_URL) with the token from environment
    /// variable `token_env`. Throws a usage error when the token is missing.
    std::function<std::unique_ptr<CodeHost>(const std::string& token_env)> open_code_host;
    /// The GitHub Actions runner contract (no-ops outside Actions).
    ActionsRunner* actions = nullptr;
    /// A merge input: the file itself, or every *.json / *.jsonl file under a directory.
    std::function<std::vector<std::string>(const std::string& path)> expand_result_files;
    /// Treat environment variable `name` (a --token-env) as a credential: child processes never
    /// inherit it and run logs mask its value. May be empty (no-op then).
    std::function<void(const std::string& name)> protect_secret_env;
    /// Read an issues/issue_comment event payload `json` (from `source`) as an issue request.
    std::function<core::IssueEvent(const std::string& event_name, const std::string& json,
                                   const std::string& source)>
        parse_issue_event;
    /// Values to mask in log excerpts: every environment variable named like a secret (*TOKEN,
    /// *SECRET, *PASSWORD, *_KEY) with a value of 4 characters or more.
    std::function<std::vector<std::string>()> secret_values;
};

} // namespace perfsweep::ports
