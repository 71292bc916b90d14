#include "cli/parse.hpp"

#include "util/error.hpp"
#include "util/json_writer.hpp"

#include <CLI/CLI.hpp>
#if PERFSWEEP_HAVE_TOMLPP
#include <toml++/toml.h>
#endif

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

namespace perfsweep::cli {

namespace {

using app::OptionType;
using app::Positional;

std::vector<std::string> visible_commands() {
    std::vector<std::string> out;
    for (const auto& c : app::command_specs())
        if (!c.hidden)
            out.emplace_back(c.name);
    return out;
}

[[noreturn]] void unknown_command(const std::string& word) {
    std::string msg = "unknown command '" + word + "'";
    if (const auto s = app::closest_name(word, visible_commands()))
        msg += "; did you mean '" + *s + "'?";
    throw_usage(msg + " (see 'perfsweep help')");
}

#if PERFSWEEP_HAVE_TOMLPP
// A config file's place, for messages: "FILE:LINE".
std::string place(const std::string& path, const toml::node& node) {
    const auto line = node.source().begin.line;
    return path + (line > 0 ? ":" + std::to_string(line) : std::string());
}

// One TOML value as option text, exactly as written: strings as they are (any of TOML's four
// forms), numbers in their shortest exact form, booleans as true/false, dates and times in their
// RFC 3339 form. Anything else (a table, an array of arrays) cannot be an option value.
std::optional<std::string> scalar_text(const toml::node& node) {
    if (const auto* v = node.as_string())
        return v->get();
    if (const auto* v = node.as_integer())
        return std::to_string(v->get());
    if (const auto* v = node.as_floating_point()) {
        if (!std::isfinite(v->get()))
            return std::nullopt;
        return util::json_number(v->get());
    }
    if (const auto* v = node.as_boolean())
        return v->get() ? "true" : "false";
    std::ostringstream out;
    if (const auto* d = node.as_date())
        out << d->get();
    else if (const auto* t = node.as_time())
        out << t->get();
    else if (const auto* dt = node.as_date_time())
        out << dt->get();
    else
        return std::nullopt;
    return out.str();
}

std::vector<std::string> option_values(const std::string& path, const std::string& section,
                                       const std::string& key, const toml::node& node) {
    const std::string where = place(path, node) + ": [" + section + "] " + key;
    std::vector<std::string> out;
    if (const auto* array = node.as_array()) {
        for (const auto& item : *array) {
            const auto text = scalar_text(item);
            if (!text)
                throw_usage("config file " + where +
                            ": an array item is not a string, number, boolean or date; expected "
                            "e.g. " +
                            key + " = [\"a\", \"b\"]");
            out.push_back(*text);
        }
        if (out.empty())
            throw_usage("config file " + where + ": an empty array gives no value");
        return out;
    }
    const auto text = scalar_text(node);
    if (!text)
        throw_usage("config file " + where +
                    (node.is_table()
                         ? ": a table cannot be an option value; expected one [command] "
                           "level, e.g. [investigate]"
                         : ": expected a string, number, boolean, date or an array of "
                           "them"));
    return {*text};
}

// The config file's items (toml++, the whole TOML 1.0 language); every section must be a command
// and every key one of its names, and every value maps to option text exactly or is refused
// naming the file, line and key.
std::vector<app::RawOption> read_config(const std::string& path, const app::CommandSpec& command) {
    toml::table root;
    {
        std::ifstream probe(path, std::ios::binary);
        if (!probe)
            throw_usage("--config " + path + ": cannot read the file");
    }
    try {
        root = toml::parse_file(path);
    } catch (const toml::parse_error& e) {
        const auto& b = e.source().begin;
        throw_usage("config file " + path + ":" + std::to_string(b.line) + ":" +
                    std::to_string(b.column) + ": " + std::string(e.description()) +
                    " (TOML: strings are quoted, e.g. metric = \"MLUPS\")");
    }
    std::vector<app::RawOption> out;
    for (const auto& [section_key, section_node] : root) {
        const std::string section(section_key.str());
        const auto* table = section_node.as_table();
        if (!table)
            throw_usage("config file " + place(path, section_node) + ": key '" + section +
                        "' is outside a [command] section (e.g. [investigate])");
        const auto* spec = app::find_command_spec(section);
        if (!spec || spec->hidden) {
            const auto s = app::closest_name(section, visible_commands());
            throw_usage("config file " + place(path, section_node) + ": unknown section [" +
                        section + "]" +
                        (s ? "; did you mean [" + *s + "]?" : "; sections are command names"));
        }
        const auto names = app::accepted_names(*spec);
        for (const auto& [key_key, node] : *table) {
            const std::string key(key_key.str());
            if (node.is_table())
                throw_usage("config file " + place(path, node) + ": [" + section + "." + key +
                            "]: expected one [command] level, e.g. [investigate]");
            if (std::find(names.begin(), names.end(), key) == names.end()) {
                const auto s = app::closest_name(key, names);
                throw_usage("config file " + place(path, node) + ": [" + section +
                            "] has no key '" + key + "'" +
                            (s ? "; did you mean '" + *s + "'?" : ""));
            }
            auto values = option_values(path, section, key, node);
            if (spec == &command)
                out.push_back({key, std::move(values), app::ValueSource::config_file});
        }
    }
    return out;
}

#else
std::vector<app::RawOption> read_config(const std::string& path, const app::CommandSpec&) {
    throw_usage("--config " + path +
                ": this perfsweep was built without a TOML reader (toml++, package "
                "libtomlplusplus-dev, was not found at build time); install it and rebuild, or "
                "use the release binary, or give the options on the command line");
}
#endif

// CLI11 for one command, registered from the table: it tokenizes; perfsweep checks the values.
struct Registered {
    std::string name; ///< as accepted (current or old), without dashes
    CLI::Option* option = nullptr;
    bool positional_of = false; ///< the bare words of an option with Positional::also
};

std::vector<app::RawOption> parse_command_args(const app::CommandSpec& command,
                                               std::vector<std::string> args, bool& help) {
    CLI::App parser{"", "perfsweep " + std::string(command.name)};
    parser.set_help_flag();
    parser.allow_extras();
    auto* help_flag = parser.add_flag("-h,--help");
    std::vector<Registered> reg;
    auto add = [&](const std::string& name, const app::OptionSpec& spec, bool takes_value,
                   Positional positional) {
        CLI::Option* o = nullptr;
        if (positional == Positional::only) {
            o = parser.add_option(name);
            if (spec.type == OptionType::list) // every bare word
                o->expected(1, CLI::detail::expected_max_vector_size)->allow_extra_args();
            o->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
        } else if (!takes_value) {
            o = parser.add_flag("--" + name);
        } else {
            o = parser.add_option("--" + name);
            o->expected(1);
            if (name == "inputs") // merge --inputs a b c
                o->expected(1, CLI::detail::expected_max_vector_size)->allow_extra_args();
            o->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
        }
        reg.push_back({name, o, false});
        if (positional == Positional::also) {
            auto* bare = parser.add_option(name + "-words");
            bare->expected(1, CLI::detail::expected_max_vector_size)->allow_extra_args();
            bare->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
            reg.push_back({name, bare, true});
        }
    };
    for (const auto& o : command.options) {
        const auto& spec = app::spec_of(o);
        add(std::string(o.name), spec, spec.type != OptionType::flag, o.positional);
        for (const auto& old : o.old_names)
            add(std::string(old.name), spec, spec.type != OptionType::flag || !old.on_value.empty(),
                Positional::no);
    }
    std::reverse(args.begin(), args.end()); // CLI11 takes them last first
    try {
        parser.parse(args);
    } catch (const CLI::ParseError& e) {
        throw_usage(std::string(command.name) + ": " + e.what());
    }
    help = help_flag->count() > 0;
    for (const auto& word : parser.remaining()) {
        if (word.size() > 1 && word[0] == '-') {
            std::string name = word.substr(word[1] == '-' ? 2 : 1);
            name = name.substr(0, name.find('='));
            if (name == "config")
                throw_usage("--config goes before the command: perfsweep --config FILE " +
                            std::string(command.name) + " ...");
            if (help)
                continue;
            throw_usage(app::unknown_option_message(command, name));
        }
        if (!help)
            throw_usage(std::string(command.name) + ": unexpected argument '" + word +
                        "' (options are --name VALUE; see 'perfsweep help " +
                        std::string(command.name) + "')");
    }
    std::vector<app::RawOption> raw;
    for (const auto& r : reg) {
        if (r.option->count() == 0)
            continue;
        std::vector<std::string> values = r.option->results();
        if (r.option->get_expected_min() == 0 && !r.positional_of) // a flag
            for (auto& v : values)
                if (v.empty())
                    v = "true";
        raw.push_back({r.name, values, app::ValueSource::command_line});
    }
    return raw;
}

} // namespace

std::string command_word(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--config") {
            ++i;
            continue;
        }
        if (!a.empty() && a[0] == '-')
            continue;
        return a;
    }
    return "";
}

