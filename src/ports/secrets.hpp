#pragma once
// Port: the credentials of this process, which children must not inherit and logs must mask.

#include <string>
#include <vector>

namespace perfsweep::ports {

/// The process's secrets.
class Secrets {
public:
    virtual ~Secrets() = default;
    /// Treat environment variable `name` (a --token-env) as a credential: child processes never
    /// inherit it and run logs mask its value. An empty name is a no-op.
    virtual void protect_env(const std::string& name) = 0;
    /// Values to mask in log excerpts: every environment variable named like a secret (*TOKEN,
    /// *SECRET, *PASSWORD, *_KEY) with a value of 4 characters or more.
    virtual std::vector<std::string> values() = 0;
};

} // namespace perfsweep::ports
