#pragma once
// Expanding `perfsweep merge` inputs: a directory stands for every result file under it.

#include <string>
#include <vector>

namespace perfsweep::adapters {

/// `path` itself when it is a file; when a directory, every regular *.json / *.jsonl file under it
/// (recursively, sorted). Throws a usage error naming `path` when it does not exist.
std::vector<std::string> expand_result_files(const std::string& path);

} // namespace perfsweep::adapters
