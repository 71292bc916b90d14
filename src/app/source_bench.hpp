#pragma once
// The I/O side of the hourly and commit stages: checks the repos out, builds, runs, and records
// every finished build and run in the journal (--state) and the book (core/source_plan) before
// the next starts; its search drives the pure source planner.

#include "app/hourly.hpp"
#include "app/journal_file.hpp"
#include "core/evidence.hpp"
#include "core/source_plan.hpp"
#include "core/source_states.hpp"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace perfsweep::app {

/// What measuring a state gave.
struct Eval {
    /// unknown: measured (its level is the search's to decide); untested: the budget stopped it;
    /// build_failed or test_failed: skipped, `reason` says why.
    core::StateStatus status = core::StateStatus::untested;
    std::vector<double> values; ///< every value of the state so far
    std::string reason;         ///< why it was not measured
    /// Whether it measured.
    bool measured() const { return status == core::StateStatus::unknown; }
    /// Whether the budget stopped it.
    bool budget() const { return status == core::StateStatus::untested; }
};

/// The builder and runner of source states, with their journal and book.
class SourceBench {
public:
    /// A bench over `repos` (opened by the stage), writing spend and metric into `result`; opens
    /// the journal of options.state_dir and reads back what an earlier invocation recorded.
    SourceBench(const HourlyOptions& options, ports::Adapters& adapters,
                const SourceInstruments& with,
                std::vector<std::unique_ptr<ports::SourceRepo>>& repos, core::HourlyResult& result);

    /// Ask the evidence (SourceInstruments::evidence) about the window ends before they are
    /// measured: a state's exact values join the book; the same sources' values built otherwise
    /// wait for measure()'s confirming run. The ends' levels give the step that run is held to.
    void consult_ends(const core::SourceState& good, const core::SourceState& bad);
    /// State `p` measured with at least --repeats values (runs only what is missing); the
    /// evidence counts: one confirming run admits the same sources' values built otherwise (one
    /// such run per stage: it checks the recipe).
    Eval measure(const core::SourceState& p, core::Stage stage);
    /// `runs` more runs of a measured state; on success every value of the state so far.
    Eval more(const core::SourceState& p, core::Stage stage, int runs);
    /// Narrow `points` with the source planner (the shared sweep planner plus what every build
    /// and run so far says): a next/run/observe loop. Returns the planner's result and each
    /// point's outcome (core::search_status, its values and why it was skipped); `stopped` tells
    /// whether the budget cut it short.
    core::SweepResult search(const std::vector<core::SourceState>& points, core::Stage stage,
                             core::SweepStrategy strategy, std::vector<core::StateOutcome>& outs,
                             bool& stopped);
    /// Set the values of every tested state in `states` to all the values measured for it.
    void refresh(std::vector<core::StateOutcome>& states) const;
    /// Point OUTPUTS/last-good and OUTPUTS/first-bad at the output dirs of `good` and `bad`.
    void link_outputs(const core::SourceState& good, const core::SourceState& bad);
    /// What is known about a state, if anything.
    const core::StateFacts* facts(const core::SourceState& p) const;

private:
    void load_evidence();
    void consult(const core::SourceState& p);
    void confirm(const core::SourceState& p, core::Stage stage);
    void record_evidence(core::Measurement m) const;
    bool budget_left(bool needs_build) const;
    ports::PointRequest request(const core::SourceState& p, core::Stage stage) const;
    Eval run_state(const core::SourceState& p, core::Stage stage, int runs);
    bool build(const std::string& key, const ports::PointRequest& req);
    bool put_back(const std::string& key, ports::PointRequest& req);
    std::string build_key(const std::string& key) const;
    void checkout(const core::SourceState& p);
    void add(const core::JournalEvent& e);
    void report(const core::SourceState& p, const std::string& what);

    const HourlyOptions& m_opt;
    ports::Adapters& m_a;
    const SourceInstruments& m_with;
    std::vector<std::unique_ptr<ports::SourceRepo>>& m_repos;
    core::HourlyResult& m_result;
    JournalFile m_journal;
    core::SourceBook m_book;
    double m_start = 0;
    bool m_checked_out = false; ///< this process checked the repos out (their worktrees are known)
    std::string m_built_key;    ///< the state the build output is of ("" = unknown)
    std::string m_outputs_line; ///< the last "outputs:" line printed
    std::optional<BuildStore> m_store; ///< kept builds (options.builds), when on
    std::string m_recipe;              ///< the recipe identity of every build key
    // The evidence: the store's records of this series and runner, what each state was told.
    std::vector<core::Measurement> m_evidence;
    core::EvidenceKey m_want;                        ///< this stage's key, less the commits
    std::map<std::string, std::size_t> m_consulted;  ///< key → values the book knew before
    std::map<std::string, core::Evidence> m_pending; ///< same sources, awaiting confirmation
    std::optional<bool> m_recipe_agrees;             ///< the confirming run's verdict
    double m_step = 0;                               ///< |good end level - bad end level|
};

/// The key of a state in the journal and the book: "repo=sha,..." (sorted by repo).
std::string state_key(const std::map<std::string, std::string>& commits);

} // namespace perfsweep::app
