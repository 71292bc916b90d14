#pragma once
// Plain-text tables for human output (pure).

#include <string>
#include <vector>

namespace perfsweep::report {

/// A table with a header row; cells are plain text.
struct TextTable {
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;
    std::vector<bool> right_align; ///< per column; missing entries mean left
};

/// Render `t` with columns padded to their widest cell, two spaces between columns.
std::string render_text(const TextTable& t);

} // namespace perfsweep::report
