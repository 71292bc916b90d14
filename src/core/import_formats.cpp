#include "core/import_formats.hpp"

#include "util/error.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <cstdio>
#include <initializer_list>
#include <map>

namespace perfsweep::core {

namespace {

/// Lines of `text` without their terminators (a final empty line is not returned).
std::vector<std::string> lines_of(std::string_view text) {
    auto out = util::split(text, '\n'); // never empty: "" is one empty piece
    if (out.back().empty())
        out.pop_back();
    for (auto& line : out)
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
    return out;
}

Measurement base(const ImportDefaults& d) {
    Measurement m;
    m.benchmark = d.benchmark;
    m.metric = d.metric;
    m.unit = d.unit;
    m.direction = d.direction ? *d.direction
                              : direction_for_unit(d.unit).value_or(Direction::higher_is_better);
    return m;
}

std::string where(const std::string& file, std::size_t line) {
    return file + ":" + std::to_string(line);
}

/// One CSV record (RFC 4180): its cells without quotes, and the line it starts on.
struct CsvRecord {
    std::size_t line = 0;
    std::vector<std::string> cells;
};

/// Split `text` into RFC 4180 records: fields separated by ',', a field in double quotes may hold
/// ',', line breaks and '""' (one quote). Unquoted fields are trimmed; a blank line is no record.
/// Throws perfsweep::Error (usage) naming `file:line` for a quote inside an unquoted field, text
/// after a closing quote, or a quote that never closes.
std::vector<CsvRecord> csv_records(std::string_view text, const std::string& file) {
    std::vector<CsvRecord> out;
    std::size_t i = 0, line = 1;
    const std::size_t n = text.size();
    while (i < n) {
        CsvRecord rec;
        rec.line = line;
        bool blank = true;
        for (;;) { // one field per iteration
            std::string cell;
            std::size_t j = i;
            while (j < n && (text[j] == ' ' || text[j] == '\t'))
                ++j;
            if (j < n && text[j] == '"') {
                const std::size_t opened = line;
                blank = false;
                i = j + 1;
                for (;;) {
                    if (i >= n)
                        throw_usage(where(file, opened) +
                                    ": a quoted field never closes; expected a closing '\"'");
                    const char c = text[i];
                    if (c == '"') {
                        if (i + 1 < n && text[i + 1] == '"') {
                            cell += '"';
                            i += 2;
                            continue;
                        }
                        ++i;
                        break;
                    }
                    if (c == '\n')
                        ++line;
                    cell += c;
                    ++i;
                }
                while (i < n && (text[i] == ' ' || text[i] == '\t'))
                    ++i;
                if (i < n && text[i] == '\r' && (i + 1 == n || text[i + 1] == '\n'))
                    ++i;
                if (i < n && text[i] != ',' && text[i] != '\n')
                    throw_usage(where(file, line) + ": text after the closing quote of field " +
                                std::to_string(rec.cells.size() + 1) +
                                "; a quoted field ends at its closing '\"'");
            } else {
                std::size_t e = i;
                while (e < n && text[e] != ',' && text[e] != '\n')
                    ++e;
                std::string_view raw = text.substr(i, e - i);
                if (!raw.empty() && raw.back() == '\r')
                    raw.remove_suffix(1);
                if (raw.find('"') != std::string_view::npos)
                    throw_usage(
                        where(file, line) + ": a '\"' inside the unquoted field " +
                        std::to_string(rec.cells.size() + 1) +
                        "; quote the whole field and double the quote, e.g. \"a \"\"b\"\"\"");
                if (!util::trim(raw).empty())
                    blank = false;
                cell = std::string(util::trim(raw));
                i = e;
            }
            rec.cells.push_back(std::move(cell));
            if (i < n && text[i] == ',') {
                blank = false;
                ++i;
                continue;
            }
            if (i < n && text[i] == '\n') {
                ++i;
                ++line;
            }
            break;
        }
        if (!blank)
            out.push_back(std::move(rec));
    }
    return out;
}

/// `s` for an error message: at most `max` characters, control characters (NUL, escapes, line
/// breaks) shown as \xNN, so the message is whole and one line.
std::string excerpt(std::string_view s, std::size_t max = 60) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (out.size() >= max) {
            out += "...";
            break;
        }
        const auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x20 || c == 0x7f) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02X", c);
            out += buf;
        } else {
            out += static_cast<char>(c);
        }
    }
    return out;
}

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

} // namespace

