// GitHub event payloads (adapters/github/actions_env event_target_from_json) for every event
// perfsweep reads: a payload yields a positive PR/issue number or a reason naming the event, or
// an error naming GITHUB_EVENT_PATH's file.

#include "adapters/github/actions_env.hpp"
#include "fuzz_support.hpp"

using namespace perfsweep;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string json = fuzz::text_of(data, size);
    for (const char* event : {"pull_request", "pull_request_target", "issues", "issue_comment",
                              "workflow_dispatch", "schedule", "push"}) {
        ports::EventTarget t;
        if (!fuzz::accepts([&] { t = adapters::event_target_from_json(event, json, "event.json"); },
                           "event.json"))
            continue;
        fuzz::check(t.event_name == event, "event name changed");
        fuzz::check(t.number.has_value() != !t.why_none.empty(),
                    "exactly one of a number and a reason", t.why_none);
    }
    // Workflow-command escaping of text taken from a payload: no raw CR/LF survives.
    const auto data_escaped = adapters::escape_command_data(json);
    const auto prop_escaped = adapters::escape_command_property(json);
    for (const auto& s : {data_escaped, prop_escaped})
        fuzz::check(s.find_first_of("\r\n") == std::string::npos, "CR/LF survived escaping");
    fuzz::check(prop_escaped.find_first_of(":,") == std::string::npos, ": or , in a property");
    // GITHUB_OUTPUT: a multi-line value cannot end its own heredoc early.
    const auto out = adapters::format_output("result", json, "0123abcd");
    if (json.find('\n') == std::string::npos && json.find('\r') == std::string::npos)
        fuzz::check(out == "result=" + json + "\n", "single-line output changed");
    return 0;
}
