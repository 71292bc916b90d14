#include "core/journal.hpp"

#include "util/error.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <limits>
#include <map>
#include <set>

namespace perfsweep::core {

namespace {

constexpr long k_max_runs_per_record = 1000000;

std::string format_double(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

std::string line_of(const std::vector<std::string>& fields) {
    std::string s;
    for (std::size_t i = 0; i < fields.size(); ++i) {
        if (i)
            s += '\t';
        s += journal_escape(fields[i]);
    }
    return s + "\n";
}

void put(std::vector<std::string>& f, const char* name, const std::string& value) {
    if (value.empty())
        return;
    f.emplace_back(name);
    f.push_back(value);
}

void put_map(std::vector<std::string>& f, const std::string& prefix,
             const std::map<std::string, std::string>& m) {
    for (const auto& [k, v] : m) {
        f.push_back(prefix + k);
        f.push_back(v);
    }
}

} // namespace

bool journal_unescape(std::string_view raw, std::string& out, std::string& bad) {
    out.clear();
    out.reserve(raw.size());
    for (std::size_t i = 0; i < raw.size(); ++i) {
        const char c = raw[i];
        if (c != '\\') {
            out += c;
            continue;
        }
        if (i + 1 >= raw.size()) {
            bad = "a lone backslash at the end of a field";
            return false;
        }
        const char e = raw[++i];
        switch (e) {
        case '\\':
            out += '\\';
            break;
        case 't':
            out += '\t';
            break;
        case 'n':
            out += '\n';
            break;
        case 'r':
            out += '\r';
            break;
        default:
            bad = std::string("an unknown escape '\\") + (e >= 0x20 && e < 0x7f ? e : '?') +
                  "' (expected \\\\, \\t, \\n or \\r)";
            return false;
        }
    }
    return true;
}

namespace {

std::string shown(std::string_view s) {
    std::string t = util::sanitize_utf8(s.substr(0, 60));
    for (auto& c : t)
        if (static_cast<unsigned char>(c) < 0x20)
            c = '?';
    return t + (s.size() > 60 ? "..." : "");
}

class Parser {
public:
    Parser(const std::string& where, std::size_t line) : m_where(where), m_line(line) {}

    [[noreturn]] void fail(const std::string& what) const {
        throw_usage(m_where + ":" + std::to_string(m_line) + ": " + what);
    }

    long runs(const std::string& s) const {
        const auto v = util::parse_int(s);
        if (!v || s.empty() || s != util::trim(s) || *v < 0 || *v > k_max_runs_per_record)
            fail("field 3 (runs): expected a whole number of runs from 0 to " +
                 std::to_string(k_max_runs_per_record) + ", found '" + shown(s) + "'");
        return static_cast<long>(*v);
    }

