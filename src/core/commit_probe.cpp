#include "core/commit_probe.hpp"

#include "util/strings.hpp"
#include "util/time.hpp"

#include <cctype>
#include <vector>

namespace perfsweep::core {

namespace {

bool is_sha(std::string_view s) {
    if (s.size() < 7 || s.size() > 40)
        return false;
    for (char c : s)
        if (!std::isxdigit(static_cast<unsigned char>(c)) ||
            std::isupper(static_cast<unsigned char>(c)))
            return false;
    return true;
}

bool is_name(std::string_view s) {
    if (s.empty() || s.size() > 64)
        return false;
    for (char c : s)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.' &&
            c != '/')
            return false;
    return true;
}

std::string repo_name(std::string_view s) {
    std::string n(s);
    const auto slash = n.find_last_of('/');
    if (slash != std::string::npos)
        n = n.substr(slash + 1);
    const std::string suffix = "-source";
    if (n.size() > suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0)
        n = n.substr(0, n.size() - suffix.size());
    return n;
}

std::vector<std::string> words(std::string_view line) {
    std::vector<std::string> out;
    std::string cur;
    for (char c : line) {
        if (c == ' ' || c == '\t' || c == '=' || (c == ':' && !cur.empty() && out.empty())) {
            if (!cur.empty())
                out.push_back(cur);
            cur.clear();
        } else
            cur += c;
    }
    if (!cur.empty())
        out.push_back(cur);
    return out;
}

} // namespace

ProbedCommits parse_commit_probe(std::string_view text) {
    ProbedCommits out;
    std::string yaml_block; // current top-level YAML key
    for (const auto& raw : util::split(text, '\n')) {
        const std::string line = util::strip_ansi(raw);
        const std::string trimmed(util::trim(line));
        if (trimmed.empty() || trimmed[0] == '#')
            continue;
        const bool indented = line[0] == ' ' || line[0] == '\t';
        if (!indented && trimmed.back() == ':' && is_name(trimmed.substr(0, trimmed.size() - 1))) {
            yaml_block = repo_name(trimmed.substr(0, trimmed.size() - 1));
            continue;
        }
        const auto w = words(trimmed);
        if (indented && !yaml_block.empty()) {
            if (w.size() == 2 && w[0] == "latest_verified_commit" && is_sha(w[1]))
                out.commits[yaml_block] = w[1];
            continue;
        }
        yaml_block.clear();
        if (w.size() >= 2 && w.size() <= 3 && is_name(w[0]) && is_sha(w[1])) {
            const std::string name = repo_name(w[0]);
            out.commits[name] = w[1];
            if (w.size() == 3 && util::parse_iso8601(w[2]))
                out.commit_times[name] = w[2];
        }
    }
    return out;
}

ProbedCommits commits_from_labels(const std::map<std::string, std::string>& environment,
                                  const std::map<std::string, std::string>& repo_labels,
                                  std::vector<std::string>& not_sha) {
    ProbedCommits out;
    for (const auto& [repo, label] : repo_labels) {
        const auto it = environment.find("label." + label);
        if (it == environment.end())
            continue;
        if (is_sha(it->second))
            out.commits[repo] = it->second;
        else
            not_sha.push_back(label);
    }
    return out;
}

bool is_probe_name(std::string_view name) {
    return is_name(name);
}

} // namespace perfsweep::core
