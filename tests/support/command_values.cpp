#include "support/command_values.hpp"

#include "adapters/github/actions_env.hpp"
#include "adapters/github/github_client.hpp"
#include "adapters/system/local_files.hpp"
#include "app/option_table.hpp"
#include "app/options_data.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

#include <cstdio>
#include <map>
#include <memory>
#include <stdexcept>

namespace perfsweep::test {

app::OptionValues command_values(const std::string& command,
                                 const std::vector<std::pair<std::string, std::string>>& options,
                                 std::vector<std::string>* warnings) {
    const auto* spec = app::find_command_spec(command);
    if (!spec)
        throw std::invalid_argument("command_values: no command '" + command + "'");
    app::OptionValues values(*spec, "perfsweep.toml");
    std::vector<app::RawOption> raw;
    for (const auto& [name, value] : options) {
        const std::string v = value.empty() ? "true" : value;
        bool gathered = false;
        for (auto& r : raw)
            if (r.name == name) {
                r.values.push_back(v);
                gathered = true;
            }
        if (!gathered)
            raw.push_back({name, {v}, app::ValueSource::command_line});
    }
    std::vector<std::string> w;
    app::assign_options(values, raw, w);
    if (warnings)
        *warnings = w;
    values.check();
    return values;
}

std::vector<std::pair<std::string, std::string>>
options_of_args(const std::vector<std::string>& args) {
    std::vector<std::pair<std::string, std::string>> out;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const auto& a = args[i];
        if (a.rfind("--", 0) != 0)
            throw std::invalid_argument("options_of_args: '" + a + "' is not an option");
        const auto eq = a.find('=');
        if (eq != std::string::npos) {
            out.emplace_back(a.substr(2, eq - 2), a.substr(eq + 1));
            continue;
        }
        const auto name = a.substr(2);
        const auto* spec = app::find_option_spec(name);
        if (spec && spec->type == app::OptionType::flag) {
            out.emplace_back(name, "");
            continue;
        }
        if (i + 1 >= args.size())
            throw std::invalid_argument("options_of_args: " + a + " has no value");
        out.emplace_back(name, args[++i]);
    }
    return out;
}

std::string usage_error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::usage);
        return e.what();
    }
    FAIL("expected a usage error");
    return "";
}

std::function<std::string(const std::string&)> env_reader(const std::vector<std::string>& pairs) {
    std::map<std::string, std::string> vars;
    for (const auto& e : pairs)
        vars[e.substr(0, e.find('='))] = e.substr(e.find('=') + 1);
    return [vars = std::move(vars)](const std::string& name) {
        const auto it = vars.find(name);
        return it == vars.end() ? std::string() : it->second;
    };
}

std::pair<app::CommentResult, std::string>
post_comment_in_process(const std::vector<std::string>& args,
                        const std::function<std::string(const std::string&)>& get) {
    // Workflow commands (none outside Actions) go to a scratch file.
    const std::unique_ptr<std::FILE, int (*)(std::FILE*)> commands(std::tmpfile(), &std::fclose);
    adapters::ActionsEnv actions(get, commands.get());
    auto c = app::resolve_comment(command_values("comment", options_of_args(args)),
                                  {get("GITHUB_REPOSITORY"), &actions});
    c.request.body = adapters::LocalFiles().read_text(c.body_file);
    const auto o = adapters::github_options_from_env(get, c.token_env);
    adapters::SystemClock clock;
    adapters::GitHubClient client(o, clock);
    return {app::post_sticky_comment(client, c.request), c.request.repo};
}

} // namespace perfsweep::test
