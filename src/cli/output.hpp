#pragma once
// Console output of the commands. Text that carries untrusted strings (labels, subjects, benchmark
// names, error messages quoting inputs) goes through these, so no line of it can be read as a
// GitHub Actions workflow command (see util/workflow_text.hpp).

#include <string>

namespace perfsweep::cli {

/// printf to stdout, every resulting line made inert (util::inert_lines).
void print_inert(const char* format, ...) __attribute__((format(printf, 1, 2)));

/// Write `text` to stdout with every line made inert.
void write_inert(const std::string& text);

/// Write JSON `text` to stdout with "##[" spelled "##\u005b" inside strings (the same JSON value;
/// the runner's legacy `##[command]` syntax matches anywhere in a line).
void write_json(const std::string& text);

/// `text` as JSON with "##[" spelled "##\u005b" (see write_json).
std::string inert_json(const std::string& text);

} // namespace perfsweep::cli
