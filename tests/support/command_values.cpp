#include "support/command_values.hpp"

#include "app/option_table.hpp"

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

} // namespace perfsweep::test
