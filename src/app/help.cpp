#include "app/help.hpp"

#include <algorithm>
#include <sstream>
#include <vector>

namespace perfsweep::app {

namespace {

constexpr std::size_t k_width = 100;

// Display width of UTF-8 text: one column per code point (no continuation bytes).
std::size_t columns(std::string_view s) {
    std::size_t n = 0;
    for (unsigned char c : s)
        n += (c & 0xC0) != 0x80 ? 1 : 0;
    return n;
}

// Word-wrap `text` to `width` columns, every line after the first indented by `indent`.
std::string wrap(const std::string& text, std::size_t first_column, std::size_t indent) {
    std::istringstream words(text);
    std::string word, out;
    std::size_t column = first_column;
    bool first = true;
    while (words >> word) {
        if (!first && column + 1 + columns(word) > k_width) {
            out += "\n" + std::string(indent, ' ');
            column = indent;
        } else if (!first) {
            out += ' ';
            ++column;
        }
        out += word;
        column += columns(word);
        first = false;
    }
    return out;
}

std::string flag_text(const CommandOption& o) {
    const auto& s = spec_of(o);
    if (o.positional == Positional::only)
        return std::string(s.value_name) + (s.type == OptionType::list ? "..." : "");
    std::string t = "--" + std::string(o.name);
    if (s.type != OptionType::flag)
        t += " " + std::string(s.value_name);
    return t;
}

std::string usage_line(const CommandSpec& c) {
    std::string u = "perfsweep " + std::string(c.name);
    bool options = false;
    for (const auto& o : c.options) {
        if (o.hidden)
            continue;
        if (o.positional == Positional::only) {
            const auto& s = spec_of(o);
            const std::string word =
                std::string(s.value_name) + (s.type == OptionType::list ? "..." : "");
            u += o.required ? " " + word : " [" + word + "]";
        } else {
            options = true;
        }
    }
    if (options)
        u += " [options]";
    for (const auto& o : c.options)
        if (o.positional == Positional::also)
            u += " [" + std::string(spec_of(o).value_name) + "...]";
    return u;
}

std::string type_word(OptionType t) {
    switch (t) {
    case OptionType::text:
        return "text";
    case OptionType::list:
        return "text, repeatable";
    case OptionType::flag:
        return "flag";
    case OptionType::integer:
        return "whole number";
    case OptionType::number:
        return "number";
    case OptionType::fraction:
        return "fraction";
    case OptionType::threshold:
        return "threshold";
    case OptionType::duration:
        return "duration";
    case OptionType::date:
        return "date";
    }
    return "text";
}

// Text for a markdown table cell: '|' escaped; '<' and '>' as entities outside code spans (so
// "<NAME>" is not taken for an HTML tag).
std::string escape_cell(const std::string& s) {
    std::string out;
    bool code = false;
    for (char c : s) {
        if (c == '`')
            code = !code;
        if (c == '|')
            out += "\\|";
        else if (c == '<' && !code)
            out += "&lt;";
        else if (c == '>' && !code)
            out += "&gt;";
        else
            out += c;
    }
    return out;
}

} // namespace

std::string option_description(const CommandOption& o) {
    const auto& s = spec_of(o);
    std::string d(s.help);
    if (!o.note.empty())
        d += "; " + std::string(o.note);
    if (s.type == OptionType::list && o.positional == Positional::also)
        d += " (also as bare words)";
    return d;
}

std::string render_command_list(std::string_view version) {
    std::string out = "perfsweep " + std::string(version) +
                      ": find the commit that made a GPU benchmark slower\n\n"
                      "usage: perfsweep [--config FILE] COMMAND [options]\n"
                      "       perfsweep help [COMMAND]\n"
                      "       perfsweep --version\n\ncommands:\n";
    std::size_t w = 0;
    for (const auto& c : command_specs())
        if (!c.hidden)
            w = std::max(w, c.name.size());
    for (const auto& c : command_specs()) {
        if (c.hidden)
            continue;
        const std::string name(c.name);
        out += "  " + name + std::string(w - name.size() + 2, ' ') +
               wrap(std::string(c.summary), w + 4, w + 4) + "\n";
    }
    out += "\nglobal options (before the command):\n"
           "  --config FILE   TOML config file: a [COMMAND] section per command, keys are the "
           "option\n                  names (a flag on the command line wins)\n"
           "  --version       print the version\n"
           "  -h, --help      this list; `perfsweep COMMAND --help` describes one command\n";
    return out;
}

std::string render_command_help(const CommandSpec& c) {
    std::string out = "usage: " + usage_line(c) + "\n\n" + wrap(std::string(c.help), 0, 0) + "\n";
    std::vector<std::pair<std::string, std::string>> rows;
    std::vector<std::string> old;
    for (const auto& o : c.options) {
        if (o.hidden)
            continue;
        std::string d = option_description(o);
        if (!o.default_value.empty() && spec_of(o).type != OptionType::flag)
            d += " [default: " + std::string(o.default_value) + "]";
        if (o.required)
            d += " (required)";
        rows.emplace_back(flag_text(o), d);
        for (const auto& n : o.old_names)
            old.push_back("--" + std::string(n.name) + " (now --" + std::string(o.name) + ")");
    }
    if (!rows.empty()) {
        out += "\noptions:\n";
        std::size_t w = 0;
        for (const auto& [flag, d] : rows)
            w = std::min<std::size_t>(std::max(w, flag.size()), 28);
        for (const auto& [flag, d] : rows) {
            std::string line = "  " + flag;
            if (flag.size() > w)
                line += "\n" + std::string(w + 4, ' ');
            else
                line += std::string(w - flag.size() + 2, ' ');
            out += line + wrap(d, w + 4, w + 4) + "\n";
        }
    }
    if (!old.empty()) {
        std::string list;
        for (const auto& o : old)
            list += (list.empty() ? "" : ", ") + o;
        out += "\n" + wrap("Old names, still accepted with a warning: " + list + ".", 0, 0) + "\n";
    }
    if (!rows.empty())
        out += "\n" +
               wrap("Every option can also be set in a config file (perfsweep --config FILE " +
                        std::string(c.name) + "), as a key of its [" + std::string(c.name) +
                        "] section; the command line wins.",
                    0, 0) +
               "\n";
    return out;
}

std::string render_reference_markdown() {
    std::string out =
        "# Command reference\n\n"
        "<!-- Generated by `perfsweep help --markdown` from src/app/option_table.cpp; a test "
        "fails when this file differs. Regenerate: ./build/perfsweep help --markdown > "
        "docs/commands.md -->\n\n"
        "`perfsweep [--config FILE] COMMAND [options]`; `perfsweep help COMMAND` (or `perfsweep "
        "COMMAND --help`) prints the same as this page for one command, `perfsweep --version` "
        "the version. Every option name has one meaning across commands. A mistyped command or "
        "option gets a suggestion; errors are `perfsweep: error: ...` and exit 2 (see the exit "
        "codes in the [README](../README.md#exit-codes)).\n\n"
        "Config file: `--config FILE` (before the command) reads a TOML file with one "
        "`[COMMAND]` section per command whose keys are the option names without dashes "
        "(`threshold = 0.02`, `repo = [\"jax=/src/jax\", \"xla=/src/xla\"]`, `to-commit = "
        "true`); an unknown section or key is an error, and a flag on the command line wins "
        "over the file.\n\n"
        "Values:\n\n"
        "| type | written as |\n| --- | --- |\n"
        "| duration | `90s`, `30m`, `2h`, `1d`, combined `1h30m`; a bare number is seconds |\n"
        "| fraction | a relative change: `0.02` or `2%` (at least 0, below 1) |\n"
        "| threshold | a fraction, or from `100%` on github-action-benchmark's ratio of how much "
        "worse: `150%` or `1.5x` (1 − 1/1.5 = a 33.3 % drop when higher is better, 50 % more "
        "when lower is better); a bare `1.5` is refused |\n"
        "| date | `YYYY-MM-DD` |\n"
        "| whole number | e.g. `3`; each option names its smallest value |\n"
        "| repeatable | give the option once per value |\n"
        "| flag | no value |\n\n"
        "Old names of renamed options are still accepted, with a warning on stderr; each "
        "command lists its own.\n";
    out += "\n| command | what it does |\n| --- | --- |\n";
    for (const auto& c : command_specs())
        if (!c.hidden)
            out += "| [`" + std::string(c.name) + "`](#" + std::string(c.name) + ") | " +
                   escape_cell(std::string(c.summary)) + " |\n";
    for (const auto& c : command_specs()) {
        if (c.hidden)
            continue;
        out += "\n## " + std::string(c.name) + "\n\n`" + usage_line(c) + "`\n\n" +
               escape_cell(std::string(c.help)) + "\n";
        bool any = false;
        std::vector<std::string> old;
        for (const auto& o : c.options) {
            if (o.hidden)
                continue;
            if (!any)
                out += "\n| option | type | default | description |\n| --- | --- | --- | --- |\n";
            any = true;
            const auto& s = spec_of(o);
            std::string def = o.required                ? "required"
                              : o.default_value.empty() ? ""
                                                        : "`" + std::string(o.default_value) + "`";
            if (s.type == OptionType::flag)
                def = o.required ? "required" : "";
            out += "| `" + escape_cell(flag_text(o)) + "` | " + type_word(s.type) + " | " +
                   escape_cell(def) + " | " + escape_cell(option_description(o)) + " |\n";
            for (const auto& n : o.old_names)
                old.push_back("`--" + std::string(n.name) + "` (now `--" + std::string(o.name) +
                              "`)");
        }
        if (!old.empty()) {
            std::string list;
            for (const auto& o : old)
                list += (list.empty() ? "" : ", ") + o;
            out += "\nOld names: " + list + ".\n";
        }
    }
    return out;
}

} // namespace perfsweep::app
