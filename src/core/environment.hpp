#pragma once
// Environment fingerprints of measured builds (CUDA, cuDNN, NCCL, driver, GPU, Python packages,
// image digest and labels) and the attribution of a good→bad change to the sources, the
// environment, both, or neither (pure).

#include "core/daily_result.hpp"
#include "core/model.hpp"

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace perfsweep::core {

/// Longest accepted key of an environment entry.
inline constexpr std::size_t k_env_key_max = 64;
/// Longest accepted value of an environment entry (bytes).
inline constexpr std::size_t k_env_value_max = 200;
/// Most entries one probe may contribute.
inline constexpr std::size_t k_env_entries_max = 128;

/// Empty when `key`=`value` is an acceptable environment entry, else why not: the key is 1-64
/// characters of [A-Za-z0-9._/-] starting with a letter or digit; the value is at most 200
/// printable ASCII characters (no control characters, no newlines).
std::string check_environment_entry(std::string_view key, std::string_view value);

/// What a probe printed, parsed strictly.
struct EnvironmentProbe {
    std::map<std::string, std::string> entries; ///< accepted key → value
    std::vector<std::string> warnings; ///< rejected lines: line number and why (never the text)
};

/// The line a probe may print before its entries: what comes before it (an image entrypoint's
/// banner on `docker run`) is not the probe's and is skipped without a warning.
inline constexpr std::string_view k_env_probe_start = "# perfsweep-env-probe";

/// Parse `key=value` lines (untrusted text) after the last k_env_probe_start line (all of them
/// without one). Blank lines and lines starting with '#' are ignored;
/// keys and values are trimmed; a line that breaks the rules of check_environment_entry, a line
/// without '=', a repeated key or an entry beyond k_env_entries_max is rejected with a warning
/// naming `where` and the line number.
EnvironmentProbe parse_environment_probe(std::string_view text, std::string_view where);

/// A readable name for an environment key: "cudnn" → "cuDNN", "cuda" → "CUDA runtime", ...;
/// unknown keys are returned as they are.
std::string environment_component_name(std::string_view key);

/// One differing component between two fingerprints; an empty side means "not recorded".
struct EnvironmentChange {
    std::string component; ///< the key, e.g. "cudnn"
    std::string before;    ///< value in the good build ("" = absent)
    std::string after;     ///< value in the bad build ("" = absent)
    /// Changes compare by value (for tests).
    bool operator==(const EnvironmentChange&) const = default;
};

/// Every key whose value differs between `good` and `bad` (present on one side only included),
/// in key order. `commit.*` keys are sources, not environment, and are left out.
std::vector<EnvironmentChange> environment_diff(const std::map<std::string, std::string>& good,
                                                const std::map<std::string, std::string>& bad);

/// What a build is made of: its source commits and its environment.
struct BuildFingerprint {
    std::map<std::string, std::string> commits;     ///< repo → sha ("" map = unknown)
    std::map<std::string, std::string> environment; ///< key → value ("" map = not recorded)
};

/// The fingerprint of one point from its records (the latest that carries each part). Commits
/// come from `commits`, else from `commit.NAME` environment entries; the image digest joins the
/// environment as `image.digest`.
BuildFingerprint build_fingerprint(const std::vector<Measurement>& records);

/// What explains a change between a good and a bad build.
enum class Cause {
    environment, ///< same source commits, different environment
    source,      ///< different sources, same (or unrecorded) environment
    both,        ///< sources and environment both differ
    unknown,     ///< the commits of one side are unknown
    none,        ///< same sources and no recorded environment difference
};

/// "environment" / "source" / "both" / "unknown" / "none".
std::string_view to_string(Cause c);

/// The attribution of a good→bad change.
struct Attribution {
    Cause cause = Cause::unknown;
    bool commits_known = false;          ///< both sides carry commits
    bool environment_known = false;      ///< both sides carry an environment
    std::vector<EnvironmentChange> diff; ///< every differing environment entry
    /// Differing entries that are packages built from the compared repos (jax, jaxlib,
    /// jax_cuda12_plugin for repo jax): their versions follow the sources, so they are left out
    /// of `diff` and never make the environment "changed".
    std::vector<EnvironmentChange> built_from_sources;
    std::vector<std::string> components;    ///< the differing components that explain it
    std::vector<std::string> changed_repos; ///< repos whose commit differs
};

/// Whether environment key `key` names a package built from repo `repo`: the repo's own name,
/// NAMElib, or NAME_... (jax → jax, jaxlib, jax_cuda12_plugin, jax_cuda12_pjrt).
bool built_from_repo(std::string_view key, std::string_view repo);

/// Attribute the change from `good` to `bad`. Environment components are the differing keys
/// other than image metadata (`image.*`, `label.*`) and packages built from a repo of either
/// side's commits (built_from_repo); when only image metadata differs and the sources do not,
/// the component is "image" (a new image is what new sources make).
/// Commits compare equal when one sha is a prefix (>= 7) of the other.
Attribution attribute_change(const BuildFingerprint& good, const BuildFingerprint& bad);

/// Attribution of daily boundary `b` of `r` (records of its last good and first bad points).
Attribution attribute_boundary(const DailyResult& r, const Boundary& b);

/// One sentence, e.g. "environmental: the source commits are identical, cuDNN changed (9.1.0 →
/// 9.2.0)". Plain text; callers escape it for their medium.
std::string describe_attribution(const Attribution& a);

} // namespace perfsweep::core
