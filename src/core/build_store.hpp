#pragma once
// The kept builds of source states (pure): what identifies a build (the recipe and every repo's
// commit), the store's index of finished builds (which entry holds which build, and how recently
// each was used), and which entries to drop to stay within the bound. The I/O lives in
// app/build_store.

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace perfsweep::core {

/// The full key of a build: the recipe identity (build command, image, runtime, environment:
/// everything besides the sources that determines the build output) and every repo's commit.
/// Two builds are the same build only when their keys are equal.
std::string build_key(std::string_view recipe, const std::map<std::string, std::string>& commits);

/// The entry name of a key in the store: 16 hex digits of its hash (the index keeps the whole key
/// and a reuse needs it equal, so two keys of one name never stand in for each other).
std::string build_entry(std::string_view key);

/// One finished, kept build.
struct KeptBuild {
    std::string entry; ///< build_entry(key): its directory in the store
    long used = 0;     ///< when it was last built or restored (a sequence number, larger = later)
    std::string key;   ///< build_key
};

/// The store's index (STORE/index.tsv): one kept build per entry.
struct BuildIndex {
    std::vector<KeptBuild> builds;
    /// The kept build of `key`, or nullptr.
    const KeptBuild* find(std::string_view key) const;
    /// Drop whatever the entry of `key` holds (it is about to be rebuilt).
    void forget(std::string_view key);
    /// Record `key` as kept (or used again) now: its `used` becomes the latest.
    void touch(std::string_view key);
    /// Drop the least recently used builds beyond `keep`; returns their entries.
    std::vector<std::string> evict(std::size_t keep);
};

/// The index's text (header line, then ENTRY<TAB>USED<TAB>KEY lines, fields escaped like a
/// journal's).
std::string format_build_index(const BuildIndex& index);

/// Parse an index text; every problem is a usage error naming `where`:LINE and what was expected.
BuildIndex parse_build_index(std::string_view text, const std::string& where);

} // namespace perfsweep::core
