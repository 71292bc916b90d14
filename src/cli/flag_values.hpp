#pragma once
// Values of enumerated flags shared by several commands, each checked with one message that
// names the flag and the values it accepts.

#include "core/import_formats.hpp"
#include "core/model.hpp"
#include "core/sweep_plan.hpp"

#include <string>

namespace perfsweep::cli {

/// --direction higher | lower; a usage error otherwise.
core::Direction direction_flag(const std::string& text);

/// --format csv | grep | benchmark-action | jsonl; a usage error otherwise.
core::ImportFormat import_format_flag(const std::string& text);

/// --strategy exhaustive | adaptive | bisect; a usage error otherwise.
core::SweepStrategy strategy_flag(const std::string& text);

} // namespace perfsweep::cli