    void field(Measurement& m, const std::string& name, const std::string& value) const {
        auto map_field = [&](const char* prefix, std::map<std::string, std::string>& target) {
            const std::string p = prefix;
            if (name.rfind(p, 0) != 0)
                return false;
            const auto key = name.substr(p.size());
            if (key.empty())
                fail("field '" + name + "': expected a name after '" + p + "'");
            target[key] = value;
            return true;
        };
        if (name == "benchmark")
            m.benchmark = value;
        else if (name == "metric")
            m.metric = value;
        else if (name == "unit")
            m.unit = value;
        else if (name == "label")
            m.label = value;
        else if (name == "timestamp")
            m.timestamp = value;
        else if (name == "image")
            m.image = value;
        else if (name == "digest")
            m.digest = value;
        else if (name == "reason")
            m.reason = value;
        else if (name == "log")
            m.log = value;
        else if (name == "failure_log")
            m.failure_log = value;
        else if (name == "direction") {
            const auto d = parse_direction(value);
            if (!d)
                fail("field 'direction': expected higher or lower, found '" + shown(value) + "'");
            m.direction = *d;
        } else if (name == "stage") {
            const auto s = parse_stage(value);
            if (!s)
                fail("field 'stage': expected record, daily, hourly or commit, found '" +
                     shown(value) + "'");
            m.stage = *s;
        } else if (name == "status") {
            const auto s = parse_status(value);
            if (!s)
                fail("field 'status': expected ok, failed, timeout or missing, found '" +
                     shown(value) + "'");
            m.status = *s;
        } else if (name == "values") {
            for (const auto& v : util::split(value, ',')) {
                const auto d = util::parse_double(v);
                if (!d || v != util::trim(v))
                    fail("field 'values': expected comma-separated numbers, found '" + shown(v) +
                         "'");
                const auto problem = metric_value_problem(*d);
                if (!problem.empty())
                    fail("field 'values': " + problem);
                m.values.push_back(*d);
            }
        } else if (name == "exit_codes") {
            for (const auto& v : util::split(value, ',')) {
                const auto c = util::parse_int(v);
                if (!c || v != util::trim(v) || *c < std::numeric_limits<int>::min() ||
                    *c > std::numeric_limits<int>::max())
                    fail("field 'exit_codes': expected comma-separated exit statuses, found '" +
                         shown(v) + "'");
                m.exit_codes.push_back(static_cast<int>(*c));
            }
        } else if (!map_field("commit.", m.commits) && !map_field("commit_time.", m.commit_times) &&
                   !map_field("runner.", m.runner) && !map_field("env.", m.environment)) {
            fail("unknown measurement field '" + shown(name) +
                 "' (expected benchmark, metric, unit, direction, label, timestamp, stage, image, "
                 "digest, status, reason, log, values, exit_codes, failure_log, commit.NAME, "
                 "commit_time.NAME, runner.NAME or env.NAME)");
        }
    }

private:
    const std::string& m_where;
    std::size_t m_line;
};

} // namespace

std::string journal_escape(std::string_view field) {
    std::string out;
    out.reserve(field.size());
    for (const char c : field) {
        switch (c) {
        case '\\':
            out += "\\\\";
            break;
        case '\t':
            out += "\\t";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        default:
            out += c;
        }
    }
    return out;
}

std::string journal_header(std::string_view stage, std::string_view settings) {
    return line_of(
        {"journal", std::to_string(k_journal_version), std::string(stage), std::string(settings)});
}

std::string journal_record(const JournalEvent& e) {
    switch (e.kind) {
    case JournalEvent::Kind::building:
        return line_of({"building", e.point});
    case JournalEvent::Kind::build:
        return line_of({"build", e.point, e.ok ? "ok" : "failed", e.reason});
    case JournalEvent::Kind::restored:
        return line_of({"restored", e.point, e.ok ? "ok" : "failed", e.reason});
    case JournalEvent::Kind::run:
        break;
    }
    const auto& m = e.measurement;
    std::vector<std::string> f = {"run", e.point, std::to_string(e.runs)};
    put(f, "benchmark", m.benchmark);
    put(f, "metric", m.metric);
    put(f, "unit", m.unit);
    put(f, "direction", std::string(to_string(m.direction)));
    put(f, "label", m.label);
    put(f, "timestamp", m.timestamp);
    put(f, "stage", std::string(to_string(m.stage)));
    put(f, "image", m.image);
    put(f, "digest", m.digest);
    put(f, "status", std::string(to_string(m.status)));
    put(f, "reason", m.reason);
    put(f, "log", m.log);
    std::string values;
    for (double v : m.values) {
        const auto problem = metric_value_problem(v);
        if (!problem.empty())
            throw_usage("journal: point '" + e.point + "': " + problem);
        values += (values.empty() ? "" : ",") + format_double(v);
    }
    put(f, "values", values);
    std::string codes;
    for (int c : m.exit_codes)
        codes += (codes.empty() ? "" : ",") + std::to_string(c);
    put(f, "exit_codes", codes);
    put(f, "failure_log", m.failure_log);
    put_map(f, "commit.", m.commits);
    put_map(f, "commit_time.", m.commit_times);
    put_map(f, "runner.", m.runner);
    put_map(f, "env.", m.environment);
    return line_of(f);
}

Journal parse_journal(std::string_view text, const std::string& where) {
    Journal j;
    if (text.empty())
        throw_usage(where + ": empty; expected a journal header 'journal<TAB>" +
                    std::to_string(k_journal_version) + "<TAB>STAGE<TAB>SETTINGS'");
    std::size_t line_no = 0;
    std::size_t pos = 0;
    std::vector<std::string> fields;
    std::string bad;
    while (pos < text.size()) {
        ++line_no;
        const Parser p(where, line_no);
        const auto nl = text.find('\n', pos);
        if (nl == std::string_view::npos)
            p.fail("the last line has no end of line (a torn write); expected complete records");
        const auto line = text.substr(pos, nl - pos);
        pos = nl + 1;
        if (line.empty())
            p.fail("an empty line; expected a record");
        fields.clear();
        std::size_t start = 0;
        for (;;) {
            const auto tab = line.find('\t', start);
            const auto raw = line.substr(start, tab == std::string_view::npos ? line.size() - start
                                                                              : tab - start);
            fields.emplace_back();
            if (!journal_unescape(raw, fields.back(), bad))
                p.fail("field " + std::to_string(fields.size()) + ": " + bad);
            if (tab == std::string_view::npos)
                break;
            start = tab + 1;
        }
        const auto& kind = fields[0];
        if (line_no == 1) {
            if (kind != "journal" || fields.size() != 4)
                p.fail("expected the journal header 'journal<TAB>" +
                       std::to_string(k_journal_version) + "<TAB>STAGE<TAB>SETTINGS', found '" +
                       shown(line) + "'");
            if (fields[1] != std::to_string(k_journal_version))
                p.fail("journal format version '" + shown(fields[1]) +
                       "'; this perfsweep reads version " + std::to_string(k_journal_version));
            if (fields[2].empty())
                p.fail("field 3 (stage): expected a stage name, found nothing");
            j.stage = fields[2];
            j.settings = fields[3];
            continue;
        }
        JournalEvent e;
        e.line = line_no;
        if (kind != "run" && kind != "building" && kind != "build" && kind != "restored" &&
            kind != "journal")
            p.fail("unknown record '" + shown(kind) +
                   "' (expected run, building, build or restored)");
        if (kind != "journal" && (fields.size() < 2 || fields[1].empty()))
            p.fail("field 2 (point): expected the point the record is about");
        e.point = fields[1];
        if (kind == "run") {
            e.kind = JournalEvent::Kind::run;
            if (fields.size() < 3)
                p.fail("a run record needs RUNS after the point");
            e.runs = p.runs(fields[2]);
            if ((fields.size() - 3) % 2 != 0)
                p.fail("a run record's measurement is NAME<TAB>VALUE pairs; field " +
                       std::to_string(fields.size()) + " has no value");
            std::set<std::string> seen;
            for (std::size_t k = 3; k + 1 < fields.size(); k += 2) {
                if (!seen.insert(fields[k]).second)
                    p.fail("measurement field '" + shown(fields[k]) + "' appears twice");
                p.field(e.measurement, fields[k], fields[k + 1]);
            }
        } else if (kind == "building") {
            e.kind = JournalEvent::Kind::building;
            if (fields.size() != 2)
                p.fail("a building record is 'building<TAB>POINT', found " +
                       std::to_string(fields.size()) + " fields");
        } else if (kind == "build" || kind == "restored") {
            e.kind = kind == "build" ? JournalEvent::Kind::build : JournalEvent::Kind::restored;
            if (fields.size() != 4)
                p.fail("a " + kind + " record is '" + kind +
                       "<TAB>POINT<TAB>ok|failed<TAB>REASON', found " +
                       std::to_string(fields.size()) + " fields");
            if (fields[2] != "ok" && fields[2] != "failed")
                p.fail("field 3 of a " + kind + " record: expected ok or failed, found '" +
                       shown(fields[2]) + "'");
            e.ok = fields[2] == "ok";
            e.reason = fields[3];
        } else if (kind == "journal") {
            p.fail("a second journal header; expected one per file");
        } else {
            p.fail("unknown record '" + shown(kind) +
                   "' (expected run, building, build or restored)");
        }
        j.events.push_back(std::move(e));
    }
    return j;
}

std::string describe_settings_difference(std::string_view here, std::string_view there,
                                         std::size_t context) {
    if (here == there)
        return "";
    std::size_t at = 0;
    while (at < here.size() && at < there.size() && here[at] == there[at])
        ++at;
    std::size_t tail = 0; // the common suffix after the difference
    while (tail < here.size() - at && tail < there.size() - at &&
           here[here.size() - 1 - tail] == there[there.size() - 1 - tail])
        ++tail;
    const std::size_t from = at > context ? at - context : 0;
    auto excerpt = [&](std::string_view text) {
        const std::size_t end = std::min(text.size(), text.size() - tail + context);
        std::string out = (from > 0 ? "…" : "") + journal_escape(text.substr(from, end - from));
        if (end - from > 3 * context) // a long inserted part: its start and its end
            out = (from > 0 ? "…" : "") + journal_escape(text.substr(from, 2 * context)) + "…" +
                  journal_escape(text.substr(end - context, context));
        return "'" + out + (end < text.size() ? "…" : "") + "'";
    };
    return "at character " + std::to_string(at + 1) + ": " + excerpt(here) + " here, " +
           excerpt(there) + " there";
}

} // namespace perfsweep::core
