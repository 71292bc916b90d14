#include "support/local_world.hpp"

#include "adapters/git/libgit2_repo.hpp"
#include "adapters/history/jsonl_store.hpp"
#include "adapters/json/result_json.hpp"
#include "adapters/process/process_runner.hpp"
#include "adapters/slurm/held_allocation.hpp"
#include "app/hourly.hpp"
#include "app/jax_toolbox.hpp"
#include "app/options.hpp"
#include "core/exit_policy.hpp"
#include "report/result_json.hpp"
#include "support/command_values.hpp"
#include "util/error.hpp"

#include <tuple>

namespace perfsweep::test {

std::unique_ptr<ports::HistoryStore> LocalHistories::open(const std::string& spec) {
    return std::make_unique<adapters::JsonlHistoryStore>(spec);
}

std::unique_ptr<ports::BuildingRunner> LocalRunners::make(const ports::RunnerConfig& config) {
    if (config.runtime == "slurm" && config.kept_container)
        return adapters::make_held_allocation_runner(config, m_progress, m_clock);
    return std::make_unique<adapters::ProcessRunner>(config, m_progress, m_clock);
}

std::unique_ptr<ports::SourceRepo> LocalRepos::open(const std::string& name,
                                                    const std::string& path) {
    return adapters::open_libgit2_repo(name, path);
}

Ran run_in(LocalWorld& w, const std::function<void(Ran&)>& body) {
    Ran r;
    try {
        body(r);
    } catch (const Error& e) {
        r.err = std::string(e.what()) + "\n";
        r.exit_code = e.kind() == ErrorKind::usage ? 2 : 3;
    }
    for (const auto& line : w.progress.lines)
        r.err += line + "\n";
    return r;
}

Ran hourly_in_process(const std::vector<std::string>& args) {
    LocalWorld w;
    return run_in(w, [&](Ran& r) {
        auto req = app::resolve_hourly(command_values("hourly", options_of_args(args)));
        auto& o = req.options;
        w.secrets.protect_env(o.token_env);
        if (!req.from_result.empty())
            std::tie(o.from, o.to) = app::hourly_window_of(
                adapters::read_result_document(w.files.read_text(req.from_result), req.from_result),
                req.from_result);
        o.secrets = w.secrets.values();
        const auto result =
            req.runner ? app::run_source_search(o, *req.runner, req.jax_toolbox, w.adapters)
                       : app::plan_hourly(o, w.adapters);
        r.out = report::render_json(result); // what --json prints
        r.exit_code = core::hourly_exit_code(result);
    });
}

} // namespace perfsweep::test
