#include "util/workflow_text.hpp"

namespace perfsweep::util {
namespace {

/// True when the runner (which trims leading Unicode whitespace) could read `s` as "::...".
/// Conservative: every non-ASCII byte counts as possible whitespace.
bool could_start_command(std::string_view s) {
    for (std::size_t i = 0; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c == ' ' || c == '\t' || c == '\v' || c == '\f' || c >= 0x80)
            continue;
        return s.substr(i).rfind("::", 0) == 0;
    }
    return false;
}

} // namespace

std::string inert_line(std::string_view text) {
    std::string s;
    s.reserve(text.size() + 4);
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '\r' || c == '\n')
            s += ' ';
        else if (c == '#' && text.substr(i).rfind("##[", 0) == 0) {
            s += "## [";
            i += 2;
        } else
            s += c;
    }
    if (could_start_command(s))
        s.insert(0, "> ");
    return s;
}

std::string inert_lines(std::string_view text) {
    std::string out;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= text.size(); ++i) {
        if (i == text.size() || text[i] == '\n' || text[i] == '\r') {
            out += inert_line(text.substr(start, i - start));
            if (i < text.size()) {
                out += '\n';
                if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n')
                    ++i;
            }
            start = i + 1;
        }
    }
    return out;
}

} // namespace perfsweep::util
