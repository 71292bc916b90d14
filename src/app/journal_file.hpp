#pragma once
// A stage's resume journal in its state directory (`DIR/journal.tsv`, format core/journal.hpp):
// read back when a stage starts, one record added per finished run or build, the whole file
// replaced atomically each time, so a kill leaves either the old or the new journal, never a
// torn one.

#include "core/journal.hpp"
#include "ports/files.hpp"

#include <memory>
#include <string>
#include <vector>

namespace perfsweep::app {

/// Hold the state directory `dir` for this process until the result is destroyed (nothing when
/// `dir` is empty): a second perfsweep on the same --state stops at once with an error naming
/// the one that runs, instead of measuring every point again and overwriting its journal.
std::unique_ptr<ports::DirLock> hold_state(ports::Files& files, const std::string& dir);

/// The journal of one stage; disabled (every call a no-op) without a state directory.
class JournalFile {
public:
    /// Open `dir`/journal.tsv of `stage` with `settings` (the flags that change results): read
    /// back its events, or start it. Throws a usage error naming the file when it belongs to
    /// another stage or settings, is corrupt, or `dir` holds an older perfsweep's state files.
    JournalFile(ports::Files& files, std::string dir, std::string stage, std::string settings);
    /// The events an earlier invocation recorded, in order.
    const std::vector<core::JournalEvent>& resumed() const { return m_resumed; }
    /// Add `record` (one line made by core::journal_record) durably.
    void append(const std::string& record);
    /// True with a state directory.
    bool enabled() const { return !m_path.empty(); }
    /// The journal's path ("" when disabled).
    const std::string& path() const { return m_path; }

private:
    ports::Files& m_files;
    std::string m_path;
    std::string m_text;
    std::vector<core::JournalEvent> m_resumed;
};

} // namespace perfsweep::app
