#pragma once
// Files kept beside a history (HistoryStore::write_beside / read_beside): the rules for their
// paths, shared by every store, and the JSON Lines store's side directory (the directory that
// holds the history file).

#include "ports/history_store.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace perfsweep::adapters {

/// Why `path` cannot name a file beside a history, or "" when it can: a relative path of at most
/// 8 names of 1-100 characters from [A-Za-z0-9._-], none of them "." or "..", at most 300
/// characters in all.
std::string side_path_problem(std::string_view path);

/// Throw a usage error naming `where` and the path for the first of `files` whose path breaks
/// the rules or is the history file `history_name` itself.
void check_side_files(const std::vector<ports::SideFile>& files, const std::string& history_name,
                      const std::string& where);

/// Every regular file under `dir`/`folder` (recursively, sorted by path; links and the
/// temporary files of a write in progress are skipped), with paths relative to `dir`. None when
/// the folder does not exist.
std::vector<ports::SideFile> read_side_files(const std::string& dir, const std::string& folder);

} // namespace perfsweep::adapters
