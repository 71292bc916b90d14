#pragma once
// The result model (pure data): the stage results themselves (DetectResult, DailyResult,
// HourlyResult) and an Investigation holding all of them. The markdown and JSON renderers of
// src/report draw a ResultDocument; the JSON reader (an adapter) gives one back.

#include "core/daily_result.hpp"
#include "core/detect.hpp"
#include "core/hourly_result.hpp"
#include "core/series.hpp"
#include "core/spend.hpp"
#include "util/enum_names.hpp"

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace perfsweep::core {

/// The version of the JSON documents this build writes (`"format_version"`). Documents without
/// one are read as older versions wrote them.
inline constexpr int k_result_format_version = 2;

/// What a result document holds.
enum class ResultKind { detect, daily, hourly, investigate };

/// The names of ResultKind, as the JSON's "kind" holds them.
inline constexpr util::EnumName<ResultKind> k_result_kind_names[] = {
    {ResultKind::detect, "detect"},
    {ResultKind::daily, "daily"},
    {ResultKind::hourly, "hourly"},
    {ResultKind::investigate, "investigate"},
};

/// "detect" / "daily" / "hourly" / "investigate" (k_result_kind_names).
std::string_view to_string(ResultKind k);
/// Parse a result kind (k_result_kind_names); nullopt otherwise.
std::optional<ResultKind> parse_result_kind(std::string_view s);

/// One regression the pipeline narrowed: a daily boundary and, when it ran, its hourly result.
struct NarrowedRegression {
    std::size_t daily = 0;             ///< index into Investigation::daily
    std::string last_good;             ///< the boundary's last good nightly
    std::string first_bad;             ///< its first bad nightly
    std::optional<std::size_t> hourly; ///< index into Investigation::hourly, when narrowed further
    /// The series (core::to_string of its key) when the investigation checked several; a series
    /// narrowed by another's sweep shares that one's hourly result ("" = the only series).
    std::string series;
};

/// Everything `perfsweep investigate` found, stage by stage.
struct Investigation {
    Verdict verdict = Verdict::inconclusive; ///< the pipeline's (an explicit range: its sweep's)
    std::string reason;                      ///< one sentence explaining the verdict
    DetectResult detect;                     ///< detect over the history (its own verdict)
    /// Every series detect checked when there are several (the runner reads several metrics),
    /// in series order; `detect` is the one narrowed first. Empty for one series.
    std::vector<SeriesDetect> series;
    std::vector<DailyResult> daily;              ///< one per swept window, latest first
    std::vector<HourlyResult> hourly;            ///< one per narrowed boundary, latest first
    std::vector<NarrowedRegression> regressions; ///< every narrowed regression, latest first
    Spend spend;                                 ///< runs, builds and time of every stage
    std::vector<std::string> reproduce;          ///< exact commands to reproduce
    std::map<std::string, std::string>
        repo_urls; ///< repo → web URL, for links (besides compare URLs)
    std::map<std::string, std::string> runner; ///< runner fingerprint shown in the report
};

/// One result document: one stage's result or a whole investigation.
using ResultDocument = std::variant<DetectResult, DailyResult, HourlyResult, Investigation>;

/// The kind of `doc`.
ResultKind kind_of(const ResultDocument& doc);

/// Whether `d`'s sweep compared pass/fail counts (exit-code mode).
bool is_exit_code(const DailyResult& d);

/// The boundary of `d` between the points labelled `last_good` and `first_bad`, if any.
const Boundary* find_boundary(const DailyResult& d, std::string_view last_good,
                              std::string_view first_bad);

/// The latest decided regression boundary of `d`, if any.
const Boundary* latest_regression(const DailyResult& d);

/// The regressions an investigation narrowed when it did not record them (documents of older
/// versions): the first daily result's latest regression with the first hourly result.
std::vector<NarrowedRegression> default_regressions(const Investigation& inv);

} // namespace perfsweep::core
