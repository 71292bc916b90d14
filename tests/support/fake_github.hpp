#pragma once
// Starts tests/support/fake_github/server.js (node) on a loopback port for the test's lifetime.

#include <sys/types.h>

#include <string>

namespace perfsweep::test {

/// A running fake GitHub API. `available()` is false when node is missing (tests then skip).
class FakeGitHub {
public:
    /// Start the server and wait for its port.
    FakeGitHub();
    /// Stop it.
    ~FakeGitHub();
    FakeGitHub(const FakeGitHub&) = delete;
    FakeGitHub& operator=(const FakeGitHub&) = delete;
    /// Whether node was found and the server started.
    bool available() const { return m_port > 0; }
    /// "http://127.0.0.1:PORT".
    std::string url() const { return "http://127.0.0.1:" + std::to_string(m_port); }
    /// POST `json` (or, for "@PATH", that file's content) to the control endpoint
    /// `/_control/<what>`, GET it when `json` is empty; returns the reply body.
    std::string control(const std::string& what, const std::string& json = "") const;

private:
    pid_t m_pid = -1;
    int m_port = 0;
};

/// True when `node` is on PATH.
bool have_node();

} // namespace perfsweep::test
