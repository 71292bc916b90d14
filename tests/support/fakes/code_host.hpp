#pragma once
// An in-memory code host behind ports::CodeHosts: issues, comments and collaborator roles of any
// number of repos, with GitHub's orders (comments oldest first, issues newest first) and its
// refusal of a missing token.

#include "ports/code_host.hpp"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace perfsweep::fakes {

/// The host's state; every CodeHost opened from FakeCodeHosts shares it.
struct HostData {
    struct Issue {
        ports::HostIssue issue;
        std::vector<std::string> labels;
        std::vector<ports::HostComment> comments; ///< oldest first
    };
    std::map<std::string, std::map<long long, Issue>> repos; ///< "owner/name" → number → issue
    std::map<std::string, std::string> permissions;          ///< "owner/name login" → role
    std::string login = "perfsweep-bot";                     ///< the token's user
    long long next_id = 1000;
    long requests = 0; ///< every call
};

/// Opens the in-memory host; the token must be in `tokens` (the environment) under token_env.
class FakeCodeHosts final : public ports::CodeHosts {
public:
    /// A host over `data`. Throws a usage error when tokens[token_env] is empty or missing.
    std::unique_ptr<ports::CodeHost> open(const std::string& token_env) override;
    std::map<std::string, std::string> tokens; ///< environment variable → token
    HostData data;
};

} // namespace perfsweep::fakes
