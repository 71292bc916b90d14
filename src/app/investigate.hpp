#pragma once
// Use case: the whole pipeline — record today's point (optional) → detect against history → daily
// stage between the last good and first bad dates → hourly stage between those builds' commits →
// commit stage (optional) → report → comment and Actions outputs.

#include "app/comment.hpp"
#include "app/daily.hpp"
#include "app/detect.hpp"
#include "app/hourly.hpp"
#include "core/date_range.hpp"
#include "core/narrow.hpp"
#include "core/report_model.hpp"
#include "ports/adapters.hpp"
#include "ports/runner_config.hpp"

#include <optional>
#include <string>
#include <vector>

namespace perfsweep::app {

/// Which nightly `investigate --record` measures first.
struct RecordNight {
    bool today = false; ///< today's (the UTC date when the command runs)
    util::Day date{};   ///< else this date
};

/// Everything `perfsweep investigate` (and `perfsweep demo`) was asked to do.
struct InvestigateOptions {
    std::string history;               ///< history spec (required)
    std::optional<RecordNight> record; ///< record this nightly first (none = no)
    double threshold = 0.02;           ///< detect threshold
    /// --from/--to: sweep this range instead of the window detect found (e.g. between two
    /// releases); none = detect's windows.
    std::optional<core::DateRange> range;
    core::Narrow narrow = core::Narrow::latest; ///< which regressions to narrow
    ports::RunnerConfig daily_runner;           ///< image template, test command, runtime, ...
    std::string commits_probe;             ///< command printing a dated build's commits ("" = none)
    DailyOptions daily;                    ///< strategy, repeats, budgets (dates are filled in)
    bool hourly = true;                    ///< run the hourly stage when repos are given
    HourlyOptions hourly_options;          ///< repos, step, strategy, to_commit (window filled in)
    ports::RunnerConfig hourly_runner;     ///< build + test commands for source states
    std::string state_dir;                 ///< resumable state for every stage ("" = none)
    std::string out_dir = "perfsweep-out"; ///< where report.md and result.json are written
    std::string key = "default";           ///< sticky comment key
    /// Post the report when set: on a regression as a sticky comment on comment->number, or,
    /// without a number, in the sticky issue titled comment->new_issue_title (opened on a
    /// regression, its report updated on the next ones, told of a recovery on a healthy night).
    std::optional<CommentRequest> comment;
    bool close_on_recovery = false; ///< sticky issue: a healthy night closes it
    std::string token_env = "GITHUB_TOKEN";
    bool fail_on_regression = false;
    std::string reproduce;     ///< the command line, for the report
    std::string dashboard_url; ///< where the dashboard is served: the report links the series
};

/// What the pipeline found, stage by stage, and where it was written.
struct InvestigateResult {
    /// Every stage's result: the model result.json and report.md are rendered from.
    core::Investigation investigation;
    std::string verdict;     ///< regression | improvement | no_regression | inconclusive
    std::string summary;     ///< one sentence
    std::string report_path; ///< markdown report written
    std::string result_path; ///< combined JSON written
    std::string markdown;    ///< the report (every narrowed regression)
    std::map<std::string, std::string> outputs; ///< step outputs (verdict, window, culprit, ...)
    int exit_code = 0;
};

/// Run the pipeline with the real ports in `adapters`. Stages already finished in `state_dir`
/// resume without rerunning finished runs.
InvestigateResult run_investigate(const InvestigateOptions& options, ports::Adapters& adapters);

} // namespace perfsweep::app
