#pragma once
// What a series is: the points of one benchmark's one metric on one class of machine (testbed).
// Points of different series are never pooled (detect, the sweeps, the dashboard).

#include "core/detect.hpp"
#include "core/model.hpp"

#include <compare>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace perfsweep::core {

/// The identity of a series: (benchmark name, metric, testbed).
struct SeriesKey {
    std::string benchmark; ///< the benchmark's name (not its command line)
    std::string metric;    ///< e.g. "MLUPS"
    std::string testbed;   ///< the machine class, e.g. "H100 80GB HBM3"; "" when unknown
    /// Ordered by benchmark, metric, testbed.
    auto operator<=>(const SeriesKey&) const = default;
};

/// The machine class of a GPU name as nvidia-smi prints it: vendor words ("NVIDIA", "Tesla",
/// "GeForce") dropped and blanks folded ("NVIDIA H100 80GB HBM3" → "H100 80GB HBM3"); "" stays "".
std::string gpu_class(std::string_view gpu_name);

/// The testbed of a point: its runner's explicit "testbed" entry (--testbed), else the class of
/// its runner's GPU (`gpu_class(runner["gpu"])`), else "".
std::string testbed_of(const Measurement& m);

/// testbed_of for a runner whose "testbed" and "gpu" entries are these (nullptr: no such entry).
std::string testbed_of(const std::string* testbed, const std::string* gpu);

/// The series `m` belongs to, as stored (core::group_series also folds older names).
SeriesKey series_key(const Measurement& m);

/// "benchmark · metric · testbed" (the testbed part only when it is known), for tables and titles.
std::string to_string(const SeriesKey& key);

/// The benchmark name a test command gets when --benchmark is not given: the name of the program
/// or script it runs, which stays the same when its arguments change. Leading NAME=VALUE words,
/// `env` and its options, and interpreters (sh, bash, python3, node, ...) with their options are
/// skipped; `python3 -m MOD` names MOD; the path is dropped. "bash bench/run.sh 256 200" →
/// "run.sh", "python3 MLUPS3d.py 256 200" → "MLUPS3d.py", "./lbm --size 256" → "lbm". A command
/// that cannot be split (an unclosed quote) or names only an interpreter keeps its first word.
std::string default_benchmark_name(std::string_view command);

/// Whether a stored benchmark name is a command line that earlier perfsweep versions stored when
/// --benchmark was not given (its default was the whole test command): two or more words whose
/// program is an interpreter or a path/file name ("bash test.sh 256 200", "./lbm 256",
/// "MLUPS3d.py 256 200"), not a name such as "Rust Benchmark".
bool is_legacy_command_name(std::string_view name);

/// The points of one series, with how points stored under other names joined it.
struct Series {
    SeriesKey key;
    std::vector<Measurement> points; ///< in the order they were given
    /// One line per group of points that joined under another stored name, e.g. "12 points
    /// recorded under the command line 'bash test.sh 256 200' (the old default name)".
    std::vector<std::string> notes;
    std::set<std::string> stored_benchmarks; ///< every benchmark name its points were stored under
};

/// Split `all` into series (ordered by key). Three folds, each only where it is unambiguous and
/// each told in the series' notes: (1) a legacy command-line name (is_legacy_command_name) joins
/// its default name when points were recorded under that name too (the upgrade), unless two
/// command lines of the same metric and testbed have the same default name; (2) points without a
/// benchmark name (a CSV or grep import without --benchmark) join the one named benchmark of their
/// metric (and testbed, when it is known); (3) points without a testbed (no GPU recorded, no
/// --testbed) join the one known testbed of their benchmark and metric. Points of two known
/// testbeds, benchmarks or metrics never pool. The hourly and commit stages' records (rebuilt
/// source states kept as evidence, core/evidence) are no points of a series and are left out.
std::vector<Series> group_series(std::vector<Measurement> all);

/// group_series's three folds over the distinct stored keys of a history (the record and daily
/// stages' points): the series each stored key joins. The folds depend only on which keys are
/// there, not on how many points each has, so a streamed history needs only its keys.
std::map<SeriesKey, SeriesKey> fold_series_keys(const std::set<SeriesKey>& stored);

/// The note of the series `key` (Series::notes) that `n` points stored under `stored` joined it.
std::string joined_note(const SeriesKey& key, const SeriesKey& stored, std::size_t n);

/// Which series a command asks for; an empty field matches every value.
struct SeriesSelector {
    std::string benchmark;
    std::string metric;
    std::string testbed;
    /// Whether `key` is selected.
    bool matches(const SeriesKey& key) const;
    /// Whether `series` is selected, by its key or by a benchmark name its points were stored
    /// under (an older name that joined it).
    bool matches(const Series& series) const;
    /// Whether nothing is selected (every series).
    bool all() const { return benchmark.empty() && metric.empty() && testbed.empty(); }
    /// Whether a point stored under `stored` (core::series_key) can be in a series this selects,
    /// whatever else the history holds (true for some that are not, never false for one that
    /// is): a history is read whole only for those points.
    bool may_hold(const SeriesKey& stored) const;
};

/// The points of `all` that a sweep over the series `wanted` reuses (the daily stage's history
/// points). One rule with detect: the points of every series core::group_series forms that
/// `wanted` selects, so points stored under an older name that joined it count too. One more,
/// for the first sweep after the upgrade (no point carries the benchmark name yet): when no
/// series carries `wanted.benchmark`, the points of the one legacy command-line name
/// (is_legacy_command_name) whose default name it is; two such command lines are two benchmarks
/// ("run.sh 256" and "run.sh 512") and neither is taken. Points of other metrics never join.
std::vector<Measurement> points_of_series(std::vector<Measurement> all,
                                          const SeriesSelector& wanted);

/// One series' detect result among many (`detect` over a whole history, investigate's input).
struct SeriesDetect {
    SeriesKey key;
    std::vector<std::string> notes; ///< points that joined under another name (Series::notes)
    DetectResult result;
};

/// The worst of `verdicts`: regression, then inconclusive, then improvement, then no_regression
/// (inconclusive when there is none).
Verdict worst_verdict(const std::vector<Verdict>& verdicts);

/// The worst verdict of `series` (inconclusive when empty).
Verdict worst_verdict(const std::vector<SeriesDetect>& series);

} // namespace perfsweep::core
