#include "support/actions_audit.hpp"

#include <cctype>

namespace perfsweep::test {
namespace {

const std::set<std::string> k_registered = {
    "add-mask",    "add-path",       "set-env",       "set-output",
    "save-state",  "error",          "warning",       "notice",
    "debug",       "group",          "endgroup",      "echo",
    "add-matcher", "remove-matcher", "stop-commands", "internal-set-repo-path"};

std::vector<std::string> runner_lines(const std::string& s) {
    std::vector<std::string> out;
    std::string cur;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\r' || s[i] == '\n') {
            out.push_back(cur);
            cur.clear();
            if (s[i] == '\r' && i + 1 < s.size() && s[i + 1] == '\n')
                ++i;
        } else {
            cur += s[i];
        }
    }
    if (!cur.empty())
        out.push_back(cur);
    return out;
}

/// Length of the leading whitespace as .NET's TrimStart sees it (ASCII and the UTF-8 encoded
/// Unicode space separators).
std::size_t leading_space(const std::string& s) {
    std::size_t i = 0;
    for (;;) {
        const auto u = [&](std::size_t k) {
            return k < s.size() ? static_cast<unsigned char>(s[k]) : 0u;
        };
        if (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\v' || s[i] == '\f')) {
            ++i;
        } else if (u(i) == 0xC2 && (u(i + 1) == 0x85 || u(i + 1) == 0xA0)) {
            i += 2;
        } else if (u(i) == 0xE1 && u(i + 1) == 0x9A && u(i + 2) == 0x80) {
            i += 3;
        } else if (u(i) == 0xE2 && u(i + 1) == 0x80 &&
                   ((u(i + 2) >= 0x80 && u(i + 2) <= 0x8A) || u(i + 2) == 0xA8 ||
                    u(i + 2) == 0xA9 || u(i + 2) == 0xAF)) {
            i += 3;
        } else if (u(i) == 0xE2 && u(i + 1) == 0x81 && u(i + 2) == 0x9F) {
            i += 3;
        } else if (u(i) == 0xE3 && u(i + 1) == 0x80 && u(i + 2) == 0x80) {
            i += 3;
        } else {
            return i;
        }
    }
}

struct Parsed {
    std::string name, props, data;
};

bool parse_v2(const std::string& line, Parsed& p) {
    const std::string m = line.substr(leading_space(line));
    if (m.rfind("::", 0) != 0)
        return false;
    const auto end = m.find("::", 2);
    if (end == std::string::npos)
        return false;
    const std::string info = m.substr(2, end - 2);
    const auto sp = info.find(' ');
    p.name = info.substr(0, sp);
    p.props = sp == std::string::npos ? "" : info.substr(sp + 1);
    p.data = m.substr(end + 2);
    return true;
}

bool parse_v1(const std::string& line, Parsed& p) {
    const auto at = line.find("##[");
    if (at == std::string::npos)
        return false;
    const auto rb = line.find(']', at);
    if (rb == std::string::npos)
        return false;
    const std::string info = line.substr(at + 3, rb - at - 3);
    const auto sp = info.find(' ');
    p.name = info.substr(0, sp);
    p.props = sp == std::string::npos ? "" : info.substr(sp + 1);
    p.data = line.substr(rb + 1);
    return true;
}

} // namespace

CommandAudit audit_workflow_commands(const std::string& stream,
                                     const std::set<std::string>& masks) {
    CommandAudit audit;
    const auto lines = runner_lines(stream);
    std::string stop_token; // non-empty while commands are stopped
    bool after_resume = false;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string& line = lines[i];
        Parsed p;
        const bool v2 = parse_v2(line, p);
        if (!stop_token.empty()) {
            if (v2 && p.name == stop_token) {
                stop_token.clear();
                after_resume = true;
            }
            continue;
        }
        if (!v2 && !parse_v1(line, p))
            continue;
        if (!k_registered.count(p.name))
            continue;
        ++audit.commands;
        bool ours = false;
        if (v2) {
            if (p.name == "add-mask")
                ours = masks.count(p.data) > 0;
            else if (p.name == "error" || p.name == "warning" || p.name == "notice")
                ours = p.props.rfind("title=perfsweep", 0) == 0;
            else if (p.name == "group") {
                Parsed next;
                ours = i + 1 < lines.size() && parse_v2(lines[i + 1], next) &&
                       next.name == "stop-commands" && next.data.rfind("perfsweep-", 0) == 0;
            } else if (p.name == "stop-commands") {
                Parsed prev;
                ours = i > 0 && parse_v2(lines[i - 1], prev) && prev.name == "group" &&
                       p.data.rfind("perfsweep-", 0) == 0;
            } else if (p.name == "endgroup")
                ours = after_resume;
        }
        after_resume = false;
        if (p.name == "stop-commands")
            stop_token = p.data; // the runner stops either way
        if (!ours)
            audit.forged.push_back(line.substr(0, 200));
    }
    return audit;
}

std::vector<std::pair<std::string, std::string>> parse_github_output(const std::string& text,
                                                                     std::string* error) {
    std::vector<std::pair<std::string, std::string>> out;
    std::vector<std::string> lines;
    std::string cur;
    for (char c : text) {
        if (c == '\n') {
            if (!cur.empty() && cur.back() == '\r')
                cur.pop_back();
            lines.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    if (!cur.empty())
        lines.push_back(cur);
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string& line = lines[i];
        if (line.empty())
            continue;
        const auto eq = line.find('=');
        const auto hd = line.find("<<");
        if (hd != std::string::npos && (eq == std::string::npos || hd < eq)) {
            const std::string name = line.substr(0, hd), delim = line.substr(hd + 2);
            if (name.empty() || delim.empty()) {
                if (error)
                    *error = "line " + std::to_string(i + 1) + ": empty name or delimiter";
                return out;
            }
            std::string value;
            std::size_t j = i + 1;
            for (; j < lines.size() && lines[j] != delim; ++j)
                value += (j == i + 1 ? "" : "\n") + lines[j];
            if (j == lines.size()) {
                if (error)
                    *error = "line " + std::to_string(i + 1) + ": delimiter never found";
                return out;
            }
            out.emplace_back(name, value);
            i = j;
        } else if (eq != std::string::npos && eq > 0) {
            out.emplace_back(line.substr(0, eq), line.substr(eq + 1));
        } else {
            if (error)
                *error = "line " + std::to_string(i + 1) + ": not name=value or name<<DELIM";
            return out;
        }
    }
    return out;
}

} // namespace perfsweep::test
