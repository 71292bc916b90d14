#include "core/commit_text.hpp"

namespace perfsweep::core {

std::string short_sha(std::string_view sha) {
    return std::string(sha.substr(0, k_short_sha));
}

std::string format_commits(const std::map<std::string, std::string>& commits) {
    std::string s;
    for (const auto& [name, sha] : commits)
        s += (s.empty() ? "" : " ") + name + "@" + short_sha(sha);
    return s;
}

} // namespace perfsweep::core
