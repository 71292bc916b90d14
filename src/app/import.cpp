#include "app/import.hpp"

#include "util/error.hpp"
#include "util/strings.hpp"

#include <algorithm>

namespace perfsweep::app {

std::vector<core::Measurement> read_measurements(const std::string& file,
                                                 std::optional<core::ImportFormat> format,
                                                 const core::ImportDefaults& defaults,
                                                 ports::Files& files, JsonImportReader read_json) {
    std::string text = files.read_text(file);
    const std::string name = file == "-" ? std::string("<stdin>") : file;
    if (text.starts_with("\xEF\xBB\xBF")) // a UTF-8 byte order mark (spreadsheet exports)
        text.erase(0, 3);
    if (auto bad = util::first_invalid_utf8(text)) {
        const auto line_start = text.rfind('\n', *bad == 0 ? 0 : *bad - 1);
        const std::size_t line =
            1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + *bad, '\n'));
        const std::size_t column =
            *bad - (line_start == std::string::npos || *bad == 0 ? 0 : line_start + 1) + 1;
        throw_usage(name + ":" + std::to_string(line) + ": invalid UTF-8 at column " +
                    std::to_string(column) + "; expected UTF-8 text");
    }
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
        if (!read_json)
            throw_infra(name + ": no reader of the JSON formats was handed in");
        out = read_json(text, name, f, defaults);
        break;
    }
    if (out.empty())
        throw_usage(name + ": no measurements found (format " + std::string(core::to_string(f)) +
                    ")");
    return out;
}

ImportOutcome run_import(const ImportRequest& request, ports::Adapters& adapters) {
    if (request.inputs.empty())
        throw_usage("import: name at least one input file");
    if (request.history.empty())
        throw_usage("import: --history is required (the JSON Lines file to append to)");
    std::vector<core::Measurement> all;
    for (const auto& in : request.inputs) {
        auto ms = read_measurements(in, request.format, request.defaults, adapters.files,
                                    request.read_json);
        if (!request.testbed.empty())
            for (auto& m : ms)
                m.runner["testbed"] = request.testbed;
        all.insert(all.end(), ms.begin(), ms.end());
    }
    auto store = adapters.histories.open(request.history);
    ImportOutcome out;
    out.read = all.size();
    out.appended = store->append_missing(all);
    out.already = out.read - out.appended;
    return out;
}

} // namespace perfsweep::app
