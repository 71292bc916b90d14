#include "adapters/json/benchmark_action_json.hpp"

#include "adapters/json/json_parse.hpp"
#include "util/error.hpp"
#include "util/time.hpp"

#include <rapidjson/document.h>

#include <algorithm>
#include <cmath>

namespace perfsweep::adapters {

namespace {

/// 1-based line of byte `offset` in `text`.
std::size_t line_of(const std::string& text, std::size_t offset) {
    return 1 +
           static_cast<std::size_t>(std::count(
               text.begin(),
               text.begin() + static_cast<std::ptrdiff_t>(std::min(offset, text.size())), '\n'));
}

std::string str(const rapidjson::Value& o, const char* key) {
    auto it = o.FindMember(key);
    if (it == o.MemberEnd() || !it->value.IsString())
        return {};
    return {it->value.GetString(), it->value.GetStringLength()};
}

} // namespace

std::vector<core::Measurement> parse_benchmark_action(const std::string& text,
                                                      const std::string& file,
                                                      const core::ImportDefaults& defaults) {
    std::size_t begin = text.find_first_not_of(" \t\r\n");
    if (begin == std::string::npos)
        throw_usage(file + ": empty file; expected github-action-benchmark data");
    const std::string prefix = "window.BENCHMARK_DATA";
    if (text.compare(begin, prefix.size(), prefix) == 0) {
        begin = text.find('=', begin);
        if (begin == std::string::npos)
            throw_usage(file + ":1: expected 'window.BENCHMARK_DATA = {...}'");
        ++begin;
    }
    std::size_t end = text.find_last_not_of(" \t\r\n;");
    if (end == std::string::npos || end < begin)
        throw_usage(file + ": no JSON after 'window.BENCHMARK_DATA ='");
    // The JSON with what precedes it blanked (line breaks kept): offsets, lines and columns in
    // errors are those of the file.
    std::string json = text.substr(0, end + 1);
    for (std::size_t i = 0; i < begin; ++i)
        if (json[i] != '\n')
            json[i] = ' ';
    rapidjson::Document d;
    if (const auto err = parse_json(d, json))
        throw_usage(file + ":" + std::to_string(line_of(text, err->offset)) + ": invalid JSON (" +
                    err->message + ")");
    if (!d.IsObject() || !d.HasMember("entries") || !d["entries"].IsObject())
        throw_usage(file + ": expected an object with 'entries': {suite: [...]}");
    struct Row {
        double date;
        std::size_t order;
        core::Measurement m;
    };
    std::vector<Row> rows;
    for (auto s = d["entries"].MemberBegin(); s != d["entries"].MemberEnd(); ++s) {
        const std::string suite = s->name.GetString();
        if (!s->value.IsArray())
            throw_usage(file + ": entries." + suite + " must be an array");
        std::size_t i = 0;
        for (const auto& e : s->value.GetArray()) {
            const std::string at = file + ": entries." + suite + "[" + std::to_string(i++) + "]";
            if (!e.IsObject() || !e.HasMember("benches") || !e["benches"].IsArray())
                throw_usage(at + ": expected an object with 'benches': [...]");
            std::string id, commit_time;
            if (auto c = e.FindMember("commit"); c != e.MemberEnd() && c->value.IsObject()) {
                id = str(c->value, "id");
                commit_time = str(c->value, "timestamp");
            }
            double date = 0;
            if (auto dt = e.FindMember("date"); dt != e.MemberEnd() && dt->value.IsNumber())
                date = dt->value.GetDouble();
            if (id.empty())
                throw_usage(at + ".commit.id: missing; every entry needs a commit id");
            // Points are ordered by the run date ("date", when the branch advanced and the job
            // measured it, as the dashboard draws them), not by the commit's own timestamp, which
            // is when it was written: a pull request merged late keeps an old timestamp.
            std::string ts;
            if (date > 0 && date / 1000 < 253402300800.0) // before year 10000
                ts = util::format_iso8601(static_cast<util::UnixSeconds>(date / 1000));
            else if (auto t = util::parse_iso8601(commit_time))
                ts = util::format_iso8601(*t);
            // The tool decides the direction (cargo, go, ... report times; benchmarkjs and pytest
            // rates), unless --direction says otherwise; an unknown tool falls back to the unit.
            const std::string tool = str(e, "tool");
            const auto tool_direction = core::direction_for_tool(tool);
            std::size_t j = 0;
            for (const auto& b : e["benches"].GetArray()) {
                const std::string bat = at + ".benches[" + std::to_string(j++) + "]";
                if (!b.IsObject() || str(b, "name").empty())
                    throw_usage(bat + ": expected {name, value, unit}");
                core::Measurement m;
                m.benchmark = defaults.benchmark.empty() ? suite : defaults.benchmark;
                m.metric = str(b, "name");
                m.unit = str(b, "unit");
                m.direction = defaults.direction ? *defaults.direction
                              : tool_direction   ? *tool_direction
                                                 : core::direction_for_unit(m.unit).value_or(
                                                       core::Direction::higher_is_better);
                m.label = id.substr(0, 12);
                m.timestamp = ts;
                m.commits["repo"] = id;
                if (auto t = util::parse_iso8601(commit_time))
                    m.commit_times["repo"] = util::format_iso8601(*t);
                auto v = b.FindMember("value");
                if (v == b.MemberEnd() || !v->value.IsNumber() ||
                    !core::metric_value_problem(v->value.GetDouble()).empty()) {
                    m.status = core::Status::failed;
                    m.reason = "no numeric value";
                } else {
                    m.values.push_back(v->value.GetDouble());
                }
                rows.push_back({date, rows.size(), std::move(m)});
            }
        }
    }
    std::stable_sort(rows.begin(), rows.end(),
                     [](const Row& a, const Row& b) { return a.date < b.date; });
    std::vector<core::Measurement> out;
    for (auto& r : rows)
        out.push_back(std::move(r.m));
    return out;
}

} // namespace perfsweep::adapters
