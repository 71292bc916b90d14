#include "app/failure_log.hpp"

#include "report/log_excerpt.hpp"

#include <exception>

namespace perfsweep::app {

std::optional<core::FailureLog> failure_log_at(const std::string& point, const std::string& log,
                                               int code, ports::Files& files,
                                               const std::vector<std::string>& secrets) {
    if (log.empty())
        return std::nullopt;
    try {
        if (!files.exists(log))
            return std::nullopt;
        core::FailureLog f;
        f.point = point;
        f.log = log;
        f.exit_code = code;
        f.excerpt = report::log_excerpt(files.read_text(log), secrets);
        return f;
    } catch (const std::exception&) {
        return std::nullopt; // a report without the excerpt beats no report
    }
}

std::optional<core::FailureLog>
first_failure_log(const std::string& point, const std::vector<core::Measurement>& measurements,
                  ports::Files& files, const std::vector<std::string>& secrets) {
    for (const auto& m : measurements) {
        int code = 0;
        bool failed = false;
        for (int c : m.exit_codes)
            if (core::classify_exit_code(c) == core::ExitVerdict::bad) {
                code = c;
                failed = true;
                break;
            }
        if (!failed)
            continue;
        // Records written before failure_log existed name only their last run's log.
        if (auto f = failure_log_at(point, m.failure_log.empty() ? m.log : m.failure_log, code,
                                    files, secrets))
            return f;
    }
    return std::nullopt;
}

} // namespace perfsweep::app
