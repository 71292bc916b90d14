#include "app/option_values.hpp"

#include "util/error.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <climits>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <stdexcept>

namespace perfsweep::app {

namespace {

std::string quoted(const std::string& value) {
    // Values are quoted briefly: a message never repeats a 50 MiB argument.
    constexpr std::size_t k_max = 200;
    if (value.size() <= k_max)
        return "'" + value + "'";
    return "'" + value.substr(0, k_max) + "...' (" + std::to_string(value.size()) + " bytes)";
}

} // namespace

std::optional<std::int64_t> parse_duration_text(std::string_view text) {
    const auto t = util::trim(text);
    if (t.empty())
        return std::nullopt;
    if (std::all_of(t.begin(), t.end(),
                    [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
        const auto n = util::parse_int(t);
        if (!n || *n > 1'000'000'000)
            return std::nullopt;
        return *n;
    }
    return util::parse_duration(t);
}

std::optional<double> parse_fraction_text(std::string_view text) {
    std::string t(util::trim(text));
    double scale = 1;
    if (!t.empty() && t.back() == '%') {
        t.pop_back();
        scale = 0.01;
    }
    const auto v = util::parse_double(util::trim(t));
    if (!v || *v * scale < 0 || *v * scale >= 1)
        return std::nullopt;
    return *v * scale;
}

std::optional<bool> parse_bool_text(std::string_view text) {
    const std::string t = util::to_lower(util::trim(text));
    if (t == "true" || t == "yes" || t == "on" || t == "1")
        return true;
    if (t == "false" || t == "no" || t == "off" || t == "0")
        return false;
    return std::nullopt;
}

std::optional<std::string> closest_name(std::string_view word,
                                        const std::vector<std::string>& candidates) {
    // Optimal string alignment distance: insertions, deletions, substitutions and swaps of two
    // neighbours cost 1 ("detcet" is one swap from "detect").
    auto distance = [](std::string_view a, std::string_view b) {
        const std::size_t n = a.size(), m = b.size();
        std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
        for (std::size_t i = 0; i <= n; ++i)
            d[i][0] = i;
        for (std::size_t j = 0; j <= m; ++j)
            d[0][j] = j;
        for (std::size_t i = 1; i <= n; ++i)
            for (std::size_t j = 1; j <= m; ++j) {
                const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
                d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
                if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                    d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
            }
        return d[n][m];
    };
    if (word.empty() || word.size() > 100)
        return std::nullopt;
    const std::string lower = util::to_lower(word);
    std::optional<std::string> best;
    std::size_t best_distance = 0;
    for (const auto& c : candidates) {
        std::size_t d = distance(lower, c);
        // A typo: at most one edit per three characters (at least one). A prefix of 3 or more
        // characters ("--thresh") also counts, as a far match.
        const std::size_t allowed = std::max<std::size_t>(1, lower.size() / 3);
        if (d > allowed) {
            if (lower.size() >= 3 && c.compare(0, lower.size(), lower) == 0)
                d = allowed + 1;
            else
                continue;
        }
        if (!best || d < best_distance) {
            best = c;
            best_distance = d;
        }
    }
    return best;
}

OptionValues::OptionValues(const CommandSpec& command, std::string config_file)
    : m_command(&command), m_config_file(std::move(config_file)) {}

const CommandOption& OptionValues::entry(std::string_view name) const {
    const auto* o = find_command_option(*m_command, name);
    if (!o)
        throw std::logic_error("option table: command '" + std::string(m_command->name) +
                               "' has no option '" + std::string(name) + "'");
    return *o;
}

void OptionValues::set(OptionName name, std::vector<std::string> values, ValueSource source,
                       std::string spelled) {
    entry(name); // must exist
    GivenValue g;
    g.values = std::move(values);
    g.source = source;
    g.spelled = spelled.empty() ? std::string(name.view()) : std::move(spelled);
    m_given[std::string(name.view())] = std::move(g);
}

void OptionValues::set(OptionName name, std::string value) {
    set(name, std::vector<std::string>{std::move(value)});
}

void OptionValues::set_flag(OptionName name) {
    set(name, std::vector<std::string>{"true"});
}

bool OptionValues::given(OptionName name) const {
    entry(name);
    return m_given.find(std::string_view(name)) != m_given.end();
}

std::optional<ValueSource> OptionValues::source(OptionName name) const {
    entry(name);
    const auto it = m_given.find(std::string_view(name));
    if (it == m_given.end())
        return std::nullopt;
    return it->second.source;
}

std::string OptionValues::describe(OptionName name) const {
    return describe_view(name);
}

std::string OptionValues::describe_view(std::string_view name) const {
    const auto it = m_given.find(std::string_view(name));
    if (it == m_given.end())
        return "--" + std::string(name);
    if (it->second.source == ValueSource::config_file)
        return "--" + it->second.spelled + " (config file " + m_config_file + ", [" +
               std::string(m_command->name) + "])";
    return "--" + it->second.spelled;
}

void OptionValues::refuse(std::string_view name, const std::string& value,
                          const std::string& expected) const {
    throw_usage(describe_view(name) + " " + quoted(value) + ": expected " + expected);
}

const std::string* OptionValues::single(std::string_view name) const {
    const auto it = m_given.find(std::string_view(name));
    if (it == m_given.end() || it->second.values.empty())
        return nullptr;
    return &it->second.values.back();
}

std::string OptionValues::text(OptionName name) const {
    const auto& e = entry(name);
    if (const auto* v = single(name))
        return *v;
    return std::string(e.default_value);
}

std::vector<std::string> OptionValues::list(OptionName name) const {
    entry(name);
    const auto it = m_given.find(std::string_view(name));
    return it == m_given.end() ? std::vector<std::string>{} : it->second.values;
}

bool OptionValues::flag(OptionName name) const {
    entry(name);
    const auto* v = single(name);
    if (!v)
        return false;
    const auto b = parse_bool_text(*v);
    if (!b)
        refuse(name, *v, "true or false");
    return *b;
}

long long OptionValues::integer(OptionName name) const {
    const auto& e = entry(name);
    const auto& spec = spec_of(e);
    const std::string t = text(name);
    const auto v = util::parse_int(util::trim(t));
    if (!v || *v < spec.min || *v > INT_MAX)
        refuse(name, t,
               "a whole number" + (spec.min == 0   ? std::string(" >= 0")
                                   : spec.min == 1 ? std::string(" >= 1")
                                                   : " >= " + std::to_string(spec.min)));
    return *v;
}

int OptionValues::integer_int(OptionName name) const {
    return static_cast<int>(integer(name));
}

double OptionValues::number(OptionName name) const {
    const std::string t = text(name);
    const auto v = util::parse_double(util::trim(t));
    if (!v || !std::isfinite(*v))
        refuse(name, t, "a number");
    return *v;
}

double OptionValues::fraction(OptionName name) const {
    const std::string t = text(name);
    const auto v = parse_fraction_text(t);
    if (!v)
        refuse(name, t, "a relative change such as 0.02 or 2% (at least 0, below 1)");
    return *v;
}

Threshold OptionValues::threshold(OptionName name) const {
    const std::string t = text(name);
    const auto v = parse_threshold_text(t);
    if (!v)
        refuse(name, t, std::string(k_threshold_forms));
    return *v;
}

double OptionValues::threshold(OptionName name, core::Direction direction) const {
    return relative_threshold(threshold(name), direction);
}

core::Direction OptionValues::direction(OptionName name) const {
    const std::string t = text(name);
    const auto d = core::parse_direction(t);
    if (!d)
        refuse(name, t, "higher or lower");
    return *d;
}

std::optional<std::int64_t> OptionValues::seconds(OptionName name) const {
    const std::string t = text(name);
    if (t.empty() && !given(name))
        return std::nullopt;
    const auto v = parse_duration_text(t);
    if (!v || *v < 1)
        refuse(name, t,
               "a duration such as 90s, 30m, 2h or 1h30m (a bare number is seconds; more than 0)");
    return *v;
}

void OptionValues::check() const {
    for (const auto& [given_name, g] : m_given) {
        const auto name = OptionName::checked(given_name);
        const auto& e = entry(name);
        const auto& spec = spec_of(e);
        const bool many = spec.type == OptionType::list || e.repeatable;
        if (!many && g.values.size() > 1)
            throw_usage(describe_view(name) + " is given " + std::to_string(g.values.size()) +
                        " times; give it once");
        if (g.values.empty())
            throw_usage(describe_view(name) + ": expected a value");
        switch (spec.type) {
        case OptionType::text:
            for (const auto& value : g.values)
                if (spec.nonempty && util::trim(value).empty())
                    refuse(name, value, "a non-empty " + std::string(spec.value_name));
            break;
        case OptionType::list:
            break;
        case OptionType::flag:
            flag(name);
            break;
        case OptionType::integer:
            integer(name);
            break;
        case OptionType::number:
            number(name);
            break;
        case OptionType::fraction:
            fraction(name);
            break;
        case OptionType::threshold:
            threshold(name);
            break;
        case OptionType::duration:
            seconds(name);
            break;
        case OptionType::date:
            if (!util::parse_date(g.values.front()))
                refuse(name, g.values.front(), "a calendar date YYYY-MM-DD");
            break;
        }
    }
    for (const auto& o : m_command->options)
        if (o.required && m_given.find(o.name) == m_given.end()) {
            const auto& spec = spec_of(o);
            throw_usage(std::string(m_command->name) + ": " +
                        (o.positional == Positional::only
                             ? std::string(spec.value_name)
                             : "--" + std::string(o.name) + " " + std::string(spec.value_name)) +
                        " is required (see 'perfsweep help " + std::string(m_command->name) + "')");
        }
}

} // namespace perfsweep::app

namespace perfsweep::app {

std::vector<std::string> accepted_names(const CommandSpec& command) {
    std::vector<std::string> out;
    for (const auto& o : command.options) {
        if (o.positional != Positional::only)
            out.emplace_back(o.name);
        for (const auto& n : o.old_names)
            out.emplace_back(n.name);
    }
    return out;
}

std::string unknown_option_message(const CommandSpec& command, std::string_view name) {
    std::vector<std::string> current;
    for (const auto& o : command.options)
        if (!o.hidden && o.positional != Positional::only)
            current.emplace_back(o.name);
    std::string msg =
        "unknown option --" + std::string(name) + " for '" + std::string(command.name) + "'";
    if (const auto s = closest_name(name, current))
        return msg + "; did you mean --" + *s + "?";
    std::vector<std::string> others;
    for (const auto& c : command_specs())
        if (!c.hidden && find_command_option(c, name) && others.size() < 4)
            others.push_back("'" + std::string(c.name) + "'");
    if (!others.empty())
        msg += " (--" + std::string(name) + " is an option of " + util::join(others, ", ") + ")";
    return msg + "; see 'perfsweep help " + std::string(command.name) + "'";
}

void assign_options(OptionValues& values, const std::vector<RawOption>& raw,
                    std::vector<std::string>& warnings) {
    const auto& command = values.command();
    const std::string cmd(command.name);
    auto where = [&](const std::string& name, ValueSource source) {
        return source == ValueSource::config_file
                   ? "key '" + name + "' in [" + cmd + "] of config file " + values.config_file()
                   : "--" + name;
    };
    struct Item {
        std::string name; // current name
        std::vector<std::string> values;
        ValueSource source;
        std::string spelled;
    };
    std::vector<Item> items;
    for (const auto& r : raw) {
        if (find_command_option(command, r.name)) {
            items.push_back({r.name, r.values, r.source, r.name});
            continue;
        }
        const CommandOption* current = nullptr;
        const OldName* old = nullptr;
        for (const auto& o : command.options)
            for (const auto& n : o.old_names)
                if (n.name == r.name) {
                    current = &o;
                    old = &n;
                }
        if (!current) {
            if (r.source == ValueSource::config_file) {
                const auto s = closest_name(r.name, accepted_names(command));
                throw_usage("config file " + values.config_file() + ": [" + cmd + "] has no key '" +
                            r.name + "'" + (s ? "; did you mean '" + *s + "'?" : ""));
            }
            throw_usage(unknown_option_message(command, r.name));
        }
        const std::string now(current->name);
        std::vector<std::string> vals = r.values;
        if (!old->on_value.empty()) // a flag that used to take a value: --format json → --json
            for (auto& v : vals) {
                if (v == old->on_value)
                    v = "true";
                else if (v == old->off_value)
                    v = "false";
                else
                    throw_usage(where(r.name, r.source) + " '" + v + "': expected " +
                                std::string(old->on_value) + " or " + std::string(old->off_value) +
                                " (an old name: use --" + now + ")");
            }
        const std::string use = r.source == ValueSource::config_file ? "'" + now + "'" : "--" + now;
        warnings.push_back(where(r.name, r.source) + " is an old name; use " + use +
                           (old->on_value.empty()
                                ? ""
                                : " for " + std::string(old->on_value) + " and leave it out for " +
                                      std::string(old->off_value)) +
                           " (the old name will be removed)");
        items.push_back({now, std::move(vals), r.source, r.name});
    }
    // Group per current name; the command line wins over the config file.
    std::map<std::string, std::vector<const Item*>> by_name;
    for (const auto& it : items)
        by_name[it.name].push_back(&it);
    for (const auto& [name, list] : by_name) {
        const bool cli = std::any_of(list.begin(), list.end(), [](const Item* i) {
            return i->source == ValueSource::command_line;
        });
        const ValueSource source = cli ? ValueSource::command_line : list.front()->source;
        std::vector<std::string> vals;
        std::string spelled;
        for (const auto* i : list) {
            if (i->source != source)
                continue;
            if (!spelled.empty() && spelled != i->spelled)
                throw_usage(where(spelled, source) + " and " + where(i->spelled, source) +
                            " name the same option (" + (spelled == name ? i->spelled : spelled) +
                            " is its old name); give --" + name + " once");
            spelled = i->spelled;
            vals.insert(vals.end(), i->values.begin(), i->values.end());
        }
        const auto* entry = find_command_option(command, name);
        if (spec_of(*entry).type == OptionType::flag && vals.size() > 1)
            vals.erase(vals.begin(), vals.end() - 1); // --json --json is --json
        values.set(OptionName::checked(name), std::move(vals), source, spelled);
    }
}

} // namespace perfsweep::app