CommandLine parse_command_line(int argc, char** argv) {
    CommandLine out;
    std::string config;
    int i = 1;
    for (; i < argc; ++i) {
        const std::string a = argv[i];
        if (a.empty() || a[0] != '-')
            break;
        if (a == "--config" || a.rfind("--config=", 0) == 0) {
            if (a == "--config") {
                if (i + 1 >= argc)
                    throw_usage("--config: expected a FILE");
                config = argv[++i];
            } else {
                config = a.substr(9);
            }
            if (config.empty())
                throw_usage("--config: expected a FILE");
        } else if (a == "--version") {
            out.version = true;
        } else if (a == "-h" || a == "--help") {
            out.help = true;
        } else {
            const std::string name = a.substr(a[1] == '-' ? 2 : 1);
            std::string msg = "unknown option " + a + " before the command";
            if (const auto s = app::closest_name(name.substr(0, name.find('=')),
                                                 {"config", "version", "help"}))
                msg += "; did you mean --" + *s + "?";
            else
                msg += " (options go after the command: perfsweep COMMAND --" +
                       name.substr(0, name.find('=')) + " ...)";
            throw_usage(msg);
        }
    }
    if (i < argc) {
        const std::string word = argv[i++];
        out.command = app::find_command_spec(word);
        if (!out.command)
            unknown_command(word);
    }
    if (!out.command) {
        if (!config.empty()) // still check the file
            read_config(config, *app::find_command_spec("version"));
        return out;
    }
    bool help = false;
    auto raw =
        parse_command_args(*out.command, std::vector<std::string>(argv + i, argv + argc), help);
    out.help = out.help || help;
    if (!config.empty()) {
        auto from_file = read_config(config, *out.command);
        raw.insert(raw.end(), from_file.begin(), from_file.end());
    }
    out.values.emplace(*out.command, config);
    if (!out.help && !out.version)
        app::assign_options(*out.values, raw, out.warnings);
    return out;
}

} // namespace perfsweep::cli
