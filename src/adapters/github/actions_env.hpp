#pragma once
// The GitHub Actions runner contract: GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, workflow commands,
// and the event payload at GITHUB_EVENT_PATH.

#include "ports/actions_runner.hpp"

#include <cstdio>
#include <functional>
#include <set>
#include <string>

namespace perfsweep::adapters {

/// Escape a workflow-command message: % → %25, CR → %0D, LF → %0A.
std::string escape_command_data(const std::string& s);
/// Escape a workflow-command property value: the above plus : → %3A and , → %2C.
std::string escape_command_property(const std::string& s);
/// One GITHUB_OUTPUT entry: "name=value\n", or "name<<DELIM\nvalue\nDELIM\n" when the value has a
/// newline (DELIM = "ghadelimiter_" + `random_hex`, checked not to occur in the value).
std::string format_output(const std::string& name, const std::string& value,
                          const std::string& random_hex);
/// The PR/issue number in an event payload `json` of event `event_name` (from `source`).
ports::EventTarget event_target_from_json(const std::string& event_name, const std::string& json,
                                          const std::string& source);

/// The real runner, reading the environment through `getenv`; writes workflow commands to `out`.
class ActionsEnv final : public ports::ActionsRunner {
public:
    /// `getenv` is injectable for tests; `out` receives workflow commands (stdout).
    ActionsEnv(std::function<std::string(const std::string&)> getenv, std::FILE* out);
    bool in_actions() const override;
    void set_outputs(const std::map<std::string, std::string>& outputs) override;
    void append_summary(const std::string& markdown) override;
    void annotate(const std::string& level, const std::string& title,
                  const std::string& message) override;
    void add_mask(const std::string& secret) override;
    ports::EventTarget event_target() override;

private:
    std::function<std::string(const std::string&)> m_env;
    std::FILE* m_out;
    std::set<std::string> m_masked;
};

} // namespace perfsweep::adapters
