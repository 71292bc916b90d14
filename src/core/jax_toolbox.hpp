#pragma once
// JAX-Toolbox knowledge (pure): the two nightly image generations, where their sources live, how
// their build-jax.sh is called (its exact getopt option sets), and the build step perfsweep runs
// inside the kept container for each source state (move the image's clones to the state by SHA
// or build the mounted host clones, apply fix commits, call build-jax.sh).

#include "util/enum_names.hpp"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfsweep::core {

/// The two generations of JAX-Toolbox nightly images.
enum class JtbGeneration {
    jax,     ///< ghcr.io/nvidia/jax:jax-YYYY-MM-DD: /opt/NAME, build-jax.sh --src-path-NAME
    nightly, ///< ghcr.io/nvidia/jax:nightly-YYYY-MM-DD (2023): /opt/NAME-source, wheels in dist/
};

/// The names of JtbGeneration, as --jax-toolbox takes them.
inline constexpr util::EnumName<JtbGeneration> k_jtb_generation_names[] = {
    {JtbGeneration::jax, "jax"},
    {JtbGeneration::nightly, "nightly"},
};

/// "jax" or "nightly" (k_jtb_generation_names).
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

/// One version of JAX-Toolbox's build-jax.sh (.github/container/build-jax.sh): its getopt
/// specification as read at a JAX-Toolbox commit, and which nightlies carry it.
struct BuildJaxScript {
    std::string commit; ///< the JAX-Toolbox commit it was read at (abbreviated)
    JtbGeneration generation = JtbGeneration::jax;
    /// The day the version was committed (YYYY-MM-DD): the nightlies of later days carry it, the
    /// nightly of that day may still carry the one before.
    std::string since;
    std::string short_options;           ///< getopt -o, e.g. "h" or "h,r" (',' is an option too)
    std::vector<BuildJaxOption> options; ///< getopt --long
    /// Tokens getopt accepts but the script's `case` has no branch for ("--cpu-arch", "-,"): the
    /// script prints "UNKNOWN OPTION TOKEN" and exits 1.
    std::vector<std::string> unhandled;
};

/// Every build-jax.sh version perfsweep knows, oldest first per generation (a data table; each
/// entry names the JAX-Toolbox commit it was read at).
const std::vector<BuildJaxScript>& build_jax_scripts();

/// The versions a nightly of generation `g` dated `date` (YYYY-MM-DD) may carry: the one in force
/// the day before plus one committed that day; every version of `g` when `date` is "" (a tag
/// without a date, a {date} template).
std::vector<const BuildJaxScript*> build_jax_scripts_of(JtbGeneration g, std::string_view date);

/// The date of a nightly tag (jax-YYYY-MM-DD, nightly-YYYY-MM-DD), "" when the tag has none.
std::string jtb_date_of_image(std::string_view image);

/// Check `args` as `script`'s `getopt -o SHORT --long ...` would parse them (exact names, unique
/// abbreviations, --name=value or --name value, short clusters) and as its `case` then handles
/// them; positional words are refused too (the script silently ignores them). Returns "" when
/// accepted, else the complaint (getopt's words, or the script's UNKNOWN OPTION).
std::string check_build_jax_args(const BuildJaxScript& script,
                                 const std::vector<std::string>& args);

/// Where the source repos live while the states are tested.
enum class JtbSources {
    image,   ///< the image's own clones, moved to each state by SHA (fetched from the host clone)
    mounted, ///< the host clones mounted over the image's source directories
};

/// The names of JtbSources, as --jax-toolbox-sources takes them.
inline constexpr util::EnumName<JtbSources> k_jtb_sources_names[] = {
    {JtbSources::image, "image"},
    {JtbSources::mounted, "mounted"},
};

/// "image" or "mounted" (k_jtb_sources_names).
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
    std::string image_date; ///< the nightly's date from its tag ("" = unknown: every version)
    /// Absolute host directory (mounted, survives the kept container) or an http:// / grpc://
    /// remote cache URL; "" = none.
    std::string bazel_cache;
    std::vector<std::string> build_args;  ///< extra build-jax.sh arguments (checked)
    std::vector<CherryPick> cherry_picks; ///< commits are full SHAs here
    std::string outputs_host;             ///< host directory of the per-state output dirs ("")
    /// host directory of the kept builds (app/build_store), mounted at /perfsweep/builds; ""
    /// = none
    std::string builds_host;
};

/// What the mode adds to the runner: the build command, the mounts, the commits probe.
struct JtbPlan {
    std::string build_command;       ///< a command template (placeholders {commit:NAME})
    std::vector<std::string> mounts; ///< SRC:DST[:ro]
    std::string commits_probe;       ///< prints the image's own commits (NAME SHA lines / YAML)
    std::string outputs_dir;         ///< where outputs_host appears inside the container ("")
    std::map<std::string, std::string> source_dirs; ///< repo → its tree inside the container
    /// where builds_host appears inside the container; "" = builds are not kept (the 2023
    /// generation, --build-path-jaxlib, or no store)
    std::string builds_dir;
};

/// Whether the build step keeps each state's build and can put it back (today's images: the
/// editable packages in /opt/jaxlibs; not the 2023 generation, whose wheels are installed
/// copies, nor a --build-path-jaxlib of the user's).
bool keeps_builds(const JtbSetup& setup);

/// Compose the plan. Throws a usage error for a cache the nightly's script cannot use, a relative
/// host path, a cherry-pick for a repo that is not searched, or build_args that a build-jax.sh
/// version the nightly may carry would refuse (the message quotes getopt's or the script's
/// complaint and names the version).
JtbPlan plan_jax_toolbox(const JtbSetup& setup);

/// The fixed POSIX sh script of the build step (arguments: `repo NAME DIR SHA SOURCE`...,
/// `pick NAME DIR SHA SOURCE`..., `rmwheels DIR`, `keep DIR build|restore PRODUCT`, `build
/// ARGV...`; with keep, build copies PRODUCT to DIR/product after the build, and restore copies
/// it back instead of building). Exposed for tests.
std::string_view jtb_build_script();

/// An image reference as pyxis (`srun --container-image`) spells it: the registry is separated
/// by '#' (ghcr.io/nvidia/jax:jax-2024-05-01 → ghcr.io#nvidia/jax:jax-2024-05-01); a reference
/// without a registry, one already using '#', and a path (/..., ./...) are returned unchanged.
std::string pyxis_image(std::string_view image);

/// `word` quoted for a command template (core/command_template): single quotes unless it
/// contains one, then double quotes with \ " $ ` escaped.
std::string quote_template_word(std::string_view word);

} // namespace perfsweep::core
