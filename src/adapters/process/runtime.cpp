#include "adapters/process/runtime.hpp"

#include "util/error.hpp"
#include "util/strings.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <random>

namespace perfsweep::adapters {

namespace {

std::string first_line(std::string_view s) {
    s = util::trim(s);
    size_t nl = s.find('\n');
    std::string line(util::trim(s.substr(0, nl)));
    if (line.size() > 300)
        line = line.substr(0, 300) + "...";
    return line;
}

/// "perfsweep-<kind>-<pid>-<random>-<sequence>": unique among concurrent perfsweep processes.
std::string container_name(const std::string& kind) {
    static std::atomic<int> seq{0};
    static std::mutex mutex;
    unsigned random = 0;
    {
        std::lock_guard<std::mutex> lock(mutex);
        std::random_device rd;
        random = rd() % 1000000;
    }
    return "perfsweep-" + kind + "-" + std::to_string(::getpid()) + "-" + std::to_string(random) +
           "-" + std::to_string(++seq);
}

/// `argv` with its program resolved on $PATH (the guard runs it without a PATH search); empty when
/// the program is not found.
std::vector<std::string> resolved(std::vector<std::string> argv) {
    const char* path = std::getenv("PATH");
    argv[0] = find_executable(argv[0], path ? path : "");
    if (argv[0].empty())
        return {};
    return argv;
}

/// Run a cleanup command that must finish even after Ctrl-C (container removal).
void cleanup(std::vector<std::string> argv, double timeout_s = 60) {
    ProcessSpec s;
    s.argv = std::move(argv);
    s.timeout_s = timeout_s;
    s.ignore_interrupt = true;
    (void)run_process(s);
}

} // namespace

Readiness Runtime::prepare_build(const std::string& /*image*/) {
    return {};
}

void Runtime::after_kill(const Launch& /*launch*/) {}

std::string Runtime::image_engine() const {
    return {};
}

std::vector<std::string> container_options(const std::string& engine,
                                           const std::vector<std::string>& gpus,
                                           const std::vector<std::string>& mounts,
                                           const std::map<std::string, std::string>& env,
                                           const std::string& workdir) {
    std::vector<std::string> out;
    if (!gpus.empty()) {
        if (engine == "docker") {
            // docker reads --gpus as CSV: a list of devices must be quoted to stay one field.
            const std::string devices = "device=" + util::join(gpus, ",");
            out.push_back("--gpus");
            out.push_back(gpus.size() > 1 ? "\"" + devices + "\"" : devices);
        } else
            for (const auto& g : gpus) { // podman: CDI names, one per GPU
                out.push_back("--device");
                out.push_back("nvidia.com/gpu=" + g);
            }
    }
    for (const auto& m : mounts) {
        out.push_back("-v");
        out.push_back(m);
    }
    for (const auto& [k, v] : env) {
        out.push_back("-e");
        out.push_back(k + "=" + v);
    }
    if (!workdir.empty()) {
        out.push_back("-w");
        out.push_back(workdir);
    }
    return out;
}

void check_runtime(const ports::RunnerConfig& config) {
    const auto& rt = config.runtime;
    const bool container = rt == "docker" || rt == "podman";
    if (!container && rt != "none" && rt != "slurm")
        throw_usage("--runtime '" + rt + "': expected none, docker, podman or slurm");
    if (config.kept_container && !container)
        throw_usage("--keep-container needs --runtime docker or podman, not '" + rt + "'");
    if (container && config.image.empty())
        throw_usage("--runtime " + rt + " needs --image (e.g. ghcr.io/nvidia/jax:nightly-{date})");
}

std::unique_ptr<Runtime> make_runtime(const ports::RunnerConfig& config) {
    check_runtime(config);
    const auto& rt = config.runtime;
    if (rt == "none")
        return std::make_unique<PlainRuntime>(config);
    if (rt == "slurm")
        return std::make_unique<SlurmRuntime>(config);
    if (config.kept_container)
        return std::make_unique<KeptContainerRuntime>(config);
    return std::make_unique<FreshContainerRuntime>(config);
}

// ------------------------------------------------------------------------------------- plain

PlainRuntime::PlainRuntime(const ports::RunnerConfig& config)
    : m_workdir(config.workdir), m_gpus(config.gpus) {}

Readiness PlainRuntime::prepare(const std::string& /*image*/) {
    return {};
}

Launch PlainRuntime::wrap(const Invocation& inv) {
    Launch l;
    l.spec.argv = inv.argv;
    l.spec.env = inv.env;
    l.spec.workdir = m_workdir;
    l.spec.cgroup_namespace = true; // the benchmark itself: a root one cannot leave its cgroup
    if (!m_gpus.empty())
        l.spec.env["CUDA_VISIBLE_DEVICES"] = m_gpus[inv.worker];
    return l;
}

// ------------------------------------------------------------------------------ images

ContainerImages::ContainerImages(std::string engine, double pull_timeout_s, bool keep_images)
    : m_engine(std::move(engine)), m_pull_timeout_s(std::max(pull_timeout_s, 600.0)),
      m_keep_images(keep_images) {}

ContainerImages::~ContainerImages() {
    if (m_keep_images)
        return;
    try {
        for (const auto& img : m_pulled)
            cleanup({m_engine, "rmi", img}, 120);
    } catch (...) { // a destructor never throws; cleanup is best effort
    }
}

Readiness ContainerImages::check(const std::string& image) {
    Readiness r;
    ProcessSpec s;
    s.timeout_s = 300;
    s.argv = {m_engine, "image", "inspect", "--format", "{{.Id}}", image};
    auto local = capture_process(s);
    if (!local.result.started) {
        r.status = core::Status::missing;
        r.reason = m_engine + " is not usable: " + local.result.error;
        return r;
    }
    if (local.result.exit_code != 0) {
        s.argv = {m_engine, "manifest", "inspect", image};
        auto manifest = capture_process(s);
        if (!manifest.result.started || manifest.result.exit_code != 0) {
            r.status = core::Status::missing;
            r.reason = "image " + image + " not found: " + first_line(manifest.output);
            return r;
        }
        s.argv = {m_engine, "pull", "--quiet", image};
        s.timeout_s = m_pull_timeout_s;
        auto pull = capture_process(s);
        if (!pull.result.started || pull.result.exit_code != 0 || pull.result.timed_out) {
            r.status = core::Status::failed;
            r.reason = "pulling " + image + " failed (" + describe(pull.result, s.timeout_s) +
                       "): " + first_line(pull.output);
            return r;
        }
        std::lock_guard<std::mutex> lock(m_mutex);
        m_pulled.insert(image);
    }
    s.timeout_s = 60;
    s.argv = {m_engine, "image", "inspect", "--format", "{{index .RepoDigests 0}}", image};
    auto d = capture_process(s);
    const std::string ref = first_line(d.output);
    if (d.result.exit_code == 0 && ref.find("@sha256:") != std::string::npos)
        r.digest = ref.substr(ref.find('@') + 1);
    return r;
}

// ------------------------------------------------------------------- fresh container per run

FreshContainerRuntime::FreshContainerRuntime(const ports::RunnerConfig& config)
    : m_images(config.runtime, config.timeout_s, config.keep_images), m_gpus(config.gpus),
      m_mounts(config.mounts), m_workdir(config.workdir) {}

Readiness FreshContainerRuntime::prepare(const std::string& image) {
    return m_images.check(image);
}

Launch FreshContainerRuntime::wrap(const Invocation& inv) {
    Launch l;
    l.fresh_container = container_name("run");
    const auto& engine = m_images.engine();
    l.spec.argv = {engine, "run", "--rm", "--name", l.fresh_container};
    l.spec.cleanup = {engine, "rm", "-f", l.fresh_container};
    std::vector<std::string> gpu;
    if (!m_gpus.empty())
        gpu.push_back(m_gpus[inv.worker]);
    const auto opts = container_options(engine, gpu, m_mounts, inv.env, m_workdir);
    l.spec.argv.insert(l.spec.argv.end(), opts.begin(), opts.end());
    l.spec.argv.push_back(inv.image);
    l.spec.argv.insert(l.spec.argv.end(), inv.argv.begin(), inv.argv.end());
    return l;
}

void FreshContainerRuntime::after_kill(const Launch& launch) {
    if (!launch.fresh_container.empty())
        cleanup({m_images.engine(), "rm", "-f", launch.fresh_container});
}

// ------------------------------------------------------------------------- kept container

KeptContainerRuntime::KeptContainerRuntime(const ports::RunnerConfig& config)
    : m_images(config.runtime, config.timeout_s, config.keep_images), m_gpus(config.gpus),
      m_mounts(config.mounts), m_env(config.env), m_workdir(config.workdir) {}

KeptContainerRuntime::~KeptContainerRuntime() {
    // Before m_images removes the image it runs. A destructor never throws: best effort.
    try {
        remove_container(true);
    } catch (...) {
    }
}

Readiness KeptContainerRuntime::prepare(const std::string& image) {
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (!m_container.empty()) {
            Readiness r;
            r.digest = m_digest;
            return r;
        }
    }
    Readiness r = m_images.check(image);
    if (r.status != core::Status::ok)
        return r;
    std::lock_guard<std::mutex> lock(m_mutex);
    if (!m_container.empty())
        return r;
    const std::string name = container_name("kept");
    const auto& engine = m_images.engine();
    // Recorded before it exists: if perfsweep dies from now on, the container goes too.
    m_record = std::make_unique<RunContainment>(std::string(), resolved({engine, "rm", "-f", name}),
                                                false);
    ProcessSpec s;
    s.timeout_s = 300;
    // --init: an init process as PID 1 reaps and forwards signals (`sleep infinity` as PID 1
    // ignores SIGTERM, and bazel's server hangs on shutdown without one).
    s.argv = {engine, "run", "-d", "--init", "--name", name};
    const auto opts = container_options(engine, m_gpus, m_mounts, m_env, m_workdir);
    s.argv.insert(s.argv.end(), opts.begin(), opts.end());
    s.argv.insert(s.argv.end(), {image, "sleep", "infinity"});
    auto c = capture_process(s);
    if (!c.result.started || c.result.exit_code != 0) {
        cleanup({engine, "rm", "-f", name}); // it may exist half-started: remove it by name
        m_record.reset();
        r.status = core::Status::failed;
        r.reason = "cannot start a container from " + image + " (" +
                   describe(c.result, s.timeout_s) + "): " + first_line(c.output);
        return r;
    }
    m_container = name;
    m_digest = r.digest;
    return r;
}

