#include "support/figures.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

namespace perfsweep::test {

void report_figure(const std::string& suite, const std::vector<FigureField>& fields) {
    std::string line = "FIGURE " + suite + ":";
    for (const auto& [key, value] : fields)
        line += " " + key + "=" + value;
    std::cout << line << std::endl;
    if (const char* path = std::getenv("PERFSWEEP_FIGURES"); path && *path) {
        std::ofstream out(path, std::ios::app);
        out << line << '\n';
    }
}

int suite_scale() {
    const char* s = std::getenv("PERFSWEEP_SUITE_SCALE");
    if (!s || !*s)
        return 1;
    char* end = nullptr;
    const long v = std::strtol(s, &end, 10);
    if (*end != '\0' || v < 1 || v > 1000) {
        std::fprintf(stderr, "PERFSWEEP_SUITE_SCALE='%s': expected an integer 1..1000\n", s);
        std::exit(2);
    }
    return static_cast<int>(v);
}

} // namespace perfsweep::test
