#include "support/fakes/memory.hpp"

#include "adapters/history/side_files.hpp"
#include "util/error.hpp"

#include <algorithm>

namespace perfsweep::fakes {

namespace {

std::string parent_of(const std::string& path) {
    const auto slash = path.rfind('/');
    return slash == std::string::npos || slash == 0 ? std::string() : path.substr(0, slash);
}

bool ends_with(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

/// A view of one shared history; appends are all or nothing (nothing can fail half-way here).
class MemoryHistory final : public ports::HistoryStore {
public:
    MemoryHistory(std::string spec, HistoryData& data) : m_spec(std::move(spec)), m_data(data) {}
    ports::HistoryLoad load() override { return {m_data.records, {}}; }
    void append(const std::vector<core::Measurement>& records) override {
        if (++m_data.append_calls == m_data.kill_at_append)
            throw_infra("history " + m_spec + ": killed before the append");
        if (records.empty())
            return;
        m_data.records.insert(m_data.records.end(), records.begin(), records.end());
        ++m_data.appends;
    }
    std::size_t append_missing(const std::vector<core::Measurement>& records) override {
        if (records.empty())
            return 0;
        std::vector<const core::Measurement*> stored;
        for (const auto& r : m_data.records)
            stored.push_back(&r);
        std::vector<core::Measurement> add;
        for (const auto& m : records) {
            // k identical records against j stored append k - j, as the real stores do
            auto it = std::find_if(stored.begin(), stored.end(),
                                   [&](const core::Measurement* s) { return same_record(*s, m); });
            if (it != stored.end()) {
                stored.erase(it);
                continue;
            }
            add.push_back(m);
        }
        append(add); // counted as one call, like the real stores' one locked write
        return add.size();
    }
    void write_beside(const std::vector<ports::SideFile>& files) override {
        adapters::check_side_files(files, "history.jsonl", m_spec); // the real stores' rules
        for (const auto& f : files)
            m_data.beside[f.path] = f.content;
    }
    std::vector<ports::SideFile> read_beside(const std::string& folder) override {
        if (const std::string why = adapters::side_path_problem(folder); !why.empty())
            throw_usage("folder '" + folder + "': " + why);
        std::vector<ports::SideFile> out;
        for (const auto& [path, content] : m_data.beside)
            if (path.rfind(folder + "/", 0) == 0)
                out.push_back({path, content});
        return out;
    }
    std::string describe() const override { return m_spec; }

private:
    std::string m_spec;
    HistoryData& m_data;
};

} // namespace

std::string MemoryFiles::read_text(const std::string& path) {
    if (path == "-")
        return stdin_text;
    const auto it = files.find(path);
    if (it == files.end())
        throw_usage("cannot read '" + path + "': No such file or directory");
    return it->second;
}

void MemoryFiles::write_atomic(const std::string& path, const std::string& content) {
    if (dirs.count(path))
        throw_infra("cannot replace '" + path + "': Is a directory");
    if (const auto p = parent_of(path); !p.empty())
        make_dirs(p);
    files[path] = content;
    ++writes;
}

bool MemoryFiles::exists(const std::string& path) {
    return files.count(path) || dirs.count(path) || links.count(path);
}

void MemoryFiles::make_dirs(const std::string& path) {
    if (files.count(path))
        throw_infra("cannot create directory '" + path + "': File exists");
    for (std::string p = path; !p.empty(); p = parent_of(p))
        dirs.insert(p);
}

void MemoryFiles::remove_tree(const std::string& path) {
    const auto below = [&](const std::string& p) {
        return p == path || p.rfind(path + "/", 0) == 0;
    };
    std::erase_if(files, [&](const auto& kv) { return below(kv.first); });
    std::erase_if(dirs, [&](const std::string& d) { return below(d); });
    std::erase_if(links, [&](const auto& kv) { return below(kv.first); });
}

void MemoryFiles::point_link(const std::string& link, const std::string& target) {
    links[link] = target;
}

std::vector<std::string> MemoryFiles::result_files(const std::string& path) {
    if (files.count(path))
        return {path};
    if (!dirs.count(path))
        throw_usage("merge input '" + path + "': no such file or directory");
    std::vector<std::string> out;
    for (const auto& [p, text] : files)
        if (p.rfind(path + "/", 0) == 0 && (ends_with(p, ".json") || ends_with(p, ".jsonl")))
            out.push_back(p);
    return out; // std::map keeps them sorted
}

std::unique_ptr<ports::DirLock> MemoryFiles::lock_dir(const std::string& dir,
                                                      const std::string& what) {
    if (held_elsewhere.count(dir))
        throw_infra("another perfsweep (pid 1, since 2023-08-24T12:00:00Z) holds " + what);
    make_dirs(dir);
    ++locked[dir];
    return std::make_unique<ports::DirLock>();
}

std::unique_ptr<ports::HistoryStore> MemoryHistories::open(const std::string& spec) {
    if (spec.empty())
        throw_usage("--history: empty path; expected a JSON Lines file such as history.jsonl");
    return std::make_unique<MemoryHistory>(spec, m_data[spec]);
}

bool same_record(const core::Measurement& a, const core::Measurement& b) {
    return a.benchmark == b.benchmark && a.metric == b.metric && a.unit == b.unit &&
           a.direction == b.direction && a.values == b.values && a.label == b.label &&
           a.timestamp == b.timestamp && a.stage == b.stage && a.image == b.image &&
           a.digest == b.digest && a.commits == b.commits && a.commit_times == b.commit_times &&
           a.runner == b.runner && a.environment == b.environment && a.status == b.status &&
           a.reason == b.reason && a.log == b.log && a.exit_codes == b.exit_codes &&
           a.failure_log == b.failure_log;
}

void RecordingActions::set_outputs(const std::map<std::string, std::string>& o) {
    if (!active)
        return;
    for (const auto& [k, v] : o)
        outputs[k] = v;
}

void RecordingActions::append_summary(const std::string& markdown) {
    if (active)
        summary += markdown;
}

void RecordingActions::annotate(const std::string& level, const std::string& title,
                                const std::string& message) {
    if (active)
        annotations.push_back(level + ": " + title + ": " + message);
}

void FakeSecrets::protect_env(const std::string& name) {
    if (!name.empty())
        protected_names.insert(name);
}

} // namespace perfsweep::fakes
