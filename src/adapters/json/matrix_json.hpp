#pragma once
// GitHub Actions matrix JSON (`perfsweep plan`): {"include":[{...}, ...]}.

#include <string>
#include <utility>
#include <vector>

namespace perfsweep::adapters {

/// `entries` (each an ordered list of string fields) as one compact line
/// `{"include":[{"label":"...","date":"..."},...]}` with every string escaped.
std::string
matrix_to_json(const std::vector<std::vector<std::pair<std::string, std::string>>>& entries);

} // namespace perfsweep::adapters
