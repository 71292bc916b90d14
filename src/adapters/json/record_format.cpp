#include "adapters/json/record_format.hpp"

#include "adapters/history/jsonl_store.hpp"
#include "adapters/json/benchmark_action_json.hpp"
#include "adapters/json/measurement_json.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace perfsweep::adapters {

std::vector<core::Measurement> read_records(const std::string& text, const std::string& source) {
    const auto lines = util::split(text, '\n');
    std::size_t first = 0;
    while (first < lines.size() && util::trim(lines[first]).empty())
        ++first;
    if (first == lines.size())
        throw_usage(source + ": empty; expected a measurement JSON object (the output of "
                             "`perfsweep run --json`) or JSON Lines of them");
    std::vector<core::Measurement> out;
    if (util::trim(lines[first]) == "{") { // one pretty-printed object
        out.push_back(measurement_from_json(text, source));
        return out;
    }
    for (std::size_t i = first; i < lines.size(); ++i) {
        if (util::trim(lines[i]).empty())
            continue;
        out.push_back(measurement_from_json(lines[i], source + ":" + std::to_string(i + 1)));
    }
    return out;
}

std::vector<core::Measurement> read_json_import(const std::string& text, const std::string& file,
                                                core::ImportFormat format,
                                                const core::ImportDefaults& defaults) {
    if (format == core::ImportFormat::benchmark_action)
        return parse_benchmark_action(text, file, defaults);
    return parse_history_jsonl(text, file).records;
}

} // namespace perfsweep::adapters
