#pragma once
// Runtime strategies: where and how one command of a point runs — a plain process (runtime none),
// a fresh docker/podman container per run, one kept container that every command is `exec`'d in,
// or a Slurm job step (optionally a pyxis container). A runtime only wraps argv and manages its
// containers; repeats, timeouts and metric extraction belong to the measuring loop
// (adapters/process/process_runner).

#include "adapters/process/containment.hpp"
#include "adapters/process/process.hpp"
#include "core/model.hpp"
#include "ports/runner_config.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace perfsweep::adapters {

/// One command to run: the argv after placeholder substitution and the environment it exports.
struct Invocation {
    std::vector<std::string> argv;          ///< the command, already substituted
    std::map<std::string, std::string> env; ///< PERFSWEEP_* values and --env values
    std::string image;                      ///< the point's image (containers, pyxis); may be ""
    std::size_t worker = 0;                 ///< position in the GPU pool (0 without one)
};

/// The process to start for an invocation, and what to remove if it has to die.
struct Launch {
    ProcessSpec spec;            ///< argv, env, workdir (the loop adds log, timeout, grace)
    std::string fresh_container; ///< a per-run container's name ("" for other runtimes)
};

/// Whether an image can be used, and its digest.
struct Readiness {
    core::Status status = core::Status::ok; ///< ok, missing (no such image) or failed
    std::string reason;                     ///< why not ok
    std::string digest;                     ///< "sha256:…" when known
};

/// A runtime strategy. Implementations are thread-safe: the GPU pool calls them from several
/// workers at once.
class Runtime {
public:
    virtual ~Runtime() = default;
    /// Make `image` usable before a point is measured: check it exists, pull it, start the kept
    /// container. Never throws for a missing or broken image: that is the returned status.
    virtual Readiness prepare(const std::string& image) = 0;
    /// What a build needs before it runs (the kept container must exist; nothing elsewhere).
    virtual Readiness prepare_build(const std::string& image);
    /// Wrap `inv` into the process to start.
    virtual Launch wrap(const Invocation& inv) = 0;
    /// After `launch` had to die (timeout, interruption): remove what may still run of it (a
    /// fresh container; the kept container, which an exec'd process could outlive).
    virtual void after_kill(const Launch& launch);
    /// True when commands run inside a container image (the host's working directory is not
    /// theirs, so {workdir} has no default).
    virtual bool in_container() const = 0;
    /// The container engine ("docker"/"podman") whose `image inspect` reads labels; "" if none.
    virtual std::string image_engine() const;
};

/// Check the runtime part of `config` (runtime name, --keep-container, --image); throws a usage
/// error naming the flag.
void check_runtime(const ports::RunnerConfig& config);

/// The runtime `config` asks for (`runtime`, `kept_container`, `image`, `gpus`, `mounts`, ...).
/// Throws a usage error naming the flag for an unknown runtime or a missing image.
std::unique_ptr<Runtime> make_runtime(const ports::RunnerConfig& config);

/// The one docker/podman option builder: GPUs (docker `--gpus device=…`, quoted as docker's CSV
/// parser needs for a list; podman CDI `--device nvidia.com/gpu=N` per GPU), `-v` mounts, `-e`
/// environment and `-w` working directory, in that order.
std::vector<std::string> container_options(const std::string& engine,
                                           const std::vector<std::string>& gpus,
                                           const std::vector<std::string>& mounts,
                                           const std::map<std::string, std::string>& env,
                                           const std::string& workdir);

/// A plain process on this machine; with a GPU pool, CUDA_VISIBLE_DEVICES is the worker's GPU.
class PlainRuntime final : public Runtime {
public:
    /// Uses `config.workdir` and `config.gpus`.
    explicit PlainRuntime(const ports::RunnerConfig& config);
    Readiness prepare(const std::string& image) override;
    Launch wrap(const Invocation& inv) override;
    bool in_container() const override { return false; }

private:
    std::string m_workdir;
    std::vector<std::string> m_gpus;
};

