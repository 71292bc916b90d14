#include "app/detect.hpp"

#include "app/import.hpp"
#include "core/series_collector.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <limits>

namespace perfsweep::app {

namespace {

// A history spec that names a file (not git:BRANCH or git+URL#BRANCH).
bool is_file_spec(const std::string& spec) {
    return !spec.starts_with("git:") && !spec.starts_with("git+");
}

/// The request's records, streamed into a collector (a history is never held whole: 10^6 points
/// would be about 1 GB as measurements, issue 29).
struct Loaded {
    core::SeriesCollector records;
    std::vector<std::string> warnings;
    std::string empty_reason; ///< set when the history holds nothing yet
    bool filtered = false;    ///< only the records of --metric were read
};

/// Read the history into `out`: the key of every record (for the folds of core::group_series)
/// and the points only of those that can be in a selected series (`keep_points` false: none).
void load_history(const DetectRequest& request, ports::Adapters& adapters, Loaded& out,
                  bool keep_points) {
    auto store = adapters.histories.open(request.history);
    const core::SeriesSelector select{request.benchmark, request.metric, request.testbed};
    auto scan = [&](const std::string& metric) {
        out.records = {};
        if (keep_points && select.all())
            return store->scan_series(metric, {},
                                      [&](core::Measurement&& m) { out.records.add(m); });
        return store->scan_series(
            metric,
            [&](const core::SeriesKey& key, core::Stage stage) {
                return out.records.note(key, stage) && keep_points && select.may_hold(key);
            },
            [&](core::Measurement&& m) { out.records.keep(m); });
    };
    // With --metric, only that metric's records are read (a JSON Lines history skips the other
    // lines; every fold of core::group_series stays within one metric). When none is there, the
    // whole history is read to say what it holds.
    if (!request.metric.empty()) {
        out.warnings = scan(request.metric);
        out.filtered = true;
    }
    if (out.records.records() == 0) {
        out.warnings = scan("");
        out.filtered = false;
    }
    if (out.records.records() != 0 || request.allow_empty)
        return;
    // A history file that is not there is a mistyped path far more often than a first night
    // (the nightly job's record step creates it before detect reads it).
    if (is_file_spec(request.history) && !adapters.files.exists(request.history))
        throw_usage("detect: history file '" + request.history +
                    "' does not exist; expected a JSON Lines history (check the path: record, "
                    "run and import create it, a git+URL#BRANCH history is fetched)");
    if (!request.empty_history_inconclusive)
        throw_usage("detect: history '" + store->describe() + "' has no measurements");
    out.empty_reason = "history '" + store->describe() +
                       "' has no measurements yet (the first night: nothing to compare with)";
}

void load(const DetectRequest& request, ports::Adapters& adapters, Loaded& out,
          bool keep_points = true) {
    if (request.history.empty() == request.input.empty())
        throw_usage("detect: give exactly one of --history H and --input FILE");
    if (!request.history.empty())
        return load_history(request, adapters, out, keep_points);
    core::ImportDefaults d;
    d.benchmark = request.benchmark;
    d.metric = request.metric;
    d.unit = request.unit;
    if (request.direction)
        d.direction = *request.direction;
    for (const auto& m :
         read_measurements(request.input, request.format, d, adapters.files, request.read_json))
        out.records.add(m, keep_points);
}

std::string selector_flags(const core::SeriesKey& k) {
    std::string s = "--benchmark '" + k.benchmark + "' --metric '" + k.metric + "'";
    if (!k.testbed.empty())
        s += " --testbed '" + k.testbed + "'";
    return s;
}

std::string list_series(const std::vector<core::Series>& all) {
    std::vector<std::string> names;
    for (const auto& s : all) {
        if (names.size() == 10) {
            names.push_back("... (" + std::to_string(all.size()) + " series)");
            break;
        }
        names.push_back(selector_flags(s.key));
    }
    return util::join(names, "; ");
}

core::DetectResult detect_one(const DetectRequest& request, std::vector<core::Measurement> series) {
    core::DetectOptions options = request.options;
    if (request.direction)
        for (auto& m : series)
            m.direction = *request.direction;
    if (request.threshold) // a ratio means a different relative change per direction
        options.threshold = relative_threshold(
            *request.threshold, request.direction.value_or(series.front().direction));
    // Exit-code records (`--mode exit-code`) hold failure indicators: their rate is compared.
    return core::is_exit_code_series(series) ? core::detect_failures(series, options)
                                             : core::detect(series, options);
}

core::DetectResult empty_result(const DetectRequest& request, const std::string& reason) {
    core::DetectResult r;
    r.benchmark = request.benchmark;
    r.metric = request.metric;
    r.direction = request.direction.value_or(core::Direction::higher_is_better);
    r.threshold = request.threshold ? relative_threshold(*request.threshold, r.direction)
                                    : request.options.threshold;
    r.verdict = core::Verdict::inconclusive;
    r.reason = reason;
    return r;
}

} // namespace

std::map<std::string, std::string> detect_outputs(const core::DetectResult& result) {
    std::map<std::string, std::string> out;
    out["verdict"] = std::string(core::to_string(result.verdict));
    if (!result.change_points.empty()) {
        const auto& cp = result.change_points.back();
        out["relative-change"] = util::format_fixed(cp.relative_change, 4);
        if (cp.kind == core::ChangeKind::regression) {
            out["last-good"] = cp.last_before;
            out["first-bad"] = cp.first_after;
        }
    }
    return out;
}

std::map<std::string, std::string> detect_all_outputs(const DetectAllOutcome& out) {
    std::map<std::string, std::string> o;
    std::vector<const core::SeriesDetect*> regressed;
    for (const auto& s : out.series)
        if (s.result.verdict == core::Verdict::regression)
            regressed.push_back(&s);
    if (out.series.size() == 1)
        o = detect_outputs(out.series.front().result);
    else if (regressed.size() == 1)
        o = detect_outputs(regressed.front()->result);
    o["verdict"] = std::string(core::to_string(core::worst_verdict(out.series)));
    o["series"] = std::to_string(out.series.size());
    o["regressions"] = std::to_string(regressed.size());
    return o;
}

namespace {

/// The series the request selects, detected; more than `most` of them is the usage error of
/// run_detect (said before any is detected).
DetectAllOutcome detect_selected(const DetectRequest& request, ports::Adapters& adapters,
                                 std::size_t most) {
    Loaded loaded;
    load(request, adapters, loaded);
    DetectAllOutcome out;
    out.warnings = std::move(loaded.warnings);
    if (loaded.records.records() == 0) {
        out.empty_reason = loaded.empty_reason.empty()
                               ? "no measurement of this benchmark in the history yet"
                               : loaded.empty_reason;
        return out;
    }
    const core::SeriesSelector select{request.benchmark, request.metric, request.testbed};
    auto all = loaded.records.series();
    std::vector<core::Series> chosen;
    for (auto& s : all)
        if (select.matches(s))
            chosen.push_back(std::move(s));
    if (chosen.empty()) {
        if (request.allow_empty) {
            out.empty_reason = "no measurement of this benchmark in the history yet";
            return out;
        }
        if (loaded.filtered) { // name every series the history holds, not only the metric's
            DetectRequest every = request;
            every.metric.clear();
            Loaded keys;
            load(every, adapters, keys, false);
            all = keys.records.series();
        }
        std::vector<std::string> asked;
        for (const auto& [flag, value] :
             {std::pair<const char*, const std::string*>{"--benchmark", &request.benchmark},
              {"--metric", &request.metric},
              {"--testbed", &request.testbed}})
            if (!value->empty())
                asked.push_back(std::string(flag) + " '" + *value + "'");
        throw_usage("detect: no series of " +
                    (request.history.empty() ? request.input : request.history) + " matches " +
                    util::join(asked, " ") + "; the data holds: " + list_series(all));
    }
    if (chosen.size() > most) {
        std::vector<std::string> names;
        for (const auto& s : chosen)
            names.push_back(selector_flags(s.key));
        if (names.size() > 10)
            names.resize(10);
        throw_usage("detect: the data holds " + std::to_string(chosen.size()) +
                    " series; choose one with: " + util::join(names, "; "));
    }
    for (auto& s : chosen) { // one series' points at a time
        core::SeriesDetect d;
        d.key = s.key;
        d.notes = std::move(s.notes);
        d.result = detect_one(request, loaded.records.points(s.key));
        d.result.benchmark = s.key.benchmark;
        out.series.push_back(std::move(d));
    }
    return out;
}

} // namespace

DetectAllOutcome run_detect_all(const DetectRequest& request, ports::Adapters& adapters) {
    return detect_selected(request, adapters, std::numeric_limits<std::size_t>::max());
}

DetectOutcome run_detect(const DetectRequest& request, ports::Adapters& adapters) {
    DetectAllOutcome all = detect_selected(request, adapters, 1);
    DetectOutcome out;
    out.warnings = std::move(all.warnings);
    if (all.series.empty()) {
        out.result = empty_result(request, all.empty_reason);
        return out;
    }
    for (const auto& n : all.series.front().notes)
        out.warnings.push_back(n);
    out.result = std::move(all.series.front().result);
    return out;
}

} // namespace perfsweep::app
