#include "app/run_point.hpp"

#include "util/error.hpp"

namespace perfsweep::app {

std::vector<core::Measurement> run_point_metrics(ports::PointRunner& runner,
                                                 ports::Builder* builder,
                                                 const ports::PointRequest& request,
                                                 ports::HistoryStore* history) {
    std::vector<core::Measurement> out;
    if (builder) {
        const auto step = builder->build(request);
        if (!step.ok) {
            // Describe the point as the runner would, but without running the benchmark.
            core::Measurement m;
            m.label = request.label;
            m.stage = request.stage;
            m.commits = request.commits;
            m.commit_times = request.commit_times;
            m.status = core::Status::failed;
            m.reason = "build: " + step.reason;
            m.log = step.log;
            out.push_back(std::move(m));
        }
    }
    if (out.empty()) {
        out = runner.run_points({request});
        if (out.empty())
            throw_infra("the runner returned no measurement for one point");
    }
    if (history)
        history->append(out);
    return out;
}

core::Measurement run_point(ports::PointRunner& runner, ports::Builder* builder,
                            const ports::PointRequest& request, ports::HistoryStore* history) {
    auto all = run_point_metrics(runner, builder, request, history);
    if (all.size() != 1)
        throw_infra("the runner returned " + std::to_string(all.size()) +
                    " measurements for one point of one metric");
    return std::move(all.front());
}

} // namespace perfsweep::app
