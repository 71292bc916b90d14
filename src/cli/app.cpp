#include "cli/cli.hpp"
#include "cli/context.hpp"
#include "util/error.hpp"
#include "util/workflow_text.hpp"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <string>

namespace perfsweep::cli {

int run(int argc, char** argv, ports::Adapters& adapters) {
    Context ctx{adapters};
    CLI::App app{"perfsweep: find the commit that made a GPU benchmark slower", "perfsweep"};
    app.require_subcommand(1);
    app.set_version_flag("--version", "perfsweep 0.1.0");
    // A TOML config file; options of a subcommand go in a [subcommand] section (CLI11 reads
    // config files on the main app only).
    app.set_config("--config", "", "TOML config file ([investigate] section, ...)");
    // An unknown key or section in the config file is an error naming it, never ignored.
    app.allow_config_extras(CLI::config_extras_mode::error);
    add_version(app, ctx);
    add_demo_bench(app, ctx);
    add_record(app, ctx);
    add_import(app, ctx);
    add_detect(app, ctx);
    add_run(app, ctx);
    add_daily(app, ctx);
    add_hourly(app, ctx);
    add_report(app, ctx);
    add_comment(app, ctx);
    add_investigate(app, ctx);
    add_demo(app, ctx);
    add_plan(app, ctx);
    add_merge(app, ctx);
    add_issue_request(app, ctx);
    add_probe(app, ctx);
    // `probe` runs under `git bisect run`: any error of its own must abort the bisection (>= 128),
    // never read as "bad" (1-127), so CLI11's parse-error codes and 2/3 are mapped to 128.
    const bool probe = argc > 1 && std::string(argv[1]) == "probe";
    const auto code = [&](int c) { return probe ? static_cast<int>(exit_probe_abort) : c; };
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        // CLI11's messages quote the offending value: printed inert, like our own errors.
        std::fprintf(stderr, "%s\nRun with --help for more information.\n",
                     util::inert_line(e.what()).c_str());
        if (auto* config = app.get_config_ptr(); config && config->count() > 0)
            std::fprintf(stderr,
                         "perfsweep: note: options were also read from the config file "
                         "'%s' (one [subcommand] section per command)\n",
                         util::inert_line(config->as<std::string>()).c_str());
        return code(exit_usage);
    } catch (const Error& e) {
        std::fprintf(stderr, "perfsweep: error: %s\n", util::inert_line(e.what()).c_str());
        return code(e.kind() == ErrorKind::usage ? exit_usage : exit_infra);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "perfsweep: internal error: %s\n", util::inert_line(e.what()).c_str());
        return code(exit_infra);
    }
    return ctx.exit_code;
}

} // namespace perfsweep::cli
