#include "report/hourly_text.hpp"

#include "core/commit_text.hpp"
#include "core/stats.hpp"
#include "report/log_excerpt.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <cstdarg>
#include <cstdio>

namespace perfsweep::report {

namespace {

/// printf into a string.
std::string printf_to_string(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

std::string printf_to_string(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    va_list copy;
    va_copy(copy, ap);
    const int n = std::vsnprintf(nullptr, 0, fmt, copy);
    va_end(copy);
    std::string out(n > 0 ? static_cast<std::size_t>(n) : 0, '\0');
    if (n > 0)
        std::vsnprintf(out.data(), out.size() + 1, fmt, ap);
    va_end(ap);
    return out;
}

} // namespace

std::string render_hourly_text(const core::HourlyResult& r) {
    std::string out =
        printf_to_string("%-21s  %-12s  %-9s  %s\n", "time", "status", "changed", "commits");
    for (const auto& s : r.states) {
        std::string values;
        if (!s.values.empty())
            values = "  median " + util::format_fixed(core::median(s.values), 3);
        out += printf_to_string("%-21s  %-12s  %-9s  %s%s\n", util::format_iso8601(s.time).c_str(),
                                std::string(core::to_string(s.status)).c_str(),
                                util::join(s.changed, ",").c_str(),
                                core::format_commits(s.commits).c_str(), values.c_str());
    }
    if (r.last_good && r.first_bad) {
        out += printf_to_string("\nlast good: %s  %s\n",
                                util::format_iso8601(r.last_good->time).c_str(),
                                core::format_commits(r.last_good->commits).c_str());
        out +=
            printf_to_string("first bad: %s  %s\n", util::format_iso8601(r.first_bad->time).c_str(),
                             core::format_commits(r.first_bad->commits).c_str());
        for (const auto& [name, list] : r.candidates) {
            out += printf_to_string("\n%s: %zu commit(s)", name.c_str(), list.size());
            auto url = r.compare_urls.find(name);
            if (url != r.compare_urls.end())
                out += "  " + url->second;
            out += "\n";
            for (const auto& c : list)
                out += printf_to_string("  %s  %s  %s  %s\n", core::short_sha(c.sha).c_str(),
                                        util::format_iso8601(c.time).c_str(), c.author.c_str(),
                                        c.subject.c_str());
        }
    }
    if (r.failure_rates && r.last_good && r.first_bad)
        out += "\n" + core::describe_failure_change(r.good_runs, r.bad_runs) + "\n";
    if (r.first_bad_log)
        out += "\nFirst bad state " + r.first_bad_log->point + ", " +
               core::describe_exit_status(r.first_bad_log->exit_code) + ", last lines of " +
               r.first_bad_log->log + ":\n" + prefix_lines(r.first_bad_log->excerpt, "  | ");
    if (r.culprit)
        out += "\nculprit: " + r.culprit->repo + " " + r.culprit->commit.sha + "  " +
               r.culprit->commit.subject + "\n  " + r.culprit->note + "\n";
    std::string spend =
        "builds " + std::to_string(r.spend.builds) + ", runs " + std::to_string(r.spend.runs);
    if (r.spend.restored_builds)
        spend += "; kept builds put back (not rebuilt): " + std::to_string(r.spend.restored_builds);
    if (r.spend.resumed_builds || r.spend.resumed_runs)
        spend += "; resumed: builds " + std::to_string(r.spend.resumed_builds) + ", runs " +
                 std::to_string(r.spend.resumed_runs);
    out +=
        "\n" + std::string(core::to_string(r.conclusion)) + ": " + r.message + " (" + spend + ")\n";
    return out;
}

} // namespace perfsweep::report
