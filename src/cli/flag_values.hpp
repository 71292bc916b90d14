#pragma once
// Values of enumerated flags shared by several commands, each checked with one message that
// names the flag and the values it accepts.

#include "core/import_formats.hpp"
#include "core/model.hpp"
#include "core/sweep_plan.hpp"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace perfsweep::cli {

/// --direction higher | lower; a usage error otherwise.
core::Direction direction_flag(const std::string& text);

/// --format csv | grep | benchmark-action | jsonl; a usage error otherwise.
core::ImportFormat import_format_flag(const std::string& text);

/// --strategy exhaustive | adaptive | bisect; a usage error otherwise.
core::SweepStrategy strategy_flag(const std::string& text);

/// A NAME=VALUE flag value split at the first '='; a usage error naming `flag` otherwise.
std::pair<std::string, std::string> name_value(const std::string& text, const std::string& flag);

/// --commits-label REPO=LABEL values (repo and label names of [A-Za-z0-9._/-]); usage error
/// naming the value otherwise (also for a repo given twice, or a runtime that reads no labels:
/// only docker and podman with the environment probe on read image labels).
std::map<std::string, std::string> commit_labels_flag(const std::vector<std::string>& values,
                                                      const std::string& runtime,
                                                      const std::string& env_probe);

} // namespace perfsweep::cli
