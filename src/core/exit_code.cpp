#include "core/exit_code.hpp"

#include "core/stats.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <utility>

namespace perfsweep::core {

namespace {

constexpr util::EnumName<ExitVerdict> k_exit_verdict_names[] = {
    {ExitVerdict::good, "good"},
    {ExitVerdict::bad, "bad"},
    {ExitVerdict::skip, "skip"},
    {ExitVerdict::abort, "abort"},
};

std::string exit_rate_percent(double rate) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f %%", std::round(rate * 100));
    return buf;
}

std::string counts(const PassFail& p) {
    return std::to_string(p.failed) + "/" + std::to_string(p.total());
}

} // namespace

std::string_view to_string(RunMode m) {
    return util::enum_name(k_run_mode_names, m, "metric");
}

std::optional<RunMode> parse_run_mode(std::string_view s) {
    return util::parse_enum(k_run_mode_names, s);
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
    return util::enum_name(k_exit_verdict_names, v, "abort");
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
           exit_rate_percent(p.rate()) + ")";
}

bool completely_separated(const PassFail& a, const PassFail& b, long min_runs) {
    return ((a.failed == 0 && b.passed == 0) || (a.passed == 0 && b.failed == 0)) &&
           a.total() >= min_runs && b.total() >= min_runs;
}

bool pass_fail_differ(const PassFail& a, const PassFail& b, double alpha, long min_runs) {
    return completely_separated(a, b, min_runs) ||
           fisher_exact_two_sided(a.failed, a.passed, b.failed, b.passed) < alpha;
}

std::vector<std::size_t> segment_failure_counts(const std::vector<PassFail>& points,
                                                const SegmentOptions& options) {
    const double alpha = options.alpha;
    const long min_separated_runs = options.min_separated_runs;
    // Prefix sums make each candidate split O(1).
    std::vector<PassFail> prefix(points.size() + 1);
    for (std::size_t i = 0; i < points.size(); ++i) {
        prefix[i + 1].passed = prefix[i].passed + points[i].passed;
        prefix[i + 1].failed = prefix[i].failed + points[i].failed;
    }
    auto pool = [&](std::size_t from, std::size_t to) { // points [from, to]
        PassFail pf;
        pf.passed = prefix[to + 1].passed - prefix[from].passed;
        pf.failed = prefix[to + 1].failed - prefix[from].failed;
        return pf;
    };
    auto log_lik = [](const PassFail& pf) {
        const double n = static_cast<double>(pf.total());
        double ll = 0;
        if (pf.failed > 0)
            ll += static_cast<double>(pf.failed) * std::log(static_cast<double>(pf.failed) / n);
        if (pf.passed > 0)
            ll += static_cast<double>(pf.passed) * std::log(static_cast<double>(pf.passed) / n);
        return ll;
    };
    auto differ = [&](const PassFail& a, const PassFail& b) {
        return pass_fail_differ(a, b, alpha, min_separated_runs);
    };
    std::vector<std::pair<std::size_t, std::size_t>> todo;
    if (points.size() >= 2)
        todo.emplace_back(0, points.size() - 1);
    std::vector<std::size_t> splits;
    while (!todo.empty()) {
        const auto [lo, hi] = todo.back();
        todo.pop_back();
        if (hi <= lo)
            continue;
        // One change: the split of largest likelihood.
        std::size_t best = lo;
        double best_llr = -std::numeric_limits<double>::infinity();
        for (std::size_t k = lo; k < hi; ++k) {
            const double llr = log_lik(pool(lo, k)) + log_lik(pool(k + 1, hi));
            if (llr > best_llr + 1e-12) {
                best_llr = llr;
                best = k;
            }
        }
        if (differ(pool(lo, best), pool(best + 1, hi))) {
            splits.push_back(best);
            todo.emplace_back(lo, best);
            todo.emplace_back(best + 1, hi);
            continue;
        }
        // Two changes (a dip that recovers, which one split cannot see): the inner run
        // [i + 1, j] of largest likelihood against the rest of the segment.
        if (!options.dips || hi - lo < 2)
            continue;
        std::size_t bi = lo, bj = lo;
        double best2 = -std::numeric_limits<double>::infinity();
        const PassFail all = pool(lo, hi);
        for (std::size_t i = lo; i + 1 < hi; ++i)
            for (std::size_t j = i + 1; j < hi; ++j) {
                const PassFail mid = pool(i + 1, j);
                const PassFail rest{all.passed - mid.passed, all.failed - mid.failed};
                const double llr = log_lik(mid) + log_lik(rest);
                if (llr > best2 + 1e-12) {
                    best2 = llr;
                    bi = i;
                    bj = j;
                }
            }
        const PassFail mid = pool(bi + 1, bj);
        if (bj > bi && differ(mid, PassFail{all.passed - mid.passed, all.failed - mid.failed})) {
            splits.push_back(bi);
            splits.push_back(bj);
            todo.emplace_back(lo, bi);
            todo.emplace_back(bi + 1, bj);
            todo.emplace_back(bj + 1, hi);
        }
    }
    std::sort(splits.begin(), splits.end());
    return splits;
}

std::string describe_exit_status(int code) {
    if (code >= 0)
        return "exit status " + std::to_string(code);
    const int sig = -code;
    const char* name = sig == 4    ? "SIGILL"
                       : sig == 6  ? "SIGABRT"
                       : sig == 7  ? "SIGBUS"
                       : sig == 8  ? "SIGFPE"
                       : sig == 9  ? "SIGKILL"
                       : sig == 11 ? "SIGSEGV"
                       : sig == 15 ? "SIGTERM"
                                   : nullptr;
    return "killed by signal " + std::to_string(sig) +
           (name ? std::string(" (") + name + ")" : std::string());
}

std::string describe_failure_change(const PassFail& before, const PassFail& after) {
    const double a = before.rate(), b = after.rate();
    if (a == 0 && b == 1)
        return "started failing (" + counts(before) + " runs failed before, " + counts(after) +
               " after)";
    if (a == 1 && b == 0)
        return "stopped failing (" + counts(before) + " runs failed before, " + counts(after) +
               " after)";
    return std::string("failure rate ") + (b >= a ? "rose" : "fell") + " from " +
           exit_rate_percent(a) + " (" + counts(before) + ") to " + exit_rate_percent(b) + " (" +
           counts(after) + ")";
}

} // namespace perfsweep::core
