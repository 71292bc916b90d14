#include "adapters/slurm/held_allocation.hpp"

#include "adapters/process/containment.hpp"
#include "adapters/process/process.hpp"
#include "core/jax_toolbox.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <regex>

namespace perfsweep::adapters {

std::vector<std::string> salloc_argv(const ports::RunnerConfig& c, const std::string& name) {
    std::vector<std::string> argv = {"salloc", "--no-shell", "--job-name=" + name, "-N1"};
    if (!c.gpus.empty())
        argv.push_back("--gpus=" + std::to_string(c.gpus.size()));
    // Always a time limit: an allocation whose perfsweep and guard were both killed ends by
    // itself at the latest then (the next perfsweep cancels it sooner: held_allocation.hpp).
    argv.push_back("--time=" + std::to_string(static_cast<long>(
                                   std::ceil(allocation_limit_s(c.allocation_time_s) / 60))));
    argv.insert(argv.end(), c.salloc_args.begin(), c.salloc_args.end());
    return argv;
}

double allocation_limit_s(double allocation_time_s) {
    return allocation_time_s > 0 ? allocation_time_s : k_default_allocation_s;
}

std::string granted_job_id(const std::string& out) {
    static const std::regex granted(R"(Granted job allocation ([0-9]+))");
    std::smatch m;
    return std::regex_search(out, m, granted) ? m[1].str() : std::string();
}

HeldAllocationRuntime::HeldAllocationRuntime(const ports::RunnerConfig& config,
                                             ports::Progress& progress)
    : m_cfg(config), m_progress(progress) {
    if (m_cfg.runtime != "slurm")
        throw_usage("a held allocation needs --runtime slurm, not '" + m_cfg.runtime + "'");
    for (const auto& a : m_cfg.srun_args)
        if (a.rfind("--jobid", 0) == 0 || a.rfind("--container-name", 0) == 0)
            throw_usage("--srun-arg " + a +
                        ": perfsweep sets the job and the container name of "
                        "the allocation it holds");
}

HeldAllocationRuntime::~HeldAllocationRuntime() {
    try {
        const std::string job = job_id();
        if (job.empty())
            return;
        ProcessSpec s;
        s.argv = {"scancel", job};
        s.timeout_s = 60;
        s.ignore_interrupt = true;
        const auto r = capture_process(s);
        m_progress.line("slurm: released allocation " + job +
                        (r.result.exit_code == 0 ? "" : " (scancel: " + r.output + ")"));
        m_record.reset(); // released: nothing left for the guard to cancel
    } catch (...) {       // cleanup is best effort; a destructor never throws
    }
}

std::string HeldAllocationRuntime::job_id() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_job;
}

Readiness HeldAllocationRuntime::prepare(const std::string& /*image*/) {
    std::lock_guard<std::mutex> lock(m_mutex);
    Readiness out;
    if (m_steps)
        return out;
    if (!m_failure.empty()) { // one salloc per search: a refusal is not retried per state
        out.status = core::Status::failed;
        out.reason = m_failure;
        return out;
    }
    const std::string name = "perfsweep-hourly-" + std::to_string(::getpid());
    ProcessSpec s;
    s.argv = salloc_argv(m_cfg, name);
    // Waits in the queue at most as long as the allocation would last (salloc withdraws the
    // request when it is stopped); Ctrl-C cancels the request too.
    s.timeout_s = allocation_limit_s(m_cfg.allocation_time_s);
    m_progress.line("slurm: " + util::join(s.argv, " "));
    const auto r = capture_process(s);
    const auto job = granted_job_id(r.output);
    if (!job.empty()) {
        m_job = job; // released in the destructor even if salloc reported trouble after this
        // Recorded like a kept container: if perfsweep dies, its guard (or, when the guard died
        // too, the next perfsweep before it measures anything) cancels the allocation.
        const char* path = std::getenv("PATH");
        const std::string scancel = find_executable("scancel", path ? path : "");
        if (!scancel.empty())
            m_record = std::make_unique<RunContainment>(
                std::string(), std::vector<std::string>{scancel, job}, false);
    }
    if (r.result.timed_out && job.empty()) {
        m_failure = "salloc waited " + util::format_duration(s.timeout_s) +
                    " in the queue without an allocation (the limit is the allocation's time: "
                    "--max-time plus 15 minutes, or 24 h); nothing was allocated";
        m_progress.line("slurm: " + m_failure + "; every build and run of the search fails");
        out.status = core::Status::failed;
        out.reason = m_failure;
        return out;
    }
    if (!r.result.started || r.result.exit_code != 0 || job.empty()) {
        m_failure = "salloc did not grant an allocation (" + describe(r.result, 0) +
                    "): " + std::string(util::trim(r.output));
        m_progress.line("slurm: " + m_failure + "; every build and run of the search fails");
        out.status = core::Status::failed;
        out.reason = m_failure;
        return out;
    }
    m_progress.line("slurm: holding allocation " + m_job + " for the whole search");
    auto steps = m_cfg;
    steps.kept_container = false;
    steps.srun_args.insert(steps.srun_args.begin(), "--jobid=" + m_job);
    if (!m_cfg.image.empty())
        steps.srun_args.push_back("--container-name=perfsweep-" + m_job);
    m_steps = std::make_unique<SlurmRuntime>(steps);
    return out;
}

Readiness HeldAllocationRuntime::prepare_build(const std::string& image) {
    return prepare(image);
}

Launch HeldAllocationRuntime::wrap(const Invocation& inv) {
    SlurmRuntime* steps = nullptr;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        steps = m_steps.get();
    }
    if (!steps)
        throw_infra("a job step before the Slurm allocation was granted");
    auto step = inv;
    if (!step.image.empty()) // pyxis/enroot spell a registry with '#': ghcr.io#nvidia/jax:TAG
        step.image = core::pyxis_image(step.image);
    return steps->wrap(step);
}

std::unique_ptr<ProcessRunner> make_held_allocation_runner(const ports::RunnerConfig& config,
                                                           ports::Progress& progress,
                                                           ports::Clock& clock) {
    auto plain = config; // the allocation is the kept environment: validate it as job steps
    plain.kept_container = false;
    check_runtime(plain);
    auto runtime = std::make_unique<HeldAllocationRuntime>(config, progress);
    return std::make_unique<ProcessRunner>(config, std::move(runtime), progress, clock);
}

} // namespace perfsweep::adapters