std::string label_problem(std::string_view label) {
    if (label.empty())
        return "is empty";
    for (char c : label)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            return "'" + excerpt(label) + "' contains a control character";
    if (util::trim(label).size() != label.size())
        return "'" + excerpt(label) + "' has white space at its start or end";
    // Looks like a date: YYYY-M[M]-D[D], alone or followed by a time.
    std::size_t i = 0;
    while (i < label.size() && is_digit(label[i]))
        ++i;
    if (i != 4 || i >= label.size() || label[i] != '-')
        return {};
    std::size_t j = i + 1, k = j;
    while (k < label.size() && is_digit(label[k]))
        ++k;
    if (k == j || k - j > 2 || k >= label.size() || label[k] != '-')
        return {};
    std::size_t m = k + 1, e = m;
    while (e < label.size() && is_digit(label[e]))
        ++e;
    if (e == m || e - m > 2)
        return {};
    const bool date_only = e == label.size();
    const bool with_time = !date_only && (label[e] == 'T' || label[e] == ' ') &&
                           e + 1 < label.size() && is_digit(label[e + 1]);
    if (!date_only && !with_time)
        return {};
    if (k - j != 2 || e - m != 2)
        return "'" + excerpt(label) +
               "' looks like a date but is not written YYYY-MM-DD (two-digit month and day, "
               "e.g. 2023-08-05)";
    if (!util::parse_date(label.substr(0, 10)))
        return "'" + excerpt(label) + "' looks like a date but " +
               std::string(label.substr(0, 10)) + " is not a calendar date";
    if (with_time) {
        std::string why;
        if (!util::parse_iso8601(label, &why))
            return "'" + excerpt(label) + "' looks like a time but " + why;
    }
    return {};
}

std::optional<Direction> direction_for_tool(std::string_view tool) {
    for (const char* t : {"cargo", "go", "googlecpp", "catch2", "benchmarkdotnet", "julia", "jmh",
                          "benchmarkluau", "customSmallerIsBetter"})
        if (tool == t)
            return Direction::lower_is_better;
    for (const char* t : {"benchmarkjs", "pytest", "customBiggerIsBetter"})
        if (tool == t)
            return Direction::higher_is_better;
    return std::nullopt;
}

std::optional<Direction> direction_for_unit(std::string_view unit_text) {
    std::string u = util::to_lower(util::trim(unit_text));
    // Go's unit column carries extra metrics ("ns/op\t 0 B/op\t 0 allocs/op"): the first decides.
    if (auto cut = u.find_first_of(" \t"); cut != std::string::npos)
        u.resize(cut);
    if (u.empty())
        return std::nullopt;
    const std::string_view s = u;
    const auto per = s.find('/');
    const std::string_view num = s.substr(0, per), den = per == s.npos ? "" : s.substr(per + 1);
    auto one_of = [](std::string_view x, std::initializer_list<const char*> names) {
        for (const char* n : names)
            if (x == n)
                return true;
        return false;
    };
    const auto times = {"ps",   "ns",      "us",   "\xC2\xB5s", "\xCE\xBCs", "ms",
                        "s",    "sec",     "secs", "second",    "seconds",   "min",
                        "mins", "minutes", "h",    "hours",     "cycles",    "cycle"};
    const auto sizes = {"b",   "byte", "bytes", "kb",  "mb",     "gb",    "tb",
                        "kib", "mib",  "gib",   "tib", "allocs", "alloc", "allocations"};
    const auto per_time = {"s", "sec", "second", "ms", "us", "ns", "min", "h"};
    if (!den.empty() && one_of(den, per_time))
        return Direction::higher_is_better; // a rate: ops/sec, MB/s, it/s, req/s, points/s
    if (one_of(num, times) || one_of(num, sizes))
        return Direction::lower_is_better; // ns, ns/iter, ms/iter, ns/op, MB, B/op, allocs/op
    if (s.starts_with("mlups") || s.starts_with("glups") || s.ends_with("flops") ||
        s.ends_with("flop/s") || s.ends_with("ops") || s == "hz" || s.ends_with("/sec"))
        return Direction::higher_is_better;
    return std::nullopt;
}

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
    bool label = false, value = false;
    try {
        const auto header = csv_records(first, file);
        for (const auto& c : header.empty() ? std::vector<std::string>{} : header.front().cells) {
            label |= util::to_lower(util::trim(c)) == "label";
            value |= util::to_lower(util::trim(c)) == "value";
        }
    } catch (const Error&) {
        // not a CSV header
    }
    if (label && value)
        return ImportFormat::csv;
    const auto colon = first.find(':');
    if (colon != std::string::npos && colon > 0 && first.find(':', colon + 1) != std::string::npos)
        return ImportFormat::grep;
    throw_usage(file + ":1: cannot tell the format from '" + excerpt(first) +
                "'; expected a CSV header 'label,value[,status]', 'LABEL:METRIC: NUMBER' lines, "
                "github-action-benchmark data or JSON Lines; use --format");
}

