#pragma once
// Set an environment variable for the scope of a test.

#include <cstdlib>
#include <string>

namespace perfsweep::test {

/// Sets an environment variable for the scope of a test and restores it after.
class EnvGuard {
public:
    /// Set `name` to `value`, remembering the old value.
    EnvGuard(const char* name, const std::string& value) : m_name(name) {
        if (const char* old = std::getenv(name))
            m_old = old;
        m_had = std::getenv(name) != nullptr;
        ::setenv(name, value.c_str(), 1);
    }
    /// Restore the old value (or unset it).
    ~EnvGuard() {
        if (m_had)
            ::setenv(m_name, m_old.c_str(), 1);
        else
            ::unsetenv(m_name);
    }
    EnvGuard(const EnvGuard&) = delete;
    EnvGuard& operator=(const EnvGuard&) = delete;

private:
    const char* m_name;
    std::string m_old;
    bool m_had = false;
};

} // namespace perfsweep::test
