#pragma once
// The report input model: what a rendered report shows, independent of which stage produced it
// (detect, daily, hourly, or a whole investigation). Pure data; filled by a JSON adapter.

#include "core/exit_code.hpp"
#include "core/model.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace perfsweep::core {

/// One measured point of a series (a nightly, or a skipped/failed point).
struct ReportPoint {
    std::string label;          ///< e.g. "2023-08-24"
    std::string status = "ok";  ///< "ok", "failed", "timeout", "missing", "skipped", ...
    std::vector<double> values; ///< every repeat (empty unless measured)
    std::string log;            ///< log file name, if any
    std::string reason;         ///< why it is not ok
};

/// A level shift: a detect change point or a daily boundary.
struct ReportShift {
    std::string last_before;             ///< last label at the old level
    std::string first_after;             ///< first label at the new level
    double old_value = 0;                ///< old level
    double new_value = 0;                ///< new level
    double relative_change = 0;          ///< (new - old) / |old|
    std::string kind;                    ///< "regression" or "improvement"
    std::optional<PassFail> runs_before; ///< exit-code mode: every run of the level before
    std::optional<PassFail> runs_after;  ///< exit-code mode: every run of the level after
};

/// A source state of the hourly stage: a time and the commit of each repo.
struct ReportState {
    std::string time;                           ///< ISO 8601 UTC
    std::map<std::string, std::string> commits; ///< repo → sha
    bool changed = true;                        ///< whether the sources differ from the previous
    std::string status = "ok";                  ///< status of the run (or build)
    std::vector<double> values;                 ///< every repeat
    std::string log;                            ///< log file name, if any
    std::string reason;                         ///< why it is not ok
};

/// A candidate commit inside the window.
struct ReportCommit {
    std::string sha;
    std::string time;
    std::string author;
    std::string subject;
    std::string url; ///< link to the commit, when the repo's URL is known
};

/// The identified culprit.
struct ReportCulprit {
    std::string repo;
    std::string sha;
    std::string subject;
    std::string author;
    std::string url;
};

/// One differing environment component between a good and a bad build.
struct ReportEnvChange {
    std::string component; ///< key, e.g. "cudnn"
    std::string name;      ///< readable name, e.g. "cuDNN"
    std::string before;    ///< good build's value ("" = not recorded)
    std::string after;     ///< bad build's value ("" = not recorded)
};

/// What explains a daily boundary: sources, environment, both (core/environment).
struct ReportAttribution {
    std::string last_good; ///< the boundary's last good nightly
    std::string first_bad; ///< its first bad nightly
    std::string cause;     ///< environment | source | both | unknown | none
    bool commits_known = false;
    bool environment_known = false;
    std::vector<std::string> components;    ///< differing environment components
    std::vector<std::string> changed_repos; ///< repos whose commit differs
    std::vector<ReportEnvChange> diff;      ///< every differing environment entry
    std::string summary;                    ///< one plain-text sentence
};

/// The good → bad window of source states.
struct ReportWindow {
    ReportState last_good;
    ReportState first_bad;
    std::optional<PassFail> good_runs; ///< exit-code mode: every run of the last good state
    std::optional<PassFail> bad_runs;  ///< exit-code mode: every run of the first bad state
};

/// Exit-code mode: the first failing run of a first bad build.
struct ReportFailureLog {
    std::string stage;   ///< "daily" (a nightly) or "hourly" (a source state)
    std::string point;   ///< the nightly's date or the state's time and commits
    std::string log;     ///< log file path
    std::string status;  ///< e.g. "exit status 1", "killed by signal 11 (SIGSEGV)"
    std::string excerpt; ///< last lines, ANSI stripped, secrets masked
};

/// Resources spent.
struct ReportBudget {
    std::optional<long long> runs;   ///< benchmark runs
    std::optional<long long> builds; ///< source builds
    std::optional<double> seconds;   ///< wall time
};

/// Everything a report shows; every part is optional except the metric.
struct ReportInput {
    std::string kind;      ///< "detect", "daily", "hourly" or "investigate"
    std::string benchmark; ///< benchmark name, if known
    std::string metric;    ///< e.g. "MLUPS"
    std::string unit;      ///< may be empty
    Direction direction = Direction::higher_is_better;
    std::string verdict;        ///< the stage's own verdict word, if any
    bool failure_rates = false; ///< exit-code mode: values are failure indicators (1 = failed)
    std::vector<ReportShift> change_points;                      ///< detect
    std::vector<ReportPoint> series;                             ///< detect series, when given
    std::vector<ReportPoint> daily_points;                       ///< daily
    std::vector<ReportShift> boundaries;                         ///< daily
    std::vector<ReportState> hourly_states;                      ///< hourly
    std::optional<ReportWindow> window;                          ///< hourly
    std::map<std::string, std::vector<ReportCommit>> candidates; ///< repo → commits
    std::map<std::string, std::string> repo_urls;                ///< repo → https URL (for links)
    std::optional<ReportCulprit> culprit;
    /// Per daily boundary, when recorded: what explains it (sources, environment, both).
    std::vector<ReportAttribution> attributions;
    /// Exit-code mode: the first failing run's log of each first bad build (daily, hourly).
    std::vector<ReportFailureLog> failure_logs;
    std::vector<ReportPoint> skipped;          ///< failed/skipped points reported by any stage
    std::map<std::string, std::string> runner; ///< runner fingerprint
    ReportBudget budget;
    std::vector<std::string> reproduce; ///< exact commands to reproduce
};

} // namespace perfsweep::core
