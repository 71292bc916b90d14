#include "app/record.hpp"

#include "core/import_formats.hpp"
#include "core/metric_extract.hpp"
#include "core/metric_set.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <cmath>

namespace perfsweep::app {

std::map<std::string, std::string> parse_key_values(const std::vector<std::string>& items,
                                                    const std::string& flag) {
    std::map<std::string, std::string> out;
    for (const auto& item : items) {
        const auto eq = item.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
            throw_usage(flag + " '" + item + "': expected KEY=VALUE with both parts non-empty");
        const std::string key = item.substr(0, eq);
        if (!out.emplace(key, item.substr(eq + 1)).second)
            throw_usage(flag + " '" + item + "': '" + key + "' is given twice");
    }
    return out;
}

namespace {

// One measurement per metric found in the benchmark output.
std::vector<core::Measurement> from_output(const RecordRequest& request, ports::Adapters& adapters,
                                           const core::Measurement& m) {
    std::vector<std::string> metrics = request.metrics;
    if (metrics.empty())
        metrics = {m.metric};
    const bool by_name = core::has_name_group(request.metric_regex);
    // Checks the combination (and the regex) before the file is read.
    core::MetricSetStream check(metrics, request.metric_regex);
    const std::string output = adapters.files.read_text(request.output_file);
    const std::string where =
        request.output_file == "-" ? std::string("stdin") : request.output_file;
    std::vector<core::Measurement> out;
    for (auto& [metric, ex] : core::extract_metric_set(output, metrics, request.metric_regex)) {
        core::Measurement one = m;
        one.metric = by_name && metric.empty() ? m.metric : metric;
        if (metrics.size() > 1 || by_name) // one unit would not fit them all unless given
            one.unit = request.base.unit.empty() ? one.metric : request.base.unit;
        if (ex.values.empty()) {
            one.status = core::Status::failed;
            one.reason = where + ": " + ex.reason;
        } else if (request.match == MatchPolicy::first) {
            one.values = {ex.values.front()};
        } else if (request.match == MatchPolicy::last) {
            one.values = {ex.values.back()};
        } else {
            one.values = ex.values;
        }
        if (one.log.empty() && request.output_file != "-")
            one.log = request.output_file;
        out.push_back(std::move(one));
    }
    return out;
}

std::vector<core::Measurement> append_records(const RecordRequest& request,
                                              ports::Adapters& adapters,
                                              std::vector<core::Measurement> ms) {
    auto store = adapters.histories.open(request.history);
    store->append(ms);
    return ms;
}

} // namespace

std::vector<core::Measurement> run_record(const RecordRequest& request, ports::Adapters& adapters) {
    if (request.history.empty())
        throw_usage("record: --history is required (the JSON Lines file to append to)");
    core::Measurement m = request.base;
    if (util::trim(m.metric).empty())
        throw_usage("record: --metric is required (e.g. --metric MLUPS)");
    for (const auto& [flag, text] :
         {std::pair<const char*, const std::string*>{"--label", &m.label},
          {"--benchmark", &m.benchmark},
          {"--metric", &m.metric},
          {"--unit", &m.unit},
          {"--reason", &m.reason},
          {"--image", &m.image}})
        if (auto bad = util::first_invalid_utf8(*text))
            throw_usage(std::string(flag) + ": invalid UTF-8 at byte " + std::to_string(*bad + 1) +
                        "; expected UTF-8 text");
    m.commits = parse_key_values(request.commits, "--commit");
    m.runner = parse_key_values(request.runner, "--runner");
    if (!request.testbed.empty()) {
        if (auto it = m.runner.find("testbed");
            it != m.runner.end() && it->second != request.testbed)
            throw_usage("--testbed '" + request.testbed + "' and --runner testbed=" + it->second +
                        " differ; give one");
        m.runner["testbed"] = request.testbed;
    }
    const double now = adapters.clock.now();
    m.timestamp = util::format_iso8601(static_cast<util::UnixSeconds>(std::floor(now)));
    if (m.label.empty())
        m.label = m.timestamp.substr(0, 10);
    else if (auto why = core::label_problem(m.label); !why.empty())
        throw_usage("--label " + why);
    if (request.status) {
        auto s = core::parse_status(*request.status);
        if (!s)
            throw_usage("--status '" + *request.status +
                        "': expected ok, failed, timeout or missing");
        m.status = *s;
    }
    const bool have_values = !request.values.empty();
    const bool have_output = !request.output_file.empty();
    if (have_values && have_output)
        throw_usage("record: give either --value or --benchmark-output, not both");
    if (m.status != core::Status::ok) {
        if (have_values)
            throw_usage("record: --status " + std::string(core::to_string(m.status)) +
                        " cannot have --value (a measurement that is not ok has no values)");
        if (m.reason.empty())
            throw_usage("record: --status " + std::string(core::to_string(m.status)) +
                        " needs --reason saying why");
    } else if (have_values) {
        for (const auto& text : request.values) {
            auto v = util::parse_double(util::trim(text));
            if (!v)
                throw_usage("--value '" + text + "': expected a finite number");
            if (auto problem = core::metric_value_problem(*v); !problem.empty())
                throw_usage("--value '" + text + "': " + problem + "; expected a measured value");
            m.values.push_back(*v);
        }
    } else if (have_output) {
        return append_records(request, adapters, from_output(request, adapters, m));
    } else {
        throw_usage("record: give the value(s) with --value, or the benchmark output with "
                    "--benchmark-output FILE (- for stdin)");
    }
    if (request.metrics.size() > 1 || core::has_name_group(request.metric_regex))
        throw_usage("record: several metrics (--metric given " +
                    std::to_string(request.metrics.size()) +
                    " times, or a (?<name>...) group) are read from --benchmark-output; --value "
                    "gives one metric's values");
    return append_records(request, adapters, {m});
}

} // namespace perfsweep::app