std::vector<Measurement> parse_csv(std::string_view text, const std::string& file,
                                   const ImportDefaults& defaults) {
    const auto records = csv_records(text, file);
    if (records.empty())
        throw_usage(file + ": empty CSV; expected a header 'label,value[,status]'");
    std::map<std::string, std::size_t> col;
    const auto& header = records.front().cells;
    const std::string at1 = where(file, records.front().line);
    for (std::size_t i = 0; i < header.size(); ++i) {
        const std::string name = util::to_lower(util::trim(header[i]));
        if (name != "label" && name != "value" && name != "status" && name != "reason" &&
            name != "timestamp")
            throw_usage(at1 + ": unknown CSV column '" + excerpt(name) +
                        "'; expected label,value[,status][,reason][,timestamp]");
        if (!col.emplace(name, i).second)
            throw_usage(at1 + ": column '" + name + "' appears twice");
    }
    if (!col.count("label") || !col.count("value"))
        throw_usage(at1 + ": the CSV header must name the columns 'label' and 'value' (got '" +
                    excerpt(util::join(header, ","), 120) + "')");
    std::vector<Measurement> out;
    for (std::size_t r = 1; r < records.size(); ++r) {
        const auto& cells = records[r].cells;
        const std::string at = where(file, records[r].line);
        if (cells.size() != header.size())
            throw_usage(at + ": " + std::to_string(cells.size()) + " fields, the header has " +
                        std::to_string(header.size()) +
                        " (a field holding ',' must be in double quotes)");
        auto cell = [&](const char* name) -> std::string {
            auto it = col.find(name);
            return it == col.end() ? std::string() : cells[it->second];
        };
        Measurement m = base(defaults);
        m.label = cell("label");
        if (m.label.empty())
            throw_usage(at + ": empty label");
        if (auto why = label_problem(m.label); !why.empty())
            throw_usage(at + ": label " + why);
        m.timestamp = std::string(util::trim(cell("timestamp")));
        if (!m.timestamp.empty()) {
            std::string why;
            auto t = util::parse_iso8601(m.timestamp, &why);
            if (!t)
                throw_usage(at + ": timestamp '" + excerpt(m.timestamp) + "': " + why +
                            "; expected ISO 8601 with a zone, e.g. 2023-08-24T03:00:00Z");
            m.timestamp = util::format_iso8601(*t);
        }
        m.reason = cell("reason");
        const std::string status(util::trim(cell("status")));
        if (!status.empty()) {
            auto s = parse_status(util::to_lower(status));
            if (!s)
                throw_usage(at + ": status '" + excerpt(status) +
                            "' is not one of ok, failed, timeout, missing");
            m.status = *s;
        }
        const std::string value(util::trim(cell("value")));
        if (m.status == Status::ok) {
            if (value.empty()) {
                m.status = Status::failed;
                if (m.reason.empty())
                    m.reason = "no value";
            }
            for (const auto& part : util::split(value, ';')) {
                if (value.empty())
                    break;
                const std::string_view token = util::trim(part);
                auto v = util::parse_double(token);
                if (!v || !metric_value_problem(*v).empty())
                    throw_usage(at + ": value '" + excerpt(token) + "' is " +
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
                        ": NUMBER' (grep output), got '" + excerpt(line) + "'");
        const std::string label(util::trim(line.substr(0, colon)));
        if (label.empty())
            throw_usage(at +
                        ": the text before the first ':' (the file name, used as the label) is "
                        "blank; expected 'LABEL:" +
                        (metric.empty() ? std::string("METRIC") : metric) + ": NUMBER'");
        if (auto why = label_problem(label); !why.empty())
            throw_usage(at + ": label " + why);
        const std::string rest = line.substr(colon + 1);
        if (metric.empty()) {
            const auto c2 = rest.find(':');
            if (c2 == std::string::npos || util::trim(rest.substr(0, c2)).empty())
                throw_usage(at + ": cannot find the metric name in '" + excerpt(line) +
                            "'; pass --metric");
            metric = std::string(util::trim(rest.substr(0, c2)));
        }
        Measurement m = base(defaults);
        m.metric = metric;
        m.label = label;
        const auto pos = rest.find(metric);
        if (pos == std::string::npos)
            throw_usage(at + ": the line does not mention the metric '" + excerpt(metric) + "'");
        std::string after(util::trim(rest.substr(pos + metric.size())));
        if (!after.empty() && (after.front() == ':' || after.front() == '='))
            after = std::string(util::trim(std::string_view(after).substr(1)));
        const auto token = after.substr(0, after.find_first_of(" \t"));
        auto v = util::parse_double(token);
        if (v && !metric_value_problem(*v).empty()) {
            m.status = Status::failed;
            m.reason =
                metric + " value '" + excerpt(token, 40) + "' is " + metric_value_problem(*v);
        } else if (v) {
            m.values.push_back(*v);
        } else {
            m.status = Status::failed;
            m.reason = after.empty()
                           ? "no number after " + metric
                           : "no number after " + metric + ": '" + excerpt(after, 80) + "'";
        }
        out.push_back(std::move(m));
    }
    if (out.empty())
        throw_usage(file + ": no 'LABEL:METRIC: NUMBER' lines");
    return out;
}

} // namespace perfsweep::core
