#pragma once
// Option resolution, once, in the application layer: the values of one command (OptionValues,
// from the CLI or from the demo) become the typed request its use case takes, with every
// derivation rule (the hourly runner from the daily one, the sweep's min_change from --threshold,
// repeats caps, ...) and every check in one place. The CLI and the demo call the same functions.

#include "app/investigate.hpp"
#include "app/jax_toolbox.hpp"
#include "app/option_values.hpp"
#include "ports/actions_runner.hpp"
#include "ports/runner.hpp"
#include "ports/runner_config.hpp"
#include "util/time.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace perfsweep::app {

/// The runner settings of a measuring command (run, daily, hourly, investigate, probe): every
/// runner option the command takes, checked (timeout, direction, check, gpus, env, `{image}`
/// without --image, metric).
ports::RunnerConfig resolve_runner(const OptionValues& values);

/// A NAME=VALUE option value split at the first '='; a usage error naming `flag` otherwise.
std::pair<std::string, std::string> split_name_value(const std::string& text,
                                                     const std::string& flag,
                                                     const char* expected = "NAME=VALUE");

/// An ISO 8601 time (UTC, or with an offset) given as `where`; a usage error naming `where` and
/// the expected form otherwise.
util::Time parse_time_text(const std::string& text, const std::string& where);

/// `perfsweep run`: one point.
struct RunRequest {
    ports::RunnerConfig runner;
    ports::PointRequest point;
    std::string history; ///< append the measurement here ("" = no)
    bool json = false;
};

/// Resolve `run`; `now` labels a point without --label or --date.
RunRequest resolve_run(const OptionValues& values, util::UnixSeconds now);

/// `perfsweep probe`: one state, judged against a reference.
struct ProbeRequest {
    ports::RunnerConfig runner;
    std::string label;
    int repeats = 1;
    double threshold = 0.05;
    std::vector<double> good_values; ///< --good-value
    std::optional<double> reference; ///< --reference
    std::string history;             ///< --history (the good level's records)
    std::string good_label;          ///< --good-label
};

/// Resolve `probe` (the reference flags are checked against the mode here).
ProbeRequest resolve_probe(const OptionValues& values);

/// `perfsweep daily`.
struct DailyRequest {
    DailyOptions options;
    ports::RunnerConfig runner;
    std::optional<ports::RunnerConfig> commits_probe; ///< the probe's runner, when given
    std::string history;
    bool json = false;
};

/// Resolve `daily` (options.secrets is left to the caller: it is not an option).
DailyRequest resolve_daily(const OptionValues& values);

/// `perfsweep hourly`.
struct HourlyRequest {
    HourlyOptions options;
    std::optional<ports::RunnerConfig> runner; ///< none with --plan (app::plan_hourly)
    std::string from_result; ///< read the window from this daily result (the caller reads it)
    bool json = false;
    /// --jax-toolbox and its options; applied with the adapters by prepare_source_runner.
    std::optional<JaxToolboxRequest> jax_toolbox;
};

/// The settings line of a daily stage's journal (--state): what its results depend on (dates,
/// image, runtime, test, benchmark, metric, the sweep's strategy, repeats, span, change, mode). A
/// resumed stage must match it; the text earlier versions wrote, so their state directories resume.
/// `daily`, `investigate`'s record and daily steps all use it.
std::string journal_identity(const DailyOptions& daily, const ports::RunnerConfig& runner);

/// The settings line of an hourly stage's journal: build and test commands, runtime, image,
/// metric, regex, repeats, exit-code mode (recomputed when the JAX-Toolbox mode writes the build).
/// `hourly` and `investigate`'s hourly step use it.
std::string journal_identity(const HourlyOptions& hourly, const ports::RunnerConfig& runner);

/// The commits probe's runner: the benchmark's `runner` running `command` instead, without warmup
/// or environment probe (the benchmark's runner probes the environment), logs under LOGS/probe.
ports::RunnerConfig commits_probe_runner(const ports::RunnerConfig& runner,
                                         const std::string& command);

/// Resolve `hourly` (options.from/to from --from-result and options.secrets are left to the
/// caller).
HourlyRequest resolve_hourly(const OptionValues& values);

/// Where `investigate` finds the comment target when no --pr, --issue or --new-issue is given.
struct CommentContext {
    std::string github_repository;           ///< $GITHUB_REPOSITORY
    ports::ActionsRunner* actions = nullptr; ///< the event's PR or issue
};

/// `perfsweep investigate`.
struct InvestigateRequest {
    InvestigateOptions options;
    bool json = false;
    /// --jax-toolbox and its options; applied with the adapters by prepare_source_runner.
    std::optional<JaxToolboxRequest> jax_toolbox;
};

/// Resolve `investigate`: every derivation rule of the pipeline's options.
InvestigateRequest resolve_investigate(const OptionValues& values, const CommentContext& context);

/// The comment target of `comment` and `investigate --comment`: --github-repo (else
/// $GITHUB_REPOSITORY), --pr / --issue / --new-issue (else the Actions event's PR or issue).
/// Without --pr/--issue/--new-issue the event's PR or issue; with `sticky_issue_metric` set
/// (investigate) a schedule/workflow_dispatch/push event gets the sticky issue "perfsweep: METRIC
/// regression" (label perfsweep unless --issue-label is given).
CommentRequest resolve_comment_target(const OptionValues& values, const CommentContext& context,
                                      const std::string& sticky_issue_metric = "");

} // namespace perfsweep::app
