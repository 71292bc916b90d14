#include "cli/output.hpp"

#include "util/strings.hpp"
#include "util/workflow_text.hpp"

#include <cstdarg>
#include <cstdio>
#include <vector>

namespace perfsweep::cli {

void print_inert(const char* format, ...) {
    va_list args;
    va_start(args, format);
    va_list copy;
    va_copy(copy, args);
    const int n = std::vsnprintf(nullptr, 0, format, copy);
    va_end(copy);
    std::vector<char> buf(n > 0 ? static_cast<std::size_t>(n) + 1 : 1);
    std::vsnprintf(buf.data(), buf.size(), format, args);
    va_end(args);
    write_inert(std::string(buf.data(), n > 0 ? static_cast<std::size_t>(n) : 0));
}

void write_inert(const std::string& text) {
    const std::string out = util::inert_lines(text);
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fflush(stdout);
}

std::string inert_json(const std::string& text) {
    return util::replace_all(text, "##[", "##\\u005b");
}

void write_json(const std::string& text) {
    const std::string out = inert_json(text);
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fflush(stdout);
}

} // namespace perfsweep::cli
