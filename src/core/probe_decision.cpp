#include "core/probe_decision.hpp"

#include "core/stats.hpp"

#include <cmath>
#include <cstdio>

namespace perfsweep::core {

namespace {

std::string decision_number(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

// A relative change in percent, signed, two decimals ("-78.39").
std::string decision_percent(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%+.2f", v);
    return buf;
}

std::string codes_text(const std::vector<int>& codes) {
    std::string s;
    for (int c : codes)
        s += (s.empty() ? "" : ",") + std::to_string(c);
    return s;
}

} // namespace

ProbeDecision decide_probe(const Measurement& m, const ProbeReference& ref) {
    ProbeDecision d;
    const bool build_failed = m.reason.rfind("build: ", 0) == 0;
    if (ref.mode == RunMode::exit_code) {
        if (const auto code = abort_code(m)) {
            d.verdict = ExitVerdict::abort;
            d.why = "the test exited " + std::to_string(*code) +
                    " (128 and above abort the search): " + m.reason;
            return d;
        }
        if (m.status != Status::ok) {
            const bool ran = !m.exit_codes.empty();
            if (m.status == Status::failed && !ran && !build_failed) {
                d.verdict = ExitVerdict::abort; // the runner could not run the test at all
                d.why = "the test did not run: " + m.reason;
                return d;
            }
            d.verdict = ExitVerdict::skip;
            d.why = std::string(to_string(m.status)) + ": " + m.reason;
            return d;
        }
        const auto pf = count_pass_fail(m.values);
        d.verdict = pf.failed > 0 ? ExitVerdict::bad : ExitVerdict::good;
        d.why = describe_rate(pf) + "; exit codes " + codes_text(m.exit_codes);
        return d;
    }
    if (m.status != Status::ok || m.values.empty()) {
        d.verdict = ExitVerdict::skip;
        d.why = "cannot be measured (" + std::string(to_string(m.status)) + ": " + m.reason + ")";
        return d;
    }
    if (!ref.good_level || *ref.good_level == 0) {
        d.verdict = ExitVerdict::abort;
        d.why = "no usable good level to compare with";
        return d;
    }
    const double level = median(m.values);
    const double change = (level - *ref.good_level) / std::fabs(*ref.good_level);
    const double worse = ref.direction == Direction::higher_is_better ? -change : change;
    d.verdict = worse > ref.threshold ? ExitVerdict::bad : ExitVerdict::good;
    d.why = "median " + decision_number(level) + " vs good " + decision_number(*ref.good_level) +
            " (" + decision_percent(change * 100) + " %, bad beyond " +
            decision_number(ref.threshold * 100) + " % worse)";
    return d;
}

} // namespace perfsweep::core
