// The hourly and commit stages in-process (in-memory repos, a scripted builder and runner): every
// build and run counted once, the same in the result as at the runner, no state built twice, one
// run per state inside the window.
#include "app/hourly.hpp"
#include "support/fakes/world.hpp"

#include <catch2/catch.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

using namespace perfsweep;

namespace {

/// One repo's main line in memory (oldest first), a commit every 40 minutes.
class MemRepo final : public ports::SourceRepo {
public:
    MemRepo(std::string name, util::UnixSeconds start, int commits) : m_name(std::move(name)) {
        for (int i = 0; i < commits; ++i) {
            core::CommitInfo c;
            c.sha = m_name + "-" + std::to_string(i);
            c.time = start + i * 2400;
            c.subject = "change " + std::to_string(i);
            if (!m_main.empty())
                c.parents.push_back(m_main.back().sha);
            m_index[c.sha] = m_main.size();
            m_main.push_back(c);
        }
    }
    const std::string& name() const override { return m_name; }
    const std::string& path() const override { return m_path; }
    bool is_shallow() override { return false; }
    std::string resolve(const std::string&) override { return m_main.back().sha; }
    std::vector<core::CommitInfo> first_parent_history(const std::string&,
                                                       util::UnixSeconds since) override {
        std::vector<core::CommitInfo> out;
        for (auto it = m_main.rbegin(); it != m_main.rend(); ++it) {
            out.push_back(*it);
            if (it->time <= since)
                break;
        }
        return out;
    }
    std::vector<core::CommitInfo> reachable(const std::string&) override { return m_main; }
    core::CommitInfo commit(const std::string& sha) override { return m_main.at(m_index.at(sha)); }
    std::string head() override { return m_head; }
    void checkout(const std::string& sha) override { m_head = sha; }
    std::string remote_url(const std::string&) override { return ""; }
    void fetch(const std::string&, const std::string&) override {}
    std::size_t index_of(const std::string& sha) const { return m_index.at(sha); }

private:
    std::string m_name, m_path = "/src/xla", m_head;
    std::vector<core::CommitInfo> m_main;
    std::map<std::string, std::size_t> m_index;
};

/// Builds and runs are counted per state; from commit `culprit` on the metric is 10 % lower
/// (0.04 % noise, deterministic).
class ScriptedBench final : public ports::PointRunner, public ports::Builder {
public:
    ScriptedBench(const MemRepo& repo, std::size_t culprit) : m_repo(repo), m_culprit(culprit) {}
    ports::StepOutcome build(const ports::PointRequest& r) override {
        ++builds[r.commits.at("xla")];
        return {true, "", ""};
    }
    std::vector<core::Measurement>
    run_points(const std::vector<ports::PointRequest>& reqs) override {
        std::vector<core::Measurement> out;
        for (const auto& r : reqs) {
            core::Measurement m;
            m.metric = "MLUPS";
            m.label = r.label;
            const auto& sha = r.commits.at("xla");
            const bool bad = m_repo.index_of(sha) >= m_culprit;
            for (int k = 0; k < r.repeats; ++k) {
                const int n = ++runs[sha];
                m.values.push_back((bad ? 90.0 : 100.0) * (1 + 0.0004 * ((n * 7) % 5 - 2) / 2));
            }
            out.push_back(std::move(m));
        }
        return out;
    }
    int workers() const override { return 1; }
    std::map<std::string, int> builds, runs;

private:
    const MemRepo& m_repo;
    std::size_t m_culprit;
};

/// Opens copies of one MemRepo.
class OneRepo final : public ports::SourceRepos {
public:
    explicit OneRepo(const MemRepo& repo) : m_repo(repo) {}
    std::unique_ptr<ports::SourceRepo> open(const std::string&, const std::string&) override {
        return std::make_unique<MemRepo>(m_repo);
    }

private:
    const MemRepo& m_repo;
};

long total(const std::map<std::string, int>& m) {
    long n = 0;
    for (const auto& [k, v] : m)
        n += v;
    return n;
}

} // namespace

TEST_CASE("hourly to the commit builds no state twice and counts every build and run once",
          "[app][hourly][spend]") {
    const util::UnixSeconds start = 1692835200; // 2023-08-24T00:00:00Z
    for (std::size_t culprit : {9u, 23u, 40u, 57u}) {
        INFO("culprit xla-" << culprit);
        MemRepo repo("xla", start - 3600, 90); // 60 hours of commits, 40 minutes apart
        ScriptedBench bench(repo, culprit);
        app::HourlyOptions o;
        o.repos.push_back({"xla", "/src/xla", "origin/main"});
        o.from = util::time_at(start);
        o.to = util::time_at(start + 56 * 3600);
        o.to_commit = true;
        fakes::World w;
        OneRepo repos(repo);
        ports::Adapters a{w.files,   w.progress, w.clock,      w.actions, w.histories,
                          w.runners, repos,      w.code_hosts, w.secrets, w.demo_world};
        const auto r = app::run_hourly(o, a, {bench, bench});
        REQUIRE(r.culprit);
        CHECK(r.culprit->commit.sha == "xla-" + std::to_string(culprit));
        // Counted once: the result says what the builder and runner saw.
        CHECK(r.spend.builds == total(bench.builds));
        CHECK(r.spend.runs == total(bench.runs));
        CHECK(r.spend.resumed_builds == 0);
        // Never the same state twice: the commit stage reuses the hourly stage's states.
        for (const auto& [sha, n] : bench.builds) {
            INFO(sha);
            CHECK(n == 1);
        }
        // Repeats by need: the window ends get --repeats runs, the states inside one each at a
        // 10 % step with 0.04 % noise.
        long inside = 0;
        for (const auto& [sha, n] : bench.runs)
            inside += n > 1 ? 0 : 1;
        CHECK(total(bench.runs) == inside + 2 * o.repeats);
        CHECK(r.spend.builds <= 10);
    }
}
