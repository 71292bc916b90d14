#pragma once
// The default history: an append-only JSON Lines file, one measurement per line.

#include "ports/history_store.hpp"

#include <string>

namespace perfsweep::adapters {

/// JSON Lines history at a local path. Appends write whole lines with one write(2) under an
/// exclusive flock and fsync; a torn (truncated) line left by a crash is skipped with a warning
/// naming file:line; any other malformed line is an error naming file:line.
class JsonlHistoryStore final : public ports::HistoryStore {
public:
    /// A store at `path` (created on first append, with its parent directories).
    explicit JsonlHistoryStore(std::string path) : m_path(std::move(path)) {}
    /// Read every valid record (missing file = empty history).
    ports::HistoryLoad load() override;
    /// Append `records` atomically and never interleaved with another writer.
    void append(const std::vector<core::Measurement>& records) override;
    /// The path.
    std::string describe() const override { return m_path; }

private:
    std::string m_path;
};

/// Parse JSON Lines `text` read from `file` the way JsonlHistoryStore::load does.
ports::HistoryLoad parse_history_jsonl(const std::string& text, const std::string& file);

} // namespace perfsweep::adapters
