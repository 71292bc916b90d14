#pragma once
// Port: where measurements are kept between runs (JSON Lines file, git branch, ...).

#include "core/model.hpp"
#include "core/series.hpp"

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace perfsweep::ports {

/// What a load found: the valid records in file order, and problems that were skipped (e.g. a
/// torn last line after a crash), each naming the file and line.
struct HistoryLoad {
    std::vector<core::Measurement> records;
    std::vector<std::string> warnings;
};

/// A file kept beside a history (an investigation's result, ...): its path relative to the
/// directory that holds the history, and its content.
struct SideFile {
    std::string path;
    std::string content;
};

/// Which records a filtered load keeps: those whose benchmark, metric and testbed
/// (core::testbed_of) equal every non-empty field here.
struct HistoryQuery {
    std::string benchmark;
    std::string metric;
    std::string testbed;
    /// True when `m` is of the series asked for.
    bool matches(const core::Measurement& m) const {
        return (benchmark.empty() || m.benchmark == benchmark) &&
               (metric.empty() || m.metric == metric) &&
               (testbed.empty() || core::testbed_of(m) == testbed);
    }
};

/// Receives the records of a scan one at a time.
using RecordVisitor = std::function<void(core::Measurement&&)>;

/// Decides from a record's stored series key and stage whether a scan decodes it whole.
using KeyFilter = std::function<bool(const core::SeriesKey& key, core::Stage stage)>;

/// An append-only store of measurements. Implementations never rewrite or drop existing records.
class HistoryStore {
public:
    virtual ~HistoryStore() = default;
    /// Read every valid record; a missing store is an empty history.
    virtual HistoryLoad load() = 0;
    /// The valid records `query` matches, in store order, with the warnings of load().
    HistoryLoad load_matching(const HistoryQuery& query) {
        HistoryLoad out;
        out.warnings = scan_series(
            query.metric,
            [&](const core::SeriesKey& k, core::Stage) {
                return (query.benchmark.empty() || k.benchmark == query.benchmark) &&
                       (query.testbed.empty() || k.testbed == query.testbed);
            },
            [&](core::Measurement&& m) { out.records.push_back(std::move(m)); });
        return out;
    }
    /// Hand every valid record to `visit` in store order without keeping them all (a pass over
    /// every series in bounded memory); returns load()'s warnings.
    virtual std::vector<std::string> scan(const RecordVisitor& visit) {
        HistoryLoad all = load();
        for (auto& m : all.records)
            visit(std::move(m));
        return std::move(all.warnings);
    }
    /// scan() of the valid records of `metric` ("" = every metric): `keep` gets the stored series
    /// key (core::series_key) and stage of each, in store order, and `visit` gets those records
    /// `keep` says true for (every one when `keep` is empty). A store may read only the key of
    /// the others (the default decodes all), and may skip other metrics' records undecoded.
    virtual std::vector<std::string> scan_series(const std::string& metric, const KeyFilter& keep,
                                                 const RecordVisitor& visit) {
        return scan([&](core::Measurement&& m) {
            if (!metric.empty() && m.metric != metric)
                return;
            if (!keep || keep(core::series_key(m), m.stage))
                visit(std::move(m));
        });
    }
    /// Append `records` atomically (all or nothing, never interleaved with another writer).
    virtual void append(const std::vector<core::Measurement>& records) = 0;
    /// Append, atomically like append(), those of `records` not stored yet (a re-import adds
    /// nothing): of k identical records in `records` and j identical ones stored, k - j are
    /// appended, compared under the store's write lock. Returns how many were appended.
    virtual std::size_t append_missing(const std::vector<core::Measurement>& records) = 0;
    /// Keep `files` beside the history, replacing files of the same path: next to a JSON Lines
    /// file (each file replaced atomically), or in a git branch next to the history file (all in
    /// one commit, retried like an append). Paths are relative, of names made of [A-Za-z0-9._-]
    /// (never "." or ".."), and never the history file itself; anything else is a usage error.
    virtual void write_beside(const std::vector<SideFile>& files) = 0;
    /// Every file kept beside the history under the relative folder `folder` (recursively),
    /// sorted by path; none when the folder does not exist.
    virtual std::vector<SideFile> read_beside(const std::string& folder) = 0;
    /// Human-readable location, for messages ("history.jsonl", "git:perfsweep-data").
    virtual std::string describe() const = 0;
};

/// Opens history stores by their spec.
class HistoryStores {
public:
    virtual ~HistoryStores() = default;
    /// The history named by `spec` ("path.jsonl", "git:BRANCH", ...). Throws a usage error on a
    /// bad spec.
    virtual std::unique_ptr<HistoryStore> open(const std::string& spec) = 0;
};

} // namespace perfsweep::ports
