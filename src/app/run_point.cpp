#include "app/run_point.hpp"

#include "util/error.hpp"

namespace perfsweep::app {

core::Measurement run_point(ports::PointRunner& runner, ports::Builder* builder,
                            const ports::PointRequest& request, ports::HistoryStore* history) {
    core::Measurement m;
    bool measured = false;
    if (builder) {
        const auto step = builder->build(request);
        if (!step.ok) {
            // Describe the point as the runner would, but without running the benchmark.
            m.label = request.label;
            m.stage = request.stage;
            m.commits = request.commits;
            m.commit_times = request.commit_times;
            m.status = core::Status::failed;
            m.reason = "build: " + step.reason;
            m.log = step.log;
            measured = true;
        }
    }
    if (!measured) {
        auto results = runner.run_points({request});
        if (results.size() != 1)
            throw_infra("the runner returned " + std::to_string(results.size()) +
                        " measurements for one point");
        m = std::move(results[0]);
    }
    if (history)
        history->append({m});
    return m;
}

} // namespace perfsweep::app
