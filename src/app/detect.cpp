#include "app/detect.hpp"

#include "app/import.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

#include <set>

namespace perfsweep::app {

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

DetectOutcome run_detect(const DetectRequest& request, ports::Adapters& adapters) {
    if (request.history.empty() == request.input.empty())
        throw_usage("detect: give exactly one of --history H and --input FILE");
    DetectOutcome out;
    std::vector<core::Measurement> all;
    if (!request.history.empty()) {
        auto store = adapters.histories.open(request.history);
        // Only the chosen series is decoded; when nothing matches, the whole history names the
        // series there are.
        auto load = store->load_matching({request.benchmark, request.metric, ""});
        if (load.records.empty() && !(request.benchmark.empty() && request.metric.empty()))
            load = store->load();
        out.warnings = std::move(load.warnings);
        all = std::move(load.records);
        if (all.empty() && !request.allow_empty) {
            if (!request.empty_history_inconclusive)
                throw_usage("detect: history '" + store->describe() + "' has no measurements");
            out.result.benchmark = request.benchmark;
            out.result.metric = request.metric;
            out.result.direction = request.direction.value_or(core::Direction::higher_is_better);
            out.result.threshold = request.options.threshold;
            out.result.verdict = core::Verdict::inconclusive;
            out.result.reason =
                "history '" + store->describe() + "' has no measurements yet (missing or empty)";
            return out;
        }
    } else {
        core::ImportDefaults d;
        d.benchmark = request.benchmark;
        d.metric = request.metric;
        d.unit = request.unit;
        if (request.direction)
            d.direction = *request.direction;
        all = read_measurements(request.input, request.format, d, adapters);
    }
    std::vector<core::Measurement> series;
    std::set<std::pair<std::string, std::string>> found, chosen;
    std::set<std::string> fingerprints;
    for (auto& m : all) {
        found.emplace(m.benchmark, m.metric);
        if (!request.benchmark.empty() && m.benchmark != request.benchmark)
            continue;
        if (!request.metric.empty() && m.metric != request.metric)
            continue;
        chosen.emplace(m.benchmark, m.metric);
        fingerprints.insert(core::fingerprint_key(m.runner));
        if (request.direction)
            m.direction = *request.direction;
        series.push_back(std::move(m));
    }
    auto list = [](const std::set<std::pair<std::string, std::string>>& s) {
        std::vector<std::string> names;
        for (const auto& [b, m] : s) {
            names.push_back("--benchmark '" + b + "' --metric '" + m + "'");
            if (names.size() == 10) {
                names.push_back("...");
                break;
            }
        }
        return util::join(names, "; ");
    };
    if (series.empty() && request.allow_empty) {
        out.result.benchmark = request.benchmark;
        out.result.metric = request.metric;
        out.result.direction = request.direction.value_or(core::Direction::higher_is_better);
        out.result.threshold = request.threshold
                                   ? relative_threshold(*request.threshold, out.result.direction)
                                   : request.options.threshold;
        out.result.verdict = core::Verdict::inconclusive;
        out.result.reason = "no measurement of this benchmark in the history yet";
        return out;
    }
    if (series.empty())
        throw_usage("detect: no measurements match --benchmark '" + request.benchmark +
                    "' --metric '" + request.metric + "'; available: " + list(found));
    if (chosen.size() > 1)
        throw_usage("detect: the data holds " + std::to_string(chosen.size()) +
                    " series; choose one with: " + list(chosen));
    if (fingerprints.size() > 1)
        out.warnings.push_back("the series mixes " + std::to_string(fingerprints.size()) +
                               " runner fingerprints; points from different machines may differ "
                               "for reasons other than the code");
    if (request.threshold) { // a ratio means a different relative change per direction
        const core::Direction dir = request.direction.value_or(series.front().direction);
        out.result.threshold = relative_threshold(*request.threshold, dir);
    }
    core::DetectOptions options = request.options;
    if (request.threshold)
        options.threshold = out.result.threshold;
    // Exit-code records (`--mode exit-code`) hold failure indicators: their rate is compared.
    out.result = core::is_exit_code_series(series) ? core::detect_failures(series, options)
                                                   : core::detect(series, options);
    return out;
}

} // namespace perfsweep::app
