#include "cli/flag_values.hpp"

#include "util/error.hpp"

namespace perfsweep::cli {

core::Direction direction_flag(const std::string& text) {
    const auto d = core::parse_direction(text);
    if (!d)
        throw_usage("--direction '" + text + "': expected higher or lower");
    return *d;
}

core::ImportFormat import_format_flag(const std::string& text) {
    const auto f = core::parse_import_format(text);
    if (!f)
        throw_usage("--format '" + text + "': expected csv, grep, benchmark-action or jsonl");
    return *f;
}

core::SweepStrategy strategy_flag(const std::string& text) {
    const auto s = core::parse_strategy(text);
    if (!s)
        throw_usage("--strategy '" + text + "': expected exhaustive, adaptive or bisect");
    return *s;
}

} // namespace perfsweep::cli
