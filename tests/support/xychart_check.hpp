#pragma once
// A strict checker of Mermaid's xychart-beta grammar (the subset perfsweep emits and more), used
// because @mermaid-js/parser has no xychart grammar. Returns "" when valid, else the problem.

#include <string>
#include <vector>

namespace perfsweep::test {

/// Check one xychart-beta diagram (the text between the ```mermaid fences).
std::string check_xychart(const std::string& diagram);

/// Every ```mermaid block in `markdown`, in order.
std::vector<std::string> mermaid_blocks(const std::string& markdown);

} // namespace perfsweep::test
