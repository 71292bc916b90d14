#include "core/import_formats.hpp"

#include "util/error.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <map>

namespace perfsweep::core {

namespace {

/// Lines of `text` without their terminators (a final empty line is not returned).
std::vector<std::string> lines_of(std::string_view text) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos)
            end = text.size();
        std::string line(text.substr(start, end - start));
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        out.push_back(std::move(line));
        start = end + 1;
    }
    return out;
}

Measurement base(const ImportDefaults& d) {
    Measurement m;
    m.benchmark = d.benchmark;
    m.metric = d.metric;
    m.unit = d.unit;
    m.direction = d.direction;
    return m;
}

std::string where(const std::string& file, std::size_t line) {
    return file + ":" + std::to_string(line);
}

} // namespace

std::string_view to_string(ImportFormat f) {
    switch (f) {
    case ImportFormat::csv:
        return "csv";
    case ImportFormat::grep:
        return "grep";
    case ImportFormat::benchmark_action:
        return "benchmark-action";
    case ImportFormat::jsonl:
        break;
    }
    return "jsonl";
}

std::optional<ImportFormat> parse_import_format(std::string_view s) {
    for (auto f : {ImportFormat::csv, ImportFormat::grep, ImportFormat::benchmark_action,
                   ImportFormat::jsonl})
        if (s == to_string(f))
            return f;
    return std::nullopt;
}

ImportFormat detect_import_format(std::string_view text, const std::string& file) {
    const std::string_view body = util::trim(text);
    if (body.empty())
        throw_usage(file + ": the file is empty; expected csv, grep, benchmark-action or jsonl "
                           "data");
    if (body.starts_with("window.BENCHMARK_DATA"))
        return ImportFormat::benchmark_action;
    const std::string first = util::strip_ansi(lines_of(body).front());
    if (body.front() == '{') {
        // One measurement object per line, or one (multi-line) benchmark-action document.
        const std::string_view f = util::trim(first);
        if (f.back() == '}' && f.find("\"values\"") != std::string_view::npos)
            return ImportFormat::jsonl;
        if (body.find("\"entries\"") != std::string_view::npos)
            return ImportFormat::benchmark_action;
        throw_usage(file + ":1: a JSON document that is neither perfsweep JSON Lines (a "
                           "\"values\" field per line) nor github-action-benchmark data "
                           "(\"entries\"); use --format");
    }
    const auto cols = util::split(util::to_lower(first), ',');
    bool label = false, value = false;
    for (const auto& c : cols) {
        label |= util::trim(c) == "label";
        value |= util::trim(c) == "value";
    }
    if (label && value)
        return ImportFormat::csv;
    const auto colon = first.find(':');
    if (colon != std::string::npos && colon > 0 && first.find(':', colon + 1) != std::string::npos)
        return ImportFormat::grep;
    throw_usage(file + ":1: cannot tell the format from '" + first.substr(0, 60) +
                "'; expected a CSV header 'label,value[,status]', 'LABEL:METRIC: NUMBER' lines, "
                "github-action-benchmark data or JSON Lines; use --format");
}

