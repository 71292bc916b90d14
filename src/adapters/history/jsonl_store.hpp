#pragma once
// The default history: an append-only JSON Lines file, one measurement per line.

#include "ports/history_store.hpp"

#include <string>

namespace perfsweep::adapters {

/// JSON Lines history at a local path (a regular file; anything else is refused). An append,
/// under an exclusive flock of the file, writes only the new lines at its end (O_APPEND) and
/// fsyncs them: the file keeps its inode, owner, mode and hard links, and an append costs the
/// same at 1 or 10^6 points. It is all or nothing under a kill or a power loss: before writing,
/// the append records the file's size, the batch's length and checksum in `FILE.perfsweep-pending`
/// (fsynced), and removes it once the batch is on disk; a batch cut short is invisible to every
/// reader (they read up to the recorded size) and the next append truncates it away. A torn line
/// left by another writer is skipped with a warning naming file:line; any other malformed line
/// is an error naming file:line. Loads stream the file in 1 MiB pieces; a load of one series
/// parses only the lines that can be of that series.
class JsonlHistoryStore final : public ports::HistoryStore {
public:
    /// A store at `path` (created on first append, with its parent directories).
    explicit JsonlHistoryStore(std::string path) : m_path(std::move(path)) {}
    /// Read every valid record (missing file = empty history).
    ports::HistoryLoad load() override;
    /// Every valid record to `visit`, in file order, one at a time.
    std::vector<std::string> scan(const ports::RecordVisitor& visit) override;
    /// The records of `metric` to `keep` and `visit`: other metrics' lines are checked for
    /// shape only, and lines whose key `keep` refuses for being well-formed JSON only.
    std::vector<std::string> scan_series(const std::string& metric, const ports::KeyFilter& keep,
                                         const ports::RecordVisitor& visit) override;
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

/// The committed text of the history file at `path` as its readers see it: without the part of
/// an append that a kill or a crash cut short ("" for a missing file).
std::string read_history_text(const std::string& path);

} // namespace perfsweep::adapters
