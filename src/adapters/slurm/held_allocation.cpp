#include "adapters/slurm/held_allocation.hpp"

#include "adapters/process/process.hpp"
#include "core/jax_toolbox.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

#include <unistd.h>

#include <cmath>
#include <regex>

namespace perfsweep::adapters {

std::vector<std::string> salloc_argv(const ports::RunnerConfig& c, const std::string& name) {
    std::vector<std::string> argv = {"salloc", "--no-shell", "--job-name=" + name, "-N1"};
    if (!c.gpus.empty())
        argv.push_back("--gpus=" + std::to_string(c.gpus.size()));
    if (c.allocation_time_s > 0)
        argv.push_back("--time=" +
                       std::to_string(static_cast<long>(std::ceil(c.allocation_time_s / 60))));
    argv.insert(argv.end(), c.salloc_args.begin(), c.salloc_args.end());
    return argv;
}

std::string granted_job_id(const std::string& out) {
    static const std::regex granted(R"(Granted job allocation ([0-9]+))");
    std::smatch m;
    return std::regex_search(out, m, granted) ? m[1].str() : std::string();
}

HeldAllocationRunner::HeldAllocationRunner(ports::RunnerConfig config, ports::Progress& progress,
                                           ports::Clock& clock)
    : m_cfg(std::move(config)), m_progress(progress), m_clock(clock) {
    if (m_cfg.runtime != "slurm")
        throw_usage("a held allocation needs --runtime slurm, not '" + m_cfg.runtime + "'");
    for (const auto& a : m_cfg.srun_args)
        if (a.rfind("--jobid", 0) == 0 || a.rfind("--container-name", 0) == 0)
            throw_usage("--srun-arg " + a +
                        ": perfsweep sets the job and the container name of "
                        "the allocation it holds");
    // Validate everything now (flags, templates): a throw-away runner with the final settings.
    auto probe = m_cfg;
    probe.kept_container = false;
    ProcessRunner check(probe, m_progress, m_clock);
    (void)check;
}

HeldAllocationRunner::~HeldAllocationRunner() {
    try {
        m_inner.reset();
        if (m_job.empty())
            return;
        ProcessSpec s;
        s.argv = {"scancel", m_job};
        s.timeout_s = 60;
        s.ignore_interrupt = true;
        const auto r = capture_process(s);
        m_progress.line("slurm: released allocation " + m_job +
                        (r.result.exit_code == 0 ? "" : " (scancel: " + r.output + ")"));
    } catch (...) { // cleanup is best effort; a destructor never throws
    }
}

bool HeldAllocationRunner::ensure(std::string& why) {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (m_inner)
        return true;
    const std::string name = "perfsweep-hourly-" + std::to_string(::getpid());
    ProcessSpec s;
    s.argv = salloc_argv(m_cfg, name);
    s.timeout_s = 0; // waits in the queue as long as it takes; Ctrl-C cancels the request
    m_progress.line("slurm: " + util::join(s.argv, " "));
    const auto r = capture_process(s);
    const auto job = granted_job_id(r.output);
    if (!job.empty())
        m_job = job; // released in the destructor even if salloc reported trouble after this
    if (!r.result.started || r.result.exit_code != 0 || job.empty()) {
        why = "salloc did not grant an allocation (" + describe(r.result, 0) +
              "): " + std::string(util::trim(r.output));
        return false;
    }
    m_progress.line("slurm: holding allocation " + m_job + " for the whole search");
    auto inner = m_cfg;
    inner.kept_container = false;
    inner.srun_args.insert(inner.srun_args.begin(), "--jobid=" + m_job);
    if (!inner.image.empty()) {
        inner.image = core::pyxis_image(inner.image);
        inner.srun_args.push_back("--container-name=perfsweep-" + m_job);
    }
    m_inner = std::make_unique<ProcessRunner>(inner, m_progress, m_clock);
    return true;
}

std::vector<core::Measurement>
HeldAllocationRunner::run_points(const std::vector<ports::PointRequest>& requests) {
    std::string why;
    if (!ensure(why)) {
        std::vector<core::Measurement> out(requests.size());
        for (std::size_t i = 0; i < requests.size(); ++i) {
            out[i].label = requests[i].label;
            out[i].stage = requests[i].stage;
            out[i].commits = requests[i].commits;
            out[i].status = core::Status::failed;
            out[i].reason = why;
        }
        return out;
    }
    return m_inner->run_points(requests);
}

int HeldAllocationRunner::workers() const {
    return m_cfg.gpus.empty() ? 1 : static_cast<int>(m_cfg.gpus.size());
}

ports::StepOutcome HeldAllocationRunner::build(const ports::PointRequest& request) {
    std::string why;
    if (!ensure(why)) {
        ports::StepOutcome out;
        out.reason = why;
        return out;
    }
    return m_inner->build(request);
}

} // namespace perfsweep::adapters
