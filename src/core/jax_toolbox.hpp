#pragma once
// JAX-Toolbox knowledge (pure): the two nightly image generations, where their sources live, how
// their build-jax.sh is called (its exact getopt option sets), and the build step perfsweep runs
// inside the kept container for each source state (move the image's clones to the state by SHA
// or build the mounted host clones, apply fix commits, call build-jax.sh).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfsweep::core {

/// The two generations of JAX-Toolbox nightly images.
enum class JtbGeneration {
    jax,     ///< ghcr.io/nvidia/jax:jax-YYYY-MM-DD: /opt/NAME, build-jax.sh --src-path-NAME
    nightly, ///< ghcr.io/nvidia/jax:nightly-YYYY-MM-DD (2023): /opt/NAME-source, no source options
};

/// "jax" or "nightly".
std::string_view to_string(JtbGeneration g);

/// Parse "jax" / "nightly"; nullopt for anything else.
std::optional<JtbGeneration> parse_jtb_generation(std::string_view s);

/// The generation an image reference or template names by its tag: a tag starting with "jax-"
/// gives jax, "nightly-" gives nightly; nullopt when the tag is neither (or there is no tag).
std::optional<JtbGeneration> jtb_generation_of_image(std::string_view image);

/// The dated image template of a generation: ghcr.io/nvidia/jax:jax-{date} or :nightly-{date}.
std::string jtb_image_template(JtbGeneration g);

/// Where repo `name` (jax, xla, flax, ...) is cloned inside an image: /opt/NAME (jax) or
/// /opt/NAME-source (nightly).
std::string jtb_source_dir(JtbGeneration g, std::string_view name);

/// One long option of build-jax.sh's getopt specification.
struct BuildJaxOption {
    std::string name; ///< without the leading "--"
    bool takes_value = false;
};

/// build-jax.sh's long options per generation (plus -h). jax: the options of today's script
/// (--bazel-cache ... --sm, --src-path-jax/--src-path-xla); nightly: the 2023 script's, which has
/// no source options (its sources are fixed at /opt/jax-source and /opt/xla-source).
const std::vector<BuildJaxOption>& build_jax_options(JtbGeneration g);

/// Check `args` as build-jax.sh's `getopt -o h --long ...` would parse them (exact names, unique
/// abbreviations, --name=value or --name value, -h); positional words are refused too (the
/// script silently ignores them). Returns "" when accepted, else getopt's complaint.
std::string check_build_jax_args(JtbGeneration g, const std::vector<std::string>& args);

/// Where the source repos live while the states are tested.
enum class JtbSources {
    image,   ///< the image's own clones, moved to each state by SHA (fetched from the host clone)
    mounted, ///< the host clones mounted over the image's source directories
};

/// "image" or "mounted".
std::string_view to_string(JtbSources s);

/// Parse "image" / "mounted"; nullopt for anything else.
std::optional<JtbSources> parse_jtb_sources(std::string_view s);

/// A fix commit applied onto every state of `repo` that does not contain it yet.
struct CherryPick {
    std::string repo;
    std::string commit; ///< as given (any revision); resolved to a full SHA before use
};

/// Parse "NAME:COMMIT[,NAME:COMMIT...]" (the triage tool's --cherry-pick form). Throws a usage
/// error naming `where` for an empty part, a missing ':' or a bad name.
std::vector<CherryPick> parse_cherry_picks(std::string_view spec, std::string_view where);

/// One source repo of the hourly search.
struct JtbRepo {
    std::string name;      ///< jax, xla, ...
    std::string host_path; ///< absolute path of the host clone
};

/// Everything the JAX-Toolbox mode needs to drive the builds.
struct JtbSetup {
    JtbGeneration generation = JtbGeneration::jax;
    JtbSources sources = JtbSources::image;
    std::vector<JtbRepo> repos;
    /// Absolute host directory (mounted, survives the kept container) or an http:// / grpc://
    /// remote cache URL (jax generation only); "" = none.
    std::string bazel_cache;
    std::vector<std::string> build_args;  ///< extra build-jax.sh arguments (checked)
    std::vector<CherryPick> cherry_picks; ///< commits are full SHAs here
    std::string outputs_host;             ///< host directory of the per-state output dirs ("")
};

/// What the mode adds to the runner: the build command, the mounts, the commits probe.
struct JtbPlan {
    std::string build_command;       ///< a command template (placeholders {commit:NAME})
    std::vector<std::string> mounts; ///< SRC:DST[:ro]
    std::string commits_probe;       ///< prints the image's own commits (NAME SHA lines / YAML)
    std::string outputs_dir;         ///< where outputs_host appears inside the container ("")
};

/// Compose the plan. Throws a usage error for a remote cache the generation cannot use, a
/// relative host path, a cherry-pick for a repo that is not searched, or build_args that
/// build-jax.sh would refuse (the message quotes getopt's complaint).
JtbPlan plan_jax_toolbox(const JtbSetup& setup);

/// The fixed POSIX sh script of the build step (arguments: `repo NAME DIR SHA SOURCE`...,
/// `pick NAME DIR SHA SOURCE`..., `rmwheels DIR`, `build ARGV...`). Exposed for tests.
std::string_view jtb_build_script();

/// An image reference as pyxis (`srun --container-image`) spells it: the registry is separated
/// by '#' (ghcr.io/nvidia/jax:jax-2024-05-01 → ghcr.io#nvidia/jax:jax-2024-05-01); a reference
/// without a registry, one already using '#', and a path (/..., ./...) are returned unchanged.
std::string pyxis_image(std::string_view image);

/// `word` quoted for a command template (core/command_template): single quotes unless it
/// contains one, then double quotes with \ " $ ` escaped.
std::string quote_template_word(std::string_view word);

} // namespace perfsweep::core
