#pragma once
// In-memory stand-ins for the plain ports: files, clock, history stores, the Actions runner and
// the process's secrets. Each keeps the real adapter's contract (same errors for a missing file,
// append-only history, all-or-nothing appends) so a use case cannot tell them apart.

#include "ports/actions_runner.hpp"
#include "ports/clock.hpp"
#include "ports/files.hpp"
#include "ports/history_store.hpp"
#include "ports/secrets.hpp"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace perfsweep::fakes {

/// Files in a map: path → content; directories and links are remembered.
class MemoryFiles final : public ports::Files {
public:
    /// Content of `path`; "-" reads `stdin_text`. Throws a usage error like LocalFiles.
    std::string read_text(const std::string& path) override;
    /// Replace `path` (parents are created, as LocalFiles does).
    void write_atomic(const std::string& path, const std::string& content) override;
    /// A written file, a made directory or a link.
    bool exists(const std::string& path) override;
    /// Remember `path` and its parents as directories.
    void make_dirs(const std::string& path) override;
    /// Forget `path` and everything below it (files, directories, links).
    void remove_tree(const std::string& path) override;
    /// links[link] = target.
    void point_link(const std::string& link, const std::string& target) override;
    /// `path` when it is a file, else every *.json / *.jsonl file below it, sorted.
    std::vector<std::string> result_files(const std::string& path) override;
    /// Refused (like another process's lock) when `dir` is in `held_elsewhere`; else counted.
    std::unique_ptr<ports::DirLock> lock_dir(const std::string& dir,
                                             const std::string& what) override;

    std::map<std::string, std::string> files; ///< path → content
    std::set<std::string> dirs;               ///< directories made
    std::map<std::string, std::string> links; ///< link → target
    std::string stdin_text;                   ///< what "-" reads
    long writes = 0;                          ///< write_atomic calls
    std::set<std::string> held_elsewhere;     ///< directories "another process" holds
    std::map<std::string, int> locked;        ///< directory → holds taken by lock_dir
};

/// A clock that moves only when told to (or when something sleeps).
class ManualClock final : public ports::Clock {
public:
    /// Start at `start` (UTC seconds).
    explicit ManualClock(double start = 1692878400 /* 2023-08-24T12:00:00Z */) : t(start) {}
    /// The current time.
    double now() override { return t; }
    /// Advance by `seconds` and keep the request.
    void sleep(double seconds) override {
        sleeps.push_back(seconds);
        t += seconds;
    }
    double t;                   ///< now
    std::vector<double> sleeps; ///< every sleep asked for
};

/// One history's records, shared by every store opened on its spec.
struct HistoryData {
    std::vector<core::Measurement> records; ///< in append order
    long appends = 0;                       ///< append / append_missing calls that wrote
    /// When > 0, the append call with this number (1 = the first) throws "killed" and writes
    /// nothing: a kill between a stage's state write and its history append.
    long kill_at_append = 0;
    long append_calls = 0;                     ///< every append / append_missing call
    std::map<std::string, std::string> beside; ///< files kept beside it: path → content
};

/// Opens in-memory histories: the same spec is the same history (as the same file would be).
class MemoryHistories final : public ports::HistoryStores {
public:
    /// The store of `spec`; an empty spec is refused like the real factory.
    std::unique_ptr<ports::HistoryStore> open(const std::string& spec) override;
    /// The records of `spec` (created empty when never opened).
    HistoryData& at(const std::string& spec) { return m_data[spec]; }

private:
    std::map<std::string, HistoryData> m_data;
};

/// Every record equal, field by field (what an identical history line means).
bool same_record(const core::Measurement& a, const core::Measurement& b);

/// Keeps what a GitHub Actions runner would receive.
class RecordingActions final : public ports::ActionsRunner {
public:
    /// As configured (false by default: the writers are no-ops outside Actions, like ActionsEnv).
    bool in_actions() const override { return active; }
    /// outputs[k] = v (only when active).
    void set_outputs(const std::map<std::string, std::string>& o) override;
    /// summary += markdown (only when active).
    void append_summary(const std::string& markdown) override;
    /// "level: title: message" (only when active).
    void annotate(const std::string& level, const std::string& title,
                  const std::string& message) override;
    /// masks += secret.
    void add_mask(const std::string& secret) override { masks.push_back(secret); }
    /// `target`.
    ports::EventTarget event_target() override { return target; }

    bool active = false;
    std::map<std::string, std::string> outputs;
    std::string summary;
    std::vector<std::string> annotations;
    std::vector<std::string> masks;
    ports::EventTarget target;
};

/// Secrets as values: `env` stands for the environment.
class FakeSecrets final : public ports::Secrets {
public:
    /// protected_names += name (no-op for "").
    void protect_env(const std::string& name) override;
    /// `secret_values`.
    std::vector<std::string> values() override { return secret_values; }

    std::set<std::string> protected_names;
    std::vector<std::string> secret_values;
};

} // namespace perfsweep::fakes
