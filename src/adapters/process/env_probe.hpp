#pragma once
// The environment probe: the built-in script printing key=value lines inside an image (CUDA,
// cuDNN, NCCL, cuBLAS, driver, GPU, Python and package versions), and image labels read with
// `docker/podman image inspect` (no pull).

#include "core/command_template.hpp"

#include <map>
#include <string>
#include <vector>

namespace perfsweep::adapters {

/// The marker on the first line of the built-in probe script (the fake docker recognises it).
inline constexpr const char* k_env_probe_marker = "perfsweep-env-probe";

/// The built-in probe: `sh -c SCRIPT`. Every piece is optional (missing tools print nothing); it
/// always exits 0. Keys: cuda, cudart, cublas, cudnn, nccl, driver, gpu, gpu_count, python, and
/// installed distributions (jax, jaxlib, jax_cuda12_plugin, jax_cuda12_pjrt, nvidia_cudnn_cu12,
/// ...) read from the dist-info directory names on sys.path, without importing anything.
core::CommandTemplate default_env_probe();

/// The probe for a `--env-probe` value: nullopt-like empty template for "" / "none", the
/// built-in one for "default", else the parsed command (usage error naming --env-probe).
core::CommandTemplate env_probe_command(const std::string& spec);

/// `ENGINE image inspect --format '{{json .Config.Labels}}' IMAGE` as `label.NAME` entries; an
/// image that is not present gives nothing (never pulls). Entries that break
/// core::check_environment_entry are dropped with a warning in `warnings`.
std::map<std::string, std::string> image_labels(const std::string& engine, const std::string& image,
                                                std::vector<std::string>& warnings);

/// The runner fingerprint of this machine: `hostname`, and `gpu`/`driver` from
/// `nvidia-smi --query-gpu=name,driver_version --format=csv,noheader` when it exists.
std::map<std::string, std::string> probe_runner_fingerprint();

} // namespace perfsweep::adapters
