#pragma once
// Port: the GitHub Actions runner contract (outputs, job summary, annotations, event payload).

#include <map>
#include <optional>
#include <string>

namespace perfsweep::ports {

/// Which issue or PR the triggering event points at.
struct EventTarget {
    std::string event_name;          ///< GITHUB_EVENT_NAME, e.g. "pull_request"
    std::optional<long long> number; ///< the PR or issue number, when the event has one
    std::string why_none;            ///< when `number` is empty: why (names the event)
};

/// The runner's environment. Every writer is a no-op outside Actions (GITHUB_ACTIONS != "true").
class ActionsRunner {
public:
    virtual ~ActionsRunner() = default;
    /// True inside GitHub Actions.
    virtual bool in_actions() const = 0;
    /// Write step outputs to GITHUB_OUTPUT (multi-line values use a random delimiter).
    virtual void set_outputs(const std::map<std::string, std::string>& outputs) = 0;
    /// Append markdown to GITHUB_STEP_SUMMARY.
    virtual void append_summary(const std::string& markdown) = 0;
    /// Emit an ::error / ::warning / ::notice annotation with escaped text.
    virtual void annotate(const std::string& level, const std::string& title,
                          const std::string& message) = 0;
    /// Ask the runner to mask `secret` in logs (once per value).
    virtual void add_mask(const std::string& secret) = 0;
    /// The PR/issue of the triggering event (GITHUB_EVENT_PATH, GITHUB_EVENT_NAME).
    virtual EventTarget event_target() = 0;
};

} // namespace perfsweep::ports
