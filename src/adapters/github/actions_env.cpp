#include "adapters/github/actions_env.hpp"

#include "adapters/json/json_parse.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

#include <rapidjson/document.h>

#include <fstream>
#include <random>
#include <sstream>

namespace perfsweep::adapters {
namespace {

std::string random_hex() {
    std::random_device rd;
    std::ostringstream s;
    for (int i = 0; i < 4; ++i)
        s << std::hex << rd();
    return s.str();
}

void append_file(const std::string& path, const std::string& text, const std::string& var) {
    std::ofstream f(path, std::ios::app | std::ios::binary);
    if (!f)
        throw_infra(var + " '" + path + "': cannot open for appending");
    f << text;
    f.flush();
    if (!f)
        throw_infra(var + " '" + path + "': write failed");
}

} // namespace

std::string escape_command_data(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '%')
            out += "%25";
        else if (c == '\r')
            out += "%0D";
        else if (c == '\n')
            out += "%0A";
        else
            out += c;
    }
    return out;
}

std::string escape_command_property(const std::string& s) {
    std::string out;
    for (char c : escape_command_data(s)) {
        if (c == ':')
            out += "%3A";
        else if (c == ',')
            out += "%2C";
        else
            out += c;
    }
    return out;
}

std::string format_output(const std::string& name, const std::string& value,
                          const std::string& rnd) {
    if (name.empty() || name.find_first_of("=<\r\n") != std::string::npos)
        throw_usage("output name '" + name +
                    "': expected a non-empty name without '=', '<' or newlines");
    if (value.find('\n') == std::string::npos && value.find('\r') == std::string::npos)
        return name + "=" + value + "\n";
    std::string delim = "ghadelimiter_" + rnd;
    while (value.find(delim) != std::string::npos)
        delim += "_";
    return name + "<<" + delim + "\n" + value + "\n" + delim + "\n";
}

ports::EventTarget event_target_from_json(const std::string& event_name, const std::string& json,
                                          const std::string& source) {
    ports::EventTarget t;
    t.event_name = event_name;
    rapidjson::Document d;
    if (const auto err = parse_json(d, json))
        throw_usage("GITHUB_EVENT_PATH '" + source + "': invalid JSON at offset " +
                    std::to_string(err->offset) + " (" + err->message +
                    "); expected the event payload object");
    if (!d.IsObject())
        throw_usage("GITHUB_EVENT_PATH '" + source + "': not a JSON object");
    // A number field that is present must be a positive integer; a wrong type is an error naming
    // the field (never silently "no target", never a request for PR -3).
    auto positive = [&](const rapidjson::Value& v, const std::string& field) -> long long {
        if (!v.IsInt64() || v.GetInt64() <= 0)
            throw_usage("GITHUB_EVENT_PATH '" + source + "': field '" + field +
                        "' is not a positive integer; expected a PR or issue number");
        return v.GetInt64();
    };
    auto number_at = [&](const char* obj) -> std::optional<long long> {
        auto it = d.FindMember(obj);
        if (it == d.MemberEnd() || it->value.IsNull())
            return std::nullopt;
        if (!it->value.IsObject())
            throw_usage("GITHUB_EVENT_PATH '" + source + "': field '" + obj +
                        "' is not an object; expected the event's " + obj + " object");
        auto n = it->value.FindMember("number");
        if (n == it->value.MemberEnd())
            return std::nullopt;
        return positive(n->value, std::string(obj) + ".number");
    };
    if (event_name == "pull_request" || event_name == "pull_request_target") {
        t.number = number_at("pull_request");
        if (!t.number && d.HasMember("number"))
            t.number = positive(d["number"], "number");
    } else if (event_name == "issues" || event_name == "issue_comment") {
        t.number = number_at("issue"); // on a PR conversation the issue number is the PR number
    } else if (event_name == "workflow_dispatch") {
        auto in = d.FindMember("inputs");
        if (in != d.MemberEnd() && in->value.IsObject()) {
            for (const char* key : {"pr", "issue", "pull_request", "issue_number"}) {
                auto v = in->value.FindMember(key);
                if (v == in->value.MemberEnd())
                    continue;
                if (v->value.IsNumber())
                    t.number = positive(v->value, std::string("inputs.") + key);
                else if (v->value.IsString()) {
                    const std::string s(util::trim(v->value.GetString()));
                    if (s.empty())
                        continue;
                    auto n = util::parse_int(s);
                    if (!n || *n <= 0)
                        throw_usage("GITHUB_EVENT_PATH '" + source +
                                    "': workflow_dispatch input '" + key + "' is '" + s +
                                    "'; expected a PR or issue number");
                    t.number = *n;
                }
                if (t.number)
                    break;
            }
        }
        if (!t.number)
            t.why_none = "the workflow_dispatch event has no 'pr' or 'issue' input with a number";
    }
    if (!t.number && t.why_none.empty())
        t.why_none = event_name.empty() ? "GITHUB_EVENT_NAME is not set"
                     : event_name == "schedule"
                         ? "a 'schedule' event has no PR or issue"
                         : "the '" + event_name + "' event names no PR or issue" +
                               (event_name == "issues" || event_name == "issue_comment"
                                    ? std::string(" (no 'issue.number' field)")
                                : event_name.rfind("pull_request", 0) == 0
                                    ? std::string(" (no 'pull_request.number' field)")
                                    : std::string());
    return t;
}

