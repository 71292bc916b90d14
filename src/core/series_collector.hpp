#pragma once
// The series of core::group_series, built from measurements given one at a time (a history read
// as a stream) in bounded memory: of each point only what core::detect reads is kept, packed
// into its stored series' buffer (about 40 bytes a point of a nightly history, instead of about
// 1 KB as a Measurement), and a series' points are rebuilt one series at a time.

#include "core/model.hpp"
#include "core/series.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace perfsweep::core {

/// Collects a history's records one at a time; series() and points() then give what
/// group_series would give for the same records in the same order, except that the points keep
/// only the fields detect reads (benchmark, metric, unit, direction, values, label, timestamp,
/// stage, status, reason, exit_codes, failure_log; not runner, image, commits, environment, log).
class SeriesCollector {
public:
    /// Take the next record. The hourly and commit stages' records are counted and left out, as
    /// group_series does; `keep_point` false notes only the record's series (to list them).
    void add(const Measurement& m, bool keep_point = true);
    /// add() in two steps, for a scan that reads a record's key before (and maybe instead of)
    /// the record: note the next record's stored key (core::series_key) and stage; true when
    /// it is a point of a series (not of the hourly or commit stage).
    bool note(const SeriesKey& stored, Stage stage);
    /// ... then keep the point just noted (`m` is that record).
    void keep(const Measurement& m);
    /// How many records were given (every stage).
    std::size_t records() const { return static_cast<std::size_t>(m_records); }
    /// Every series, ordered by key, with its notes and stored names; its points are left empty
    /// (points() gives them).
    std::vector<Series> series() const;
    /// The points of the series `key` (as series() names it) in the order they were given.
    std::vector<Measurement> points(const SeriesKey& key) const;

private:
    /// The points stored under one series key (before the folds), packed.
    struct Stored {
        std::size_t count = 0;
        std::string packed;
    };
    /// The folds over the stored keys, and the stored keys of each folded series.
    struct Folds {
        std::map<SeriesKey, SeriesKey> to;
        std::map<SeriesKey, std::vector<const SeriesKey*>> from;
    };
    const Folds& folds() const;
    void decode(const SeriesKey& stored, const std::string& packed,
                std::vector<std::pair<std::uint64_t, Measurement>>& out) const;

    std::map<SeriesKey, Stored> m_stored;
    std::vector<std::string> m_units; ///< the distinct units, by id
    std::unordered_map<std::string, std::uint32_t> m_unit_ids;
    std::uint64_t m_records = 0;
    Stored* m_noted = nullptr; ///< where the point note() took goes
    mutable Folds m_folds;
    mutable bool m_folds_valid = false;
};

} // namespace perfsweep::core
