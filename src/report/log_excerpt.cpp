#include "report/log_excerpt.hpp"

#include "util/strings.hpp"

#include <algorithm>

namespace perfsweep::report {

std::string log_excerpt(std::string_view log, const std::vector<std::string>& secrets,
                        std::size_t max_lines) {
    std::string text = util::strip_ansi(log);
    text.erase(std::remove(text.begin(), text.end(), '\r'), text.end());
    for (const auto& s : secrets) {
        if (s.size() < 4)
            continue;
        for (std::size_t p = 0; (p = text.find(s, p)) != std::string::npos; p += 3)
            text.replace(p, s.size(), "***");
    }
    while (!text.empty() && text.back() == '\n')
        text.pop_back();
    std::vector<std::string> lines;
    std::size_t start = 0;
    for (;;) {
        const auto nl = text.find('\n', start);
        std::string line = text.substr(start, nl == std::string::npos ? nl : nl - start);
        if (line.size() > 300)
            line = line.substr(0, 300) + "...";
        lines.push_back(std::move(line));
        if (nl == std::string::npos)
            break;
        start = nl + 1;
    }
    const std::size_t from = lines.size() > max_lines ? lines.size() - max_lines : 0;
    std::string out;
    for (std::size_t i = from; i < lines.size(); ++i)
        out += lines[i] + "\n";
    return out;
}

std::string markdown_fence(std::string_view text) {
    std::size_t longest = 0, run = 0;
    for (char c : text) {
        run = c == '`' ? run + 1 : 0;
        longest = std::max(longest, run);
    }
    const std::string fence(std::max<std::size_t>(3, longest + 1), '`');
    std::string body(text);
    if (!body.empty() && body.back() != '\n')
        body += '\n';
    return fence + "text\n" + body + fence + "\n";
}

std::string prefix_lines(std::string_view text, std::string_view prefix) {
    std::string out;
    std::size_t start = 0;
    while (start < text.size()) {
        const auto nl = text.find('\n', start);
        const auto end = nl == std::string_view::npos ? text.size() : nl;
        out += std::string(prefix) + std::string(text.substr(start, end - start)) + "\n";
        start = end + 1;
    }
    return out;
}

} // namespace perfsweep::report
