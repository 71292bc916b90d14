#include "core/series_collector.hpp"

#include <algorithm>
#include <cstring>
#include <string_view>

namespace perfsweep::core {

namespace {

void put_varint(std::string& out, std::uint64_t v) {
    while (v >= 0x80) {
        out.push_back(static_cast<char>((v & 0x7f) | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<char>(v));
}

void put_text(std::string& out, std::string_view text) {
    put_varint(out, text.size());
    out.append(text);
}

/// Reads back what put_varint and put_text wrote, in order.
struct Reader {
    std::string_view in;
    std::size_t at = 0;
    std::uint64_t varint() {
        std::uint64_t v = 0;
        for (int shift = 0;; shift += 7) {
            const auto byte = static_cast<unsigned char>(in[at++]);
            v |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
            if (!(byte & 0x80))
                return v;
        }
    }
    std::string text() {
        const auto n = static_cast<std::size_t>(varint());
        std::string out(in.substr(at, n));
        at += n;
        return out;
    }
    double number() {
        double d = 0;
        std::memcpy(&d, in.data() + at, sizeof d);
        at += sizeof d;
        return d;
    }
};

} // namespace

void SeriesCollector::add(const Measurement& m, bool keep_point) {
    if (note(series_key(m), m.stage) && keep_point)
        keep(m);
}

bool SeriesCollector::note(const SeriesKey& stored, Stage stage) {
    ++m_records;
    m_noted = nullptr;
    if (stage == Stage::hourly || stage == Stage::commit)
        return false; // evidence records, no points of a series (group_series)
    m_folds_valid = false;
    m_noted = &m_stored[stored];
    ++m_noted->count;
    return true;
}

void SeriesCollector::keep(const Measurement& m) {
    if (!m_noted)
        return;
    const std::uint64_t seq = m_records - 1;
    auto unit = m_unit_ids.find(m.unit);
    if (unit == m_unit_ids.end()) {
        unit = m_unit_ids.emplace(m.unit, static_cast<std::uint32_t>(m_units.size())).first;
        m_units.push_back(m.unit);
    }
    std::string& out = m_noted->packed;
    put_varint(out, seq);
    put_varint(out, unit->second);
    out.push_back(static_cast<char>(static_cast<unsigned>(m.direction) |
                                    static_cast<unsigned>(m.stage) << 1 |
                                    static_cast<unsigned>(m.status) << 3));
    put_varint(out, m.values.size());
    for (double v : m.values)
        out.append(reinterpret_cast<const char*>(&v), sizeof v);
    put_text(out, m.label);
    put_text(out, m.timestamp);
    put_text(out, m.reason);
    put_varint(out, m.exit_codes.size());
    for (int c : m.exit_codes) // zigzag: small negative statuses (signals) stay one byte
        put_varint(out, (static_cast<std::uint64_t>(static_cast<std::int64_t>(c)) << 1) ^
                            static_cast<std::uint64_t>(static_cast<std::int64_t>(c) >> 63));
    put_text(out, m.failure_log);
}

const SeriesCollector::Folds& SeriesCollector::folds() const {
    if (m_folds_valid)
        return m_folds;
    std::set<SeriesKey> stored;
    for (const auto& [key, s] : m_stored)
        stored.insert(stored.end(), key);
    m_folds = {};
    m_folds.to = fold_series_keys(stored);
    for (const auto& [from, to] : m_folds.to)
        m_folds.from[to].push_back(&from);
    m_folds_valid = true;
    return m_folds;
}

std::vector<Series> SeriesCollector::series() const {
    const Folds& f = folds();
    std::vector<Series> out;
    out.reserve(f.from.size());
    for (const auto& [key, sources] : f.from) {
        Series s;
        s.key = key;
        std::map<std::pair<std::string, std::string>, std::size_t> joined;
        for (const SeriesKey* stored : sources) {
            s.stored_benchmarks.insert(stored->benchmark);
            if (*stored != key)
                joined[{stored->benchmark, stored->testbed}] += m_stored.at(*stored).count;
        }
        for (const auto& [from, n] : joined)
            s.notes.push_back(joined_note(key, {from.first, key.metric, from.second}, n));
        out.push_back(std::move(s));
    }
    return out;
}

void SeriesCollector::decode(const SeriesKey& stored, const std::string& packed,
                             std::vector<std::pair<std::uint64_t, Measurement>>& out) const {
    Reader r{packed};
    while (r.at < packed.size()) {
        const std::uint64_t seq = r.varint();
        Measurement m;
        m.benchmark = stored.benchmark;
        m.metric = stored.metric;
        m.unit = m_units.at(static_cast<std::size_t>(r.varint()));
        const auto flags = static_cast<unsigned char>(packed[r.at++]);
        m.direction = static_cast<Direction>(flags & 1);
        m.stage = static_cast<Stage>(flags >> 1 & 3);
        m.status = static_cast<Status>(flags >> 3 & 3);
        m.values.resize(static_cast<std::size_t>(r.varint()));
        for (double& v : m.values)
            v = r.number();
        m.label = r.text();
        m.timestamp = r.text();
        m.reason = r.text();
        m.exit_codes.resize(static_cast<std::size_t>(r.varint()));
        for (int& c : m.exit_codes) {
            const std::uint64_t z = r.varint();
            c = static_cast<int>(static_cast<std::int64_t>(z >> 1) ^
                                 -static_cast<std::int64_t>(z & 1));
        }
        m.failure_log = r.text();
        out.emplace_back(seq, std::move(m));
    }
}

std::vector<Measurement> SeriesCollector::points(const SeriesKey& key) const {
    const Folds& f = folds();
    const auto it = f.from.find(key);
    if (it == f.from.end())
        return {};
    std::vector<std::pair<std::uint64_t, Measurement>> numbered;
    for (const SeriesKey* stored : it->second)
        decode(*stored, m_stored.at(*stored).packed, numbered);
    if (it->second.size() > 1) // points of several stored keys: back in the order given
        std::sort(numbered.begin(), numbered.end(),
                  [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<Measurement> out;
    out.reserve(numbered.size());
    for (auto& [seq, m] : numbered)
        out.push_back(std::move(m));
    return out;
}

} // namespace perfsweep::core
