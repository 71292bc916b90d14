// Command templates (core/command_template): a template is split into words or refused with an
// error naming the flag; re-quoting the words and parsing again gives the same words; filling
// placeholders with hostile values never changes the number of words and inserts values verbatim
// (never re-parsed, never re-expanded).

#include "core/command_template.hpp"
#include "fuzz_support.hpp"

using namespace perfsweep;

namespace {

std::string single_quote(const std::string& w) {
    std::string out = "'";
    for (char c : w) {
        if (c == '\'')
            out += "'\\''";
        else
            out += c;
    }
    return out + "'";
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    // First line: the template; the rest: the value given to every placeholder.
    const auto parts = fuzz::split_first_line(fuzz::text_of(data, size));
    const std::string& text = parts.first;
    const std::string& value = parts.second;
    core::CommandTemplate cmd;
    if (!fuzz::accepts([&] { cmd = core::parse_command(text, "--command"); }, "--command"))
        return 0;
    fuzz::check(!cmd.words.empty(), "an accepted template without words", text);
    for (const auto& f : cmd.fields)
        fuzz::check(core::is_known_placeholder(f), "an unknown placeholder was accepted", f);

    std::string quoted;
    for (const auto& w : cmd.words)
        quoted += (quoted.empty() ? "" : " ") + single_quote(w);
    core::CommandTemplate again;
    fuzz::check(fuzz::accepts([&] { again = core::parse_command(quoted, "--command"); }),
                "re-quoted words are refused", quoted);
    fuzz::check(again.words == cmd.words, "re-quoted words parse differently", quoted);
    fuzz::check(again.fields == cmd.fields, "re-quoted words have other placeholders", quoted);

    // Every placeholder gets the hostile value ({yyyy}/{mm}/{dd} come from a real date).
    std::map<std::string, std::string> values;
    for (const auto& f : cmd.fields)
        values[f] = value;
    values["date"] = "2023-08-24";
    std::vector<std::string> argv;
    fuzz::check(fuzz::accepts([&] { argv = core::substitute(cmd, values); }),
                "substitution with every value present failed", text);
    fuzz::check(argv.size() == cmd.words.size(), "substitution changed the number of words", text);
    for (std::size_t i = 0; i < argv.size(); ++i) {
        if (cmd.words[i] == "{image}" || cmd.words[i] == "{commit:XLA}")
            fuzz::check(argv[i] == value, "a whole-word placeholder is not the value verbatim");
        if (cmd.words[i] == "{date}")
            fuzz::check(argv[i] == "2023-08-24", "{date} is not the date");
    }
    for (const auto& [k, v] : core::placeholder_environment(values)) {
        fuzz::check(k.rfind("PERFSWEEP_", 0) == 0, "an environment name without the prefix", k);
        fuzz::check(k.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
                        std::string::npos,
                    "an environment name with other characters", k);
    }
    return 0;
}