ActionsEnv::ActionsEnv(std::function<std::string(const std::string&)> getenv, std::FILE* out)
    : m_env(std::move(getenv)), m_out(out) {}

bool ActionsEnv::in_actions() const {
    return m_env("GITHUB_ACTIONS") == "true";
}

void ActionsEnv::set_outputs(const std::map<std::string, std::string>& outputs) {
    if (!in_actions())
        return;
    const std::string path = m_env("GITHUB_OUTPUT");
    if (path.empty())
        return;
    std::string text;
    for (const auto& [k, v] : outputs)
        text += format_output(k, v, random_hex());
    append_file(path, text, "GITHUB_OUTPUT");
}

void ActionsEnv::append_summary(const std::string& markdown) {
    if (!in_actions())
        return;
    const std::string path = m_env("GITHUB_STEP_SUMMARY");
    if (path.empty())
        return;
    append_file(path, markdown + (markdown.empty() || markdown.back() == '\n' ? "" : "\n"),
                "GITHUB_STEP_SUMMARY");
}

void ActionsEnv::annotate(const std::string& level, const std::string& title,
                          const std::string& message) {
    if (!in_actions())
        return;
    if (level != "error" && level != "warning" && level != "notice")
        throw_usage("annotation level '" + level + "': expected error, warning or notice");
    std::string line = "::" + level;
    if (!title.empty())
        line += " title=" + escape_command_property(title);
    line += "::" + escape_command_data(message) + "\n";
    std::fputs(line.c_str(), m_out);
    std::fflush(m_out);
}

void ActionsEnv::add_mask(const std::string& secret) {
    if (!in_actions() || secret.empty() || !m_masked.insert(secret).second)
        return;
    std::fputs(("::add-mask::" + escape_command_data(secret) + "\n").c_str(), m_out);
    std::fflush(m_out);
}

ports::EventTarget ActionsEnv::event_target() {
    const std::string name = m_env("GITHUB_EVENT_NAME");
    const std::string path = m_env("GITHUB_EVENT_PATH");
    if (path.empty()) {
        ports::EventTarget t;
        t.event_name = name;
        t.why_none = "GITHUB_EVENT_PATH is not set (not running in GitHub Actions?)";
        return t;
    }
    std::ifstream f(path, std::ios::binary);
    if (!f)
        throw_usage("GITHUB_EVENT_PATH '" + path + "': cannot read");
    std::stringstream ss;
    ss << f.rdbuf();
    return event_target_from_json(name, ss.str(), path);
}

} // namespace perfsweep::adapters
