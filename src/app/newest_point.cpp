#include "app/newest_point.hpp"

#include "core/newest_point.hpp"
#include "util/strings.hpp"

#include <algorithm>

namespace perfsweep::app {

NewestPointRun settle_newest_point(const core::DetectResult& detected, ports::HistoryStore& history,
                                   int repeats, int max_repeats, const MeasureAgain& measure,
                                   ports::Progress& progress) {
    NewestPointRun out;
    out.detect = detected;
    if (detected.verdict != core::Verdict::inconclusive || detected.outliers.empty())
        return out;
    std::vector<core::Measurement> series;
    for (auto& m : history.load().records)
        if (m.benchmark == detected.benchmark && m.metric == detected.metric)
            series.push_back(std::move(m));
    const auto lone = core::lone_newest_point(detected, core::ordered_points(series));
    if (!lone)
        return out;
    const int most = std::max(max_repeats, repeats);
    std::vector<double> again;
    int runs = std::max(1, repeats);
    for (int round = 1; runs > 0; ++round) {
        progress.line("== newest point: " + lone->label + " is " +
                      util::format_fixed(100 * lone->relative_change, 1) +
                      " % from the level alone; measuring that nightly again (" +
                      std::to_string(runs) + " runs)");
        const auto values = measure(lone->label, runs, round);
        out.runs += runs;
        again.insert(again.end(), values.begin(), values.end());
        if (core::decide_newest_point(out.detect, *lone, again) != core::NewestOutcome::undecided) {
            progress.line("newest point: " + out.detect.reason);
            return out;
        }
        if (values.empty())
            break; // the nightly no longer measures: more runs will not tell
        runs = std::min(static_cast<int>(again.size()), most - static_cast<int>(again.size()));
    }
    out.detect.reason += "; measured again " + std::to_string(again.size()) +
                         " times, the nightly " + lone->label + " is still undecided";
    progress.line("newest point: undecided after " + std::to_string(again.size()) + " more runs");
    return out;
}

} // namespace perfsweep::app
