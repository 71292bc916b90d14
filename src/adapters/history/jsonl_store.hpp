#pragma once
// The default history: an append-only JSON Lines file, one measurement per line.

#include "ports/history_store.hpp"

#include <string>

namespace perfsweep::adapters {

/// JSON Lines history at a local path. An append, under an exclusive flock of the file, writes
/// the old content and the new lines to a temporary file, fsyncs it and renames it over the
/// history (all or nothing under a kill or a power loss). A torn (truncated) line left by an
/// older writer is skipped with a warning naming file:line; any other malformed line is an
/// error naming file:line, and no append is made to such a file.
class JsonlHistoryStore final : public ports::HistoryStore {
public:
    /// A store at `path` (created on first append, with its parent directories).
    explicit JsonlHistoryStore(std::string path) : m_path(std::move(path)) {}
    /// Read every valid record (missing file = empty history).
    ports::HistoryLoad load() override;
    /// Append `records` atomically and never interleaved with another writer.
    void append(const std::vector<core::Measurement>& records) override;
    /// Append those of `records` whose line is not in the file yet (under the same lock).
    std::size_t append_missing(const std::vector<core::Measurement>& records) override;
    /// Write `files` into the directory that holds the history file (side_files.cpp).
    void write_beside(const std::vector<ports::SideFile>& files) override;
    /// The files under `folder` of that directory.
    std::vector<ports::SideFile> read_beside(const std::string& folder) override;
    /// The path.
    std::string describe() const override { return m_path; }

private:
    /// append (`only_missing` false) or append_missing; returns the records written.
    std::size_t write_batch(const std::vector<core::Measurement>& records, bool only_missing);
    std::string m_path;
};

/// Parse JSON Lines `text` read from `file` the way JsonlHistoryStore::load does.
ports::HistoryLoad parse_history_jsonl(const std::string& text, const std::string& file);

} // namespace perfsweep::adapters
