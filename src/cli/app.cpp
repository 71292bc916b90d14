#include "app/help.hpp"
#include "cli/cli.hpp"
#include "cli/context.hpp"
#include "cli/output.hpp"
#include "cli/parse.hpp"
#include "util/error.hpp"
#include "util/version.hpp"
#include "util/workflow_text.hpp"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>
#include <utility>

namespace perfsweep::cli {

namespace {

// Every command of the table except help and version (answered here) has one handler.
constexpr std::pair<std::string_view, Handler> k_handlers[] = {
    {"record", run_record},
    {"import", run_import},
    {"detect", run_detect},
    {"compare", run_compare},
    {"run", run_run},
    {"daily", run_daily},
    {"hourly", run_hourly},
    {"report", run_report},
    {"comment", run_comment},
    {"investigate", run_investigate},
    {"dashboard", run_dashboard},
    {"demo", run_demo},
    {"demo-bench", run_demo_bench},
    {"plan", run_plan},
    {"merge", run_merge},
    {"issue-request", run_issue_request},
    {"probe", run_probe},
};

Handler handler_of(std::string_view name) {
    for (const auto& [n, h] : k_handlers)
        if (n == name)
            return h;
    throw std::logic_error("no handler for command '" + std::string(name) + "'");
}

void print_error(const char* kind, const std::string& message) {
    std::fprintf(stderr, "perfsweep: %s: %s\n", kind, util::inert_line(message).c_str());
}

int run_help(const app::OptionValues& values) {
    if (values.flag("markdown")) {
        std::fputs(app::render_reference_markdown().c_str(), stdout);
        return exit_ok;
    }
    const std::string name = values.text("command");
    if (name.empty()) {
        std::fputs(app::render_command_list(util::version()).c_str(), stdout);
        return exit_ok;
    }
    const auto* command = app::find_command_spec(name);
    if (!command) {
        std::vector<std::string> names;
        for (const auto& c : app::command_specs())
            if (!c.hidden)
                names.emplace_back(c.name);
        const auto s = app::closest_name(name, names);
        throw_usage("help: unknown command '" + name + "'" +
                    (s ? "; did you mean '" + *s + "'?" : " (see 'perfsweep help')"));
    }
    write_inert(app::render_command_help(*command));
    return exit_ok;
}

} // namespace

std::string env_text(const char* name) {
    const char* v = std::getenv(name);
    return v ? v : "";
}

int run(int argc, char** argv, ports::Adapters& adapters) {
    Context ctx{adapters};
    // `probe` runs under `git bisect run`: any error of its own must abort the bisection (>= 128),
    // never read as "bad" (1-127), so usage and infrastructure errors are mapped to 128.
    const bool probe = command_word(argc, argv) == "probe";
    const auto code = [&](int c) { return probe ? static_cast<int>(exit_probe_abort) : c; };
    try {
        auto line = parse_command_line(argc, argv);
        for (const auto& w : line.warnings)
            print_error("warning", w);
        if (line.version) {
            std::printf("perfsweep %s\n", std::string(util::version()).c_str());
            return exit_ok;
        }
        if (!line.command) {
            const std::string list = app::render_command_list(util::version());
            if (line.help) {
                std::fputs(list.c_str(), stdout);
                return exit_ok;
            }
            std::fputs(list.c_str(), stderr);
            print_error("error", "no command given");
            return exit_usage;
        }
        if (line.help) {
            write_inert(app::render_command_help(*line.command));
            return exit_ok;
        }
        const auto& values = *line.values;
        values.check();
        const std::string_view name = line.command->name;
        if (name == "help")
            return run_help(values);
        if (name == "version") {
            std::printf("perfsweep %s\n", std::string(util::version()).c_str());
            return exit_ok;
        }
        handler_of(name)(values, ctx);
    } catch (const Error& e) {
        print_error("error", e.what());
        try { // in GitHub Actions, a red annotation naming the input (escaped as command data)
            if (adapters.actions.in_actions())
                adapters.actions.annotate("error", "perfsweep", e.what());
        } catch (const std::exception&) {
        }
        return code(e.kind() == ErrorKind::usage ? exit_usage : exit_infra);
    } catch (const std::exception& e) {
        print_error("internal error", e.what());
        return code(exit_infra);
    }
    return ctx.exit_code;
}

} // namespace perfsweep::cli
