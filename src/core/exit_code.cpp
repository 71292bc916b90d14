#include "core/exit_code.hpp"

#include <cmath>
#include <cstdio>

namespace perfsweep::core {

namespace {

std::string percent(double rate) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f %%", std::round(rate * 100));
    return buf;
}

std::string counts(const PassFail& p) {
    return std::to_string(p.failed) + "/" + std::to_string(p.total());
}

} // namespace

std::string_view to_string(RunMode m) {
    return m == RunMode::exit_code ? "exit-code" : "metric";
}

std::optional<RunMode> parse_run_mode(std::string_view s) {
    if (s == "metric")
        return RunMode::metric;
    if (s == "exit-code" || s == "exit_code")
        return RunMode::exit_code;
    return std::nullopt;
}

ExitVerdict classify_exit_code(int code) {
    if (code == 0)
        return ExitVerdict::good;
    if (code < 0)
        return ExitVerdict::bad; // the test itself died of a signal: a crash
    if (code == k_exit_skip || code == k_exit_timeout_wrapper)
        return ExitVerdict::skip;
    if (code >= k_exit_abort_min)
        return ExitVerdict::abort;
    return ExitVerdict::bad;
}

std::string_view to_string(ExitVerdict v) {
    switch (v) {
    case ExitVerdict::good:
        return "good";
    case ExitVerdict::bad:
        return "bad";
    case ExitVerdict::skip:
        return "skip";
    case ExitVerdict::abort:
        return "abort";
    }
    return "abort";
}

std::optional<int> abort_code(const Measurement& m) {
    for (int c : m.exit_codes)
        if (classify_exit_code(c) == ExitVerdict::abort)
            return c;
    return std::nullopt;
}

double failure_value(ExitVerdict v) {
    return v == ExitVerdict::bad ? 1.0 : 0.0;
}

PassFail count_pass_fail(const std::vector<double>& indicators) {
    PassFail p;
    for (double v : indicators)
        (v > 0.5 ? p.failed : p.passed) += 1;
    return p;
}

std::string describe_rate(const PassFail& p) {
    return "failed " + std::to_string(p.failed) + " of " + std::to_string(p.total()) + " runs (" +
           percent(p.rate()) + ")";
}

std::string describe_failure_change(const PassFail& before, const PassFail& after) {
    const double a = before.rate(), b = after.rate();
    if (a == 0 && b == 1)
        return "started failing (" + counts(before) + " runs failed before, " + counts(after) +
               " after)";
    if (a == 1 && b == 0)
        return "stopped failing (" + counts(before) + " runs failed before, " + counts(after) +
               " after)";
    return std::string("failure rate ") + (b >= a ? "rose" : "fell") + " from " + percent(a) +
           " (" + counts(before) + ") to " + percent(b) + " (" + counts(after) + ")";
}

} // namespace perfsweep::core