Readiness KeptContainerRuntime::prepare_build(const std::string& image) {
    return prepare(image);
}

Launch KeptContainerRuntime::wrap(const Invocation& inv) {
    std::string container;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        container = m_container;
    }
    auto env = inv.env;
    if (!m_gpus.empty()) // the container holds the whole pool: the worker's position inside it
        env["CUDA_VISIBLE_DEVICES"] = std::to_string(inv.worker);
    Launch l;
    const auto& engine = m_images.engine();
    l.spec.argv = {engine, "exec"};
    const auto opts = container_options(engine, {}, {}, env, m_workdir);
    l.spec.argv.insert(l.spec.argv.end(), opts.begin(), opts.end());
    l.spec.argv.push_back(container);
    l.spec.argv.insert(l.spec.argv.end(), inv.argv.begin(), inv.argv.end());
    return l;
}

void KeptContainerRuntime::after_kill(const Launch& /*launch*/) {
    // The exec'd process may still run inside (exec does not forward signals): force-remove the
    // container; the next point starts a new one.
    remove_container(false);
}

void KeptContainerRuntime::remove_container(bool graceful) {
    std::string name;
    std::unique_ptr<RunContainment> record;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        name.swap(m_container);
        record.swap(m_record);
    }
    if (name.empty())
        return;
    if (graceful)
        cleanup({m_images.engine(), "stop", "-t", "10", name});
    cleanup({m_images.engine(), "rm", "-f", name});
}

