#pragma once
// Reliability and security suites (tests/suites): each suite reports its figure through
// report_figure, and scales its effort with suite_scale() (bench/reliability.sh runs long
// versions).

#include <string>
#include <utility>
#include <vector>

namespace perfsweep::test {

/// One "name=value" field of a figure.
using FigureField = std::pair<std::string, std::string>;

/// Print "FIGURE <suite>: k=v k=v ..." to stdout and append the same line to the file named by
/// $PERFSWEEP_FIGURES (when set; ctest sets it to <build>/figures.txt).
void report_figure(const std::string& suite, const std::vector<FigureField>& fields);

/// How much harder than the CI default a suite should work: $PERFSWEEP_SUITE_SCALE (an integer
/// >= 1; default 1). The README figures state which scale produced them.
int suite_scale();

} // namespace perfsweep::test