/// Image handling shared by the docker/podman runtimes: `image inspect` (present?), `manifest
/// inspect` (exists? no layers pulled), `pull`, digest from RepoDigests; images it pulled are
/// `rmi`'d when it is destroyed unless `keep_images`.
class ContainerImages {
public:
    /// For `engine` ("docker"/"podman"); `pull_timeout_s` bounds a pull (at least 600 s).
    ContainerImages(std::string engine, double pull_timeout_s, bool keep_images);
    ~ContainerImages();
    ContainerImages(const ContainerImages&) = delete;
    ContainerImages& operator=(const ContainerImages&) = delete;
    /// Check (and pull if needed) `image`.
    Readiness check(const std::string& image);
    /// The engine's name.
    const std::string& engine() const { return m_engine; }

private:
    std::string m_engine;
    double m_pull_timeout_s;
    bool m_keep_images;
    std::mutex m_mutex;
    std::set<std::string> m_pulled;
};

/// A fresh container per command: `ENGINE run --rm --name perfsweep-run-… [GPU] [-v] [-e] [-w]
/// IMAGE argv…`; after a kill the container is `rm -f`'d (by the guard or the next perfsweep
/// when perfsweep itself was killed).
class FreshContainerRuntime final : public Runtime {
public:
    /// Uses `config.runtime` (the engine), `gpus`, `mounts`, `workdir`, `keep_images`, `timeout_s`.
    explicit FreshContainerRuntime(const ports::RunnerConfig& config);
    Readiness prepare(const std::string& image) override;
    Launch wrap(const Invocation& inv) override;
    void after_kill(const Launch& launch) override;
    bool in_container() const override { return true; }
    std::string image_engine() const override { return m_images.engine(); }

private:
    ContainerImages m_images;
    std::vector<std::string> m_gpus, m_mounts;
    std::string m_workdir;
};

/// One long-lived container (`ENGINE run -d --name perfsweep-kept-… [all GPUs] [-v] [-e --env]
/// [-w] IMAGE sleep infinity`); every command is `ENGINE exec [-e] [-w] NAME argv…`. It is
/// stopped and removed when the runtime is destroyed, force-removed and replaced after a killed
/// command, and recorded while it exists so that a killed perfsweep's guard (or the next
/// perfsweep) removes it.
class KeptContainerRuntime final : public Runtime {
public:
    /// Uses `config.runtime` (the engine), `gpus`, `mounts`, `env`, `workdir`, `keep_images`.
    explicit KeptContainerRuntime(const ports::RunnerConfig& config);
    /// Stops and removes the container, then removes images it pulled (unless kept).
    ~KeptContainerRuntime() override;
    KeptContainerRuntime(const KeptContainerRuntime&) = delete;
    KeptContainerRuntime& operator=(const KeptContainerRuntime&) = delete;
    Readiness prepare(const std::string& image) override;
    Readiness prepare_build(const std::string& image) override;
    Launch wrap(const Invocation& inv) override;
    void after_kill(const Launch& launch) override;
    bool in_container() const override { return true; }
    std::string image_engine() const override { return m_images.engine(); }

private:
    void remove_container(bool graceful);

    ContainerImages m_images;
    std::vector<std::string> m_gpus, m_mounts;
    std::map<std::string, std::string> m_env;
    std::string m_workdir;
    std::mutex m_mutex;
    std::string m_container; ///< name, empty when none runs
    std::string m_digest;
    std::unique_ptr<RunContainment> m_record; ///< while the container exists
};

/// A Slurm job step per command: `srun -N1 -n1 --job-name=perfsweep-<id> --time=<timeout+grace+1m>
/// [--gpus=1 with a pool] [--container-image=IMAGE --container-mounts=… --container-workdir=…
/// (pyxis) | --chdir=DIR] [--srun-arg…] argv…`; the environment passes through srun. The job name
/// is unique per step, so `scancel --name` ends exactly it if perfsweep is killed.
class SlurmRuntime final : public Runtime {
public:
    /// Uses `config.timeout_s`, `grace_s`, `gpus`, `mounts`, `workdir`, `srun_args`.
    explicit SlurmRuntime(const ports::RunnerConfig& config);
    Readiness prepare(const std::string& image) override;
    Launch wrap(const Invocation& inv) override;
    bool in_container() const override { return false; }

private:
    ports::RunnerConfig m_cfg;
};

} // namespace perfsweep::adapters
