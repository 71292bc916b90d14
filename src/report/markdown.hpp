#pragma once
// Markdown rendering of the result model for GitHub comments and job summaries (pure).

#include "core/report_model.hpp"

#include <cstddef>
#include <string>
#include <string_view>

namespace perfsweep::report {

/// GitHub's limit on an issue or PR comment body, in characters (we count bytes, which is safe).
inline constexpr std::size_t k_comment_limit = 65536;

/// Rendering options.
struct MarkdownOptions {
    std::string key = "default";             ///< sticky-comment key, written as a hidden marker
    std::size_t max_chars = k_comment_limit; ///< the body never exceeds this (bytes)
    std::size_t fold_rows = 10;              ///< tables longer than this fold into <details>
    /// Where the dashboard is served (http(s)): an investigation's report links its series' page
    /// there and shows its chart image (series/NAME.html, .svg). None when empty.
    std::string dashboard_url;
};

/// The hidden marker for `key`: "<!-- perfsweep:KEY -->". Throws a usage error unless `key` is
/// 1-100 characters of [A-Za-z0-9._/:-] (so it can never close the HTML comment).
std::string marker_for_key(std::string_view key);

/// Escape untrusted text for inline markdown and table cells: newlines become spaces; `|`, `\`,
/// backticks, `*`, `_`, `[`, `]`, `~` are backslash-escaped; `<`, `>`, `&` become entities; `@`
/// becomes `&#64;` so nobody is pinged.
std::string escape_markdown(std::string_view text);

/// The document's conclusion in one sentence, e.g. "MLUPS fell 7.0 % (577.3 → 536.7) between
/// nightly 2023-08-24 and 2023-08-26; culprit: openxla/xla@3c66a1f… 'subject'.", "No change of
/// MLUPS found: ...", "Inconclusive for MLUPS: ...". Untrusted parts are escaped.
std::string verdict_sentence(const core::ResultDocument& doc);

/// The full markdown report: marker, verdict (and every narrowed regression when there are
/// several), charts, tables, windows, candidates, skipped points, runner, budgets, reproduce
/// commands. Never longer than `opt.max_chars`: tables are trimmed first (with a note), then charts
/// and optional sections; the verdict and the windows always remain.
std::string render_markdown(const core::ResultDocument& doc, const MarkdownOptions& opt = {});

/// A Mermaid xychart-beta block (without the ``` fence) for `labels`/`values`; empty when fewer
/// than two points.
std::string xychart(std::string_view title, std::string_view y_label,
                    const std::vector<std::string>& labels, const std::vector<double>& values);

} // namespace perfsweep::report