std::vector<Measurement> parse_csv(std::string_view text, const std::string& file,
                                   const ImportDefaults& defaults) {
    const auto lines = lines_of(text);
    if (lines.empty())
        throw_usage(file + ": empty CSV; expected a header 'label,value[,status]'");
    std::map<std::string, std::size_t> col;
    const auto header = util::split(lines.front(), ',');
    for (std::size_t i = 0; i < header.size(); ++i) {
        const std::string name = util::to_lower(util::trim(header[i]));
        if (name != "label" && name != "value" && name != "status" && name != "reason" &&
            name != "timestamp")
            throw_usage(where(file, 1) + ": unknown CSV column '" + name +
                        "'; expected label,value[,status][,reason][,timestamp]");
        if (!col.emplace(name, i).second)
            throw_usage(where(file, 1) + ": column '" + name + "' appears twice");
    }
    if (!col.count("label") || !col.count("value"))
        throw_usage(where(file, 1) +
                    ": the CSV header must name the columns 'label' and "
                    "'value' (got '" +
                    lines.front() + "')");
    std::vector<Measurement> out;
    for (std::size_t ln = 1; ln < lines.size(); ++ln) {
        const std::string at = where(file, ln + 1);
        if (util::trim(lines[ln]).empty())
            continue;
        const auto cells = util::split(lines[ln], ',');
        if (cells.size() != header.size())
            throw_usage(at + ": " + std::to_string(cells.size()) + " fields, the header has " +
                        std::to_string(header.size()));
        auto cell = [&](const char* name) -> std::string {
            auto it = col.find(name);
            return it == col.end() ? std::string() : std::string(util::trim(cells[it->second]));
        };
        Measurement m = base(defaults);
        m.label = cell("label");
        if (m.label.empty())
            throw_usage(at + ": empty label");
        m.timestamp = cell("timestamp");
        if (!m.timestamp.empty()) {
            std::string why;
            auto t = util::parse_iso8601(m.timestamp, &why);
            if (!t)
                throw_usage(at + ": timestamp '" + m.timestamp.substr(0, 60) + "': " + why +
                            "; expected ISO 8601 with a zone, e.g. 2023-08-24T03:00:00Z");
            m.timestamp = util::format_iso8601(*t);
        }
        m.reason = cell("reason");
        const std::string status = cell("status");
        if (!status.empty()) {
            auto s = parse_status(util::to_lower(status));
            if (!s)
                throw_usage(at + ": status '" + status +
                            "' is not one of ok, failed, timeout, missing");
            m.status = *s;
        }
        const std::string value = cell("value");
        if (m.status == Status::ok) {
            if (value.empty()) {
                m.status = Status::failed;
                if (m.reason.empty())
                    m.reason = "no value";
            }
            for (const auto& part : util::split(value, ';')) {
                if (value.empty())
                    break;
                auto v = util::parse_double(util::trim(part));
                if (!v || !metric_value_problem(*v).empty())
                    throw_usage(at + ": value '" + std::string(util::trim(part)) + "' is " +
                                (v ? metric_value_problem(*v) : "not a finite number") +
                                "; expected a number such as 577.3");
                m.values.push_back(*v);
            }
        }
        out.push_back(std::move(m));
    }
    return out;
}

std::vector<Measurement> parse_grep(std::string_view text, const std::string& file,
                                    const ImportDefaults& defaults) {
    const auto lines = lines_of(text);
    std::string metric = defaults.metric;
    std::vector<Measurement> out;
    for (std::size_t ln = 0; ln < lines.size(); ++ln) {
        const std::string at = where(file, ln + 1);
        const std::string line = util::strip_ansi(lines[ln]);
        if (util::trim(line).empty())
            continue;
        const auto colon = line.find(':');
        if (colon == std::string::npos || colon == 0)
            throw_usage(at + ": expected 'LABEL:" + (metric.empty() ? "METRIC" : metric) +
                        ": NUMBER' (grep output), got '" + line.substr(0, 60) + "'");
        const std::string label(util::trim(line.substr(0, colon)));
        if (label.empty())
            throw_usage(at +
                        ": the text before the first ':' (the file name, used as the label) is "
                        "blank; expected 'LABEL:" +
                        (metric.empty() ? std::string("METRIC") : metric) + ": NUMBER'");
        const std::string rest = line.substr(colon + 1);
        if (metric.empty()) {
            const auto c2 = rest.find(':');
            if (c2 == std::string::npos || util::trim(rest.substr(0, c2)).empty())
                throw_usage(at + ": cannot find the metric name in '" + line.substr(0, 60) +
                            "'; pass --metric");
            metric = std::string(util::trim(rest.substr(0, c2)));
        }
        Measurement m = base(defaults);
        m.metric = metric;
        m.label = label;
        const auto pos = rest.find(metric);
        if (pos == std::string::npos)
            throw_usage(at + ": the line does not mention the metric '" + metric + "'");
        std::string after(util::trim(rest.substr(pos + metric.size())));
        if (!after.empty() && (after.front() == ':' || after.front() == '='))
            after = std::string(util::trim(std::string_view(after).substr(1)));
        const auto token = after.substr(0, after.find_first_of(" \t"));
        auto v = util::parse_double(token);
        if (v && !metric_value_problem(*v).empty()) {
            m.status = Status::failed;
            m.reason =
                metric + " value '" + token.substr(0, 40) + "' is " + metric_value_problem(*v);
        } else if (v) {
            m.values.push_back(*v);
        } else {
            m.status = Status::failed;
            m.reason = after.empty()
                           ? "no number after " + metric
                           : "no number after " + metric + ": '" + after.substr(0, 80) + "'";
        }
        out.push_back(std::move(m));
    }
    if (out.empty())
        throw_usage(file + ": no 'LABEL:METRIC: NUMBER' lines");
    return out;
}

} // namespace perfsweep::core
