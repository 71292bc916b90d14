#include "support/fakes/memory_repo.hpp"

#include "util/error.hpp"

#include <cstdio>

namespace perfsweep::fakes {

namespace {

class MemoryRepo final : public ports::SourceRepo {
public:
    MemoryRepo(const CommitLine& line, MemoryRepos& owner)
        : m_line(line), m_owner(owner),
          m_head(line.commits.empty() ? "" : line.commits.back().sha) {}
    const std::string& name() const override { return m_line.name; }
    const std::string& path() const override { return m_line.path; }
    bool is_shallow() override { return false; }
    std::string resolve(const std::string& ref) override {
        if (ref == "HEAD")
            return m_head;
        if (ref == "origin/main" || ref == "main")
            return m_line.commits.back().sha;
        for (const auto& c : m_line.commits)
            if (c.sha == ref || (ref.size() >= 7 && c.sha.rfind(ref, 0) == 0))
                return c.sha;
        throw_usage("--repo " + m_line.name + "=" + m_line.path + ": unknown revision '" + ref +
                    "'");
    }
    std::vector<core::CommitInfo> first_parent_history(const std::string& ref,
                                                       util::UnixSeconds since) override {
        std::vector<core::CommitInfo> out;
        for (std::size_t i = m_line.index_of(resolve(ref)) + 1; i-- > 0;) {
            out.push_back(m_line.commits[i]);
            if (m_line.commits[i].time <= since)
                break;
        }
        return out;
    }
    std::vector<core::CommitInfo> reachable(const std::string& ref) override {
        const auto end = m_line.index_of(resolve(ref));
        return {m_line.commits.begin(), m_line.commits.begin() + static_cast<long>(end) + 1};
    }
    core::CommitInfo commit(const std::string& sha) override {
        return m_line.commits.at(m_line.index_of(resolve(sha)));
    }
    std::string head() override { return m_head; }
    void checkout(const std::string& sha) override {
        m_head = m_line.sha(m_line.index_of(sha));
        m_owner.checkouts.push_back(m_line.name + "@" + m_head);
    }
    std::string remote_url(const std::string& remote) override {
        return remote == "origin" ? m_line.remote : "";
    }
    void fetch(const std::string& remote, const std::string&) override {
        throw_usage("--repo " + m_line.name + ": no remote '" + remote + "' to fetch");
    }

private:
    const CommitLine& m_line;
    MemoryRepos& m_owner;
    std::string m_head;
};

} // namespace

std::size_t CommitLine::at_time(util::UnixSeconds t) const {
    std::size_t best = 0;
    for (std::size_t i = 0; i < commits.size(); ++i)
        if (commits[i].time <= t)
            best = i;
    return best;
}

std::size_t CommitLine::index_of(const std::string& s) const {
    for (std::size_t i = 0; i < commits.size(); ++i)
        if (commits[i].sha == s)
            return i;
    throw_usage("repo " + name + ": no commit '" + s + "'");
}

CommitLine make_line(const std::string& name, const std::string& path, util::UnixSeconds start,
                     int count, util::UnixSeconds every) {
    CommitLine line{name, path, {}, ""};
    unsigned seed = 0;
    for (char c : name)
        seed = seed * 31 + static_cast<unsigned char>(c);
    for (int i = 0; i < count; ++i) {
        char sha[41];
        // The first 8 digits differ per commit (a bijection of the index), like real SHAs'
        // prefixes; the index stays readable at the end.
        std::snprintf(sha, sizeof sha, "%08x%08x%08x%08x%08x",
                      seed ^ (static_cast<unsigned>(i) * 0x9e3779b1u), seed, 0xc0ffeeu, 0u,
                      static_cast<unsigned>(i));
        core::CommitInfo c;
        c.sha = sha;
        c.time = start + i * every;
        c.author = "dev";
        c.subject = name + " change " + std::to_string(i);
        if (!line.commits.empty())
            c.parents.push_back(line.commits.back().sha);
        line.commits.push_back(std::move(c));
    }
    return line;
}

std::unique_ptr<ports::SourceRepo> MemoryRepos::open(const std::string& name,
                                                     const std::string& path) {
    const auto it = m_lines.find(path);
    if (it == m_lines.end() || it->second.name != name)
        throw_usage("--repo " + name + "=" + path + ": not a git repository");
    ++opened;
    return std::make_unique<MemoryRepo>(it->second, *this);
}

} // namespace perfsweep::fakes
