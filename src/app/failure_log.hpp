#pragma once
// Exit-code mode: the log of a failing run, read and cut for a report.

#include "core/exit_code.hpp"
#include "core/model.hpp"
#include "ports/files.hpp"

#include <optional>
#include <string>
#include <vector>

namespace perfsweep::app {

/// The first failing run of `measurements` (a point's records, in run order) as a report excerpt
/// labelled `point`: its log's last lines, ANSI stripped, every `secrets` value masked. Nullopt
/// when no run failed or the log is gone.
std::optional<core::FailureLog>
first_failure_log(const std::string& point, const std::vector<core::Measurement>& measurements,
                  ports::Files& files, const std::vector<std::string>& secrets);

/// The excerpt of one failing run's `log` (exit status `code`), labelled `point`; nullopt when
/// the log cannot be read.
std::optional<core::FailureLog> failure_log_at(const std::string& point, const std::string& log,
                                               int code, ports::Files& files,
                                               const std::vector<std::string>& secrets);

} // namespace perfsweep::app