// ----------------------------------------------------------------------------------- slurm

SlurmRuntime::SlurmRuntime(const ports::RunnerConfig& config) : m_cfg(config) {}

Readiness SlurmRuntime::prepare(const std::string& /*image*/) {
    return {}; // pyxis imports the image on the node; a missing one fails the job step
}

Launch SlurmRuntime::wrap(const Invocation& inv) {
    Launch l;
    l.spec.env = inv.env;
    auto& a = l.spec.argv;
    static std::atomic<unsigned> seq{0};
    const std::string job = "perfsweep-" + std::to_string(::getpid()) + "-" + std::to_string(++seq);
    a = {"srun", "-N1", "-n1", "--job-name=" + job};
    l.spec.cleanup = {"scancel", "--quiet", "--name=" + job};
    const long minutes = static_cast<long>(std::ceil((m_cfg.timeout_s + m_cfg.grace_s) / 60));
    a.push_back("--time=" + std::to_string(minutes + 1));
    if (!m_cfg.gpus.empty())
        a.push_back("--gpus=1");
    if (!inv.image.empty()) {
        a.push_back("--container-image=" + inv.image);
        if (!m_cfg.mounts.empty())
            a.push_back("--container-mounts=" + util::join(m_cfg.mounts, ","));
        if (!m_cfg.workdir.empty())
            a.push_back("--container-workdir=" + m_cfg.workdir);
    } else if (!m_cfg.workdir.empty())
        a.push_back("--chdir=" + m_cfg.workdir);
    a.insert(a.end(), m_cfg.srun_args.begin(), m_cfg.srun_args.end());
    a.insert(a.end(), inv.argv.begin(), inv.argv.end());
    return l;
}

} // namespace perfsweep::adapters
