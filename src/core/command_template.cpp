#include "core/command_template.hpp"

#include "util/error.hpp"
#include "util/time.hpp"

#include <cctype>

namespace perfsweep::core {

namespace {

bool is_blank(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

bool is_ident_start(char c) {
    return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_';
}

bool is_ident(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

// Length of a placeholder body starting after '{' at `pos` ("name" or "name:ARG"), 0 if the text
// there is not shaped like a placeholder (then the brace is literal, e.g. a Python dict).
size_t placeholder_length(std::string_view s, size_t pos) {
    if (pos >= s.size() || !is_ident_start(s[pos]))
        return 0;
    size_t i = pos;
    while (i < s.size() && is_ident(s[i]))
        ++i;
    if (i < s.size() && s[i] == ':') {
        ++i;
        size_t arg = i;
        while (i < s.size() && (is_ident(s[i]) || s[i] == '-' || s[i] == '.'))
            ++i;
        if (i == arg)
            return 0;
    }
    if (i < s.size() && s[i] == '}')
        return i - pos;
    return 0;
}

template <class F> void scan_placeholders(std::string_view s, F&& on_text_or_field) {
    size_t i = 0;
    while (i < s.size()) {
        char c = s[i];
        if (c == '{' && i + 1 < s.size() && s[i + 1] == '{') {
            on_text_or_field(false, std::string_view("{"));
            i += 2;
        } else if (c == '}' && i + 1 < s.size() && s[i + 1] == '}') {
            on_text_or_field(false, std::string_view("}"));
            i += 2;
        } else if (c == '$' && i + 1 < s.size() && s[i + 1] == '{') {
            on_text_or_field(false, s.substr(i, 2)); // shell parameter, not ours
            i += 2;
        } else if (c == '{') {
            size_t n = placeholder_length(s, i + 1);
            if (n == 0) {
                on_text_or_field(false, s.substr(i, 1));
                ++i;
            } else {
                on_text_or_field(true, s.substr(i + 1, n));
                i += n + 2;
            }
        } else {
            on_text_or_field(false, s.substr(i, 1));
            ++i;
        }
    }
}

std::string env_suffix(std::string_view name) {
    std::string out;
    for (char c : name)
        out += std::isalnum(static_cast<unsigned char>(c)) != 0
                   ? static_cast<char>(std::toupper(static_cast<unsigned char>(c)))
                   : '_';
    return out;
}

} // namespace

bool is_known_placeholder(std::string_view name) {
    static const char* const k_plain[] = {"date",       "image",     "time",      "gpu", "repeat",
                                          "workdir",    "label",     "yyyy",      "mm",  "dd",
                                          "output_dir", "build_dir", "build_mode"};
    for (const char* p : k_plain)
        if (name == p)
            return true;
    for (std::string_view prefix : {std::string_view("commit:"), std::string_view("path:")})
        if (name.size() > prefix.size() && name.substr(0, prefix.size()) == prefix)
            return true;
    return false;
}

CommandTemplate parse_command(std::string_view text, std::string_view where) {
    CommandTemplate cmd;
    cmd.source = std::string(text);
    const std::string w(where);
    std::string cur;
    bool in_word = false;
    size_t i = 0;
    while (i < text.size()) {
        char c = text[i];
        if (is_blank(c)) {
            if (in_word)
                cmd.words.push_back(cur);
            cur.clear();
            in_word = false;
            ++i;
        } else if (c == '\'') {
            size_t end = text.find('\'', i + 1);
            if (end == std::string_view::npos)
                throw_usage(w + " '" + cmd.source + "': unclosed single quote at column " +
                            std::to_string(i + 1) + "; expected a closing '");
            cur.append(text.substr(i + 1, end - i - 1));
            in_word = true;
            i = end + 1;
        } else if (c == '"') {
            size_t j = i + 1;
            bool closed = false;
            while (j < text.size()) {
                char d = text[j];
                if (d == '"') {
                    closed = true;
                    break;
                }
                if (d == '\\' && j + 1 < text.size() &&
                    std::string_view("\"\\$`").find(text[j + 1]) != std::string_view::npos) {
                    cur += text[j + 1];
                    j += 2;
                    continue;
                }
                cur += d;
                ++j;
            }
            if (!closed)
                throw_usage(w + " '" + cmd.source + "': unclosed double quote at column " +
                            std::to_string(i + 1) + "; expected a closing \"");
            in_word = true;
            i = j + 1;
        } else if (c == '\\') {
            if (i + 1 >= text.size())
                throw_usage(w + " '" + cmd.source +
                            "': trailing backslash; expected a character after it");
            if (text[i + 1] != '\n')
                cur += text[i + 1];
            in_word = true;
            i += 2;
        } else {
            cur += c;
            in_word = true;
            ++i;
        }
    }
    if (in_word)
        cmd.words.push_back(cur);
    if (cmd.words.empty())
        throw_usage(w + " is empty; expected a command such as 'python3 bench.py'");
    for (const auto& word : cmd.words)
        scan_placeholders(word, [&](bool field, std::string_view s) {
            if (!field)
                return;
            if (!is_known_placeholder(s))
                throw_usage(w + " '" + cmd.source + "': unknown placeholder {" + std::string(s) +
                            "}; expected one of {date} {image} {time} {gpu} {repeat} {workdir} "
                            "{label} {yyyy} {mm} {dd} {commit:NAME} {path:NAME} (write {{ for a "
                            "literal brace)");
            cmd.fields.emplace_back(s);
        });
    return cmd;
}

std::string substitute_word(std::string_view text, const std::map<std::string, std::string>& values,
                            std::string_view where) {
    std::string out;
    scan_placeholders(text, [&](bool field, std::string_view s) {
        if (!field) {
            out.append(s);
            return;
        }
        const std::string name(s);
        if (!is_known_placeholder(name))
            throw_usage(std::string(where) + " '" + std::string(text) + "': unknown placeholder {" +
                        name + "}");
        if (name == "yyyy" || name == "mm" || name == "dd") {
            auto it = values.find("date");
            auto d = it == values.end() ? std::nullopt : util::parse_date(it->second);
            if (!d)
                throw_usage(std::string(where) + " uses {" + name +
                            "} but this point has no date (YYYY-MM-DD); pass --date");
            const std::string full = util::format_date(*d);
            out += name == "yyyy" ? full.substr(0, 4)
                   : name == "mm" ? full.substr(5, 2)
                                  : full.substr(8, 2);
            return;
        }
        auto it = values.find(name);
        if (it == values.end())
            throw_usage(std::string(where) + " uses {" + name +
                        "} but this point has no value "
                        "for it" +
                        (name.rfind("commit:", 0) == 0 ? " (pass --commit NAME=SHA)"
                         : name.rfind("path:", 0) == 0 ? " (pass --path NAME=DIR)"
                                                       : ""));
        out += it->second;
    });
    return out;
}

std::string expand_image(std::string_view image, const std::string& date) {
    return substitute_word(image, {{"date", date}}, "--image");
}

std::vector<std::string> substitute(const CommandTemplate& cmd,
                                    const std::map<std::string, std::string>& values) {
    std::vector<std::string> out;
    out.reserve(cmd.words.size());
    for (const auto& w : cmd.words)
        out.push_back(substitute_word(w, values, "command '" + cmd.source + "'"));
    return out;
}

std::map<std::string, std::string>
placeholder_environment(const std::map<std::string, std::string>& values) {
    std::map<std::string, std::string> env;
    for (const auto& [k, v] : values) {
        if (k.rfind("commit:", 0) == 0)
            env["PERFSWEEP_COMMIT_" + env_suffix(k.substr(7))] = v;
        else if (k.rfind("path:", 0) == 0)
            env["PERFSWEEP_PATH_" + env_suffix(k.substr(5))] = v;
        else
            env["PERFSWEEP_" + env_suffix(k)] = v;
    }
    return env;
}

} // namespace perfsweep::core
