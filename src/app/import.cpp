#include "app/import.hpp"

#include "util/error.hpp"

namespace perfsweep::app {

std::vector<core::Measurement> read_measurements(const std::string& file,
                                                 std::optional<core::ImportFormat> format,
                                                 const core::ImportDefaults& defaults,
                                                 ports::Adapters& adapters) {
    const std::string text = adapters.files->read_text(file);
    const std::string name = file == "-" ? std::string("<stdin>") : file;
    const core::ImportFormat f = format ? *format : core::detect_import_format(text, name);
    std::vector<core::Measurement> out;
    switch (f) {
    case core::ImportFormat::csv:
        if (defaults.metric.empty())
            throw_usage(name +
                        ": CSV has no metric name; pass --metric NAME (e.g. --metric MLUPS)");
        out = core::parse_csv(text, name, defaults);
        break;
    case core::ImportFormat::grep:
        out = core::parse_grep(text, name, defaults);
        break;
    case core::ImportFormat::benchmark_action:
    case core::ImportFormat::jsonl:
        out = adapters.parse_json_import(text, name, f, defaults);
        break;
    }
    if (out.empty())
        throw_usage(name + ": no measurements found (format " + std::string(core::to_string(f)) +
                    ")");
    return out;
}

std::size_t run_import(const ImportRequest& request, ports::Adapters& adapters) {
    if (request.inputs.empty())
        throw_usage("import: name at least one input file");
    if (request.history.empty())
        throw_usage("import: --history is required (the JSON Lines file to append to)");
    std::vector<core::Measurement> all;
    for (const auto& in : request.inputs) {
        auto ms = read_measurements(in, request.format, request.defaults, adapters);
        all.insert(all.end(), ms.begin(), ms.end());
    }
    auto store = adapters.open_history(request.history);
    store->append(all);
    return all.size();
}

} // namespace perfsweep::app
