#include "core/jax_toolbox.hpp"

#include "util/error.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <algorithm>
#include <cctype>

namespace perfsweep::core {

namespace {

// Mount points perfsweep owns inside the container.
constexpr std::string_view k_src_root = "/perfsweep/src/";
constexpr std::string_view k_cache_dir = "/perfsweep/bazel-cache";
constexpr std::string_view k_outputs_dir = "/perfsweep/out";
constexpr std::string_view k_builds_dir = "/perfsweep/builds";
// Where today's build-jax.sh puts its editable jaxlib and plugin packages (--build-path-jaxlib).
constexpr std::string_view k_jaxlibs_dir = "/opt/jaxlibs";

// The build step. POSIX sh; no braces and no single quotes, so it stays one literal template
// word. Arguments are data (never evaluated): repo/pick NAME DIR SHA SOURCE, rmwheels DIR,
// keep DIR MODE PRODUCT, build ARGV...
constexpr std::string_view k_build_script = R"SH(set -u
fail() { echo "perfsweep-jax-toolbox: $*" >&2; exit 1; }
g() { git -c "safe.directory=*" -c advice.detachedHead=false -C "$dir" "$@"; }
have() { g rev-parse --quiet --verify "$1^0" >/dev/null 2>&1; }
get() {
  have "$1" && return 0
  [ -n "$src" ] || fail "$name: commit $1 is not in $dir and no host clone is mounted to fetch it from"
  echo "perfsweep: fetching $name $1 from $src"
  g fetch --quiet --no-tags "$src" "$1" || fail "$name: cannot fetch $1 from $src"
  have "$1" || fail "$name: $1 is still missing in $dir after the fetch"
}
pick() { g -c user.name=perfsweep -c user.email=perfsweep@localhost cherry-pick --no-commit "$1" >/dev/null 2>&1; }
done=""
kdir=""
while [ $# -gt 0 ]; do
  case $1 in
  repo|pick)
    [ $# -ge 5 ] || fail "usage: $1 NAME DIR SHA SOURCE"
    step=$1 name=$2 dir=$3 sha=$4 src=$5
    shift 5
    [ -e "$dir/.git" ] || fail "$name: $dir is not a git clone"
    get "$sha"
    if [ "$step" = repo ]; then
      g reset --quiet --hard || fail "$name: cannot reset $dir"
      g checkout --quiet --force --detach "$sha" || fail "$name: cannot check out $sha in $dir"
      echo "perfsweep: $name at $sha in $dir"
    elif g merge-base --is-ancestor "$sha" HEAD; then
      echo "perfsweep: $name already contains fix $sha"
    elif pick "$sha"; then
      done="$done$dir $sha
"
      echo "perfsweep: $name: fix $sha applied"
    else
      echo "perfsweep: $name: fix $sha does not apply here; building without it"
      g reset --quiet --hard || fail "$name: cannot reset $dir"
      printf %s "$done" | while read -r d s; do
        [ "$d" = "$dir" ] && { pick "$s" || fail "$name: fix $s no longer applies"; }
      done || exit 1
    fi
    ;;
  rmwheels)
    [ $# -ge 2 ] || fail "usage: rmwheels DIR"
    echo "perfsweep: rm -f $2/dist/jax*.whl"
    rm -f "$2"/dist/jax*.whl || fail "cannot remove the old wheels in $2/dist"
    shift 2
    ;;
  keep)
    [ $# -ge 4 ] || fail "usage: keep DIR MODE PRODUCT"
    kdir=$2 kmode=$3 kproduct=$4
    shift 4
    ;;
  build)
    shift
    [ $# -gt 0 ] || fail "build: no command"
    [ -n "$kdir" ] || exec "$@"
    if [ "$kmode" = restore ]; then
      [ -d "$kdir/product" ] || fail "no kept build in $kdir"
      rm -rf "$kproduct" && cp -a "$kdir/product" "$kproduct" || fail "cannot put the kept build in $kdir back into $kproduct"
      echo "perfsweep: kept build put back from $kdir into $kproduct"
      exit 0
    fi
    rm -rf "$kdir/product" "$kdir/product.tmp"
    "$@" || exit $?
    if mkdir -p "$kdir" && cp -a "$kproduct" "$kdir/product.tmp" && mv "$kdir/product.tmp" "$kdir/product"; then
      echo "perfsweep: build kept in $kdir"
    else
      rm -rf "$kdir/product.tmp"
      echo "perfsweep: cannot keep the build in $kdir; a revisit builds it again"
    fi
    exit 0
    ;;
  *)
    fail "unknown step $1"
    ;;
  esac
done
fail "no build step")SH";

// build-jax.sh's getopt --long lists, version by version. Sources: NVIDIA/JAX-Toolbox
// .github/container/build-jax.sh at the commit each entry names (docs/jax-toolbox.md lists them).
// 2023 (526436f1, 1d80d188): `getopt -o h --long bazel-cache:,build-param:,clean,cpu-arch:,debug,
// jaxlib_only,no-clean,clean-only,dry,help,src-path-jax:,src-path-xla:,sm:`.
const std::vector<BuildJaxOption> k_2023_options = {
    {"bazel-cache", true}, {"build-param", true},  {"clean", false},       {"cpu-arch", true},
    {"debug", false},      {"jaxlib_only", false}, {"no-clean", false},    {"clean-only", false},
    {"dry", false},        {"help", false},        {"src-path-jax", true}, {"src-path-xla", true},
    {"sm", true},
};

// Today's images before 7f7ff35a (read at 087ff076): `getopt -o h --long bazel-cache:,
// bazel-cache-namespace:,build-param:,build-path-jaxlib:,clean,cpu-arch:,debug,extra-targets:,
// extra-target-dest:,no-clean,clean-only,help,install,no-install,src-path-jax:,src-path-xla:,sm:`.
std::vector<BuildJaxOption> jax_options(bool release) {
    std::vector<BuildJaxOption> o = {{"bazel-cache", true},
                                     {"bazel-cache-namespace", true},
                                     {"build-param", true},
                                     {"build-path-jaxlib", true},
                                     {"clean", false}};
    if (release) // 7f7ff35a (2025-12-17, #1840): -r/--release, after --clean in the list
        o.push_back({"release", false});
    const std::vector<BuildJaxOption> rest = {{"cpu-arch", true},      {"debug", false},
                                              {"extra-targets", true}, {"extra-target-dest", true},
                                              {"no-clean", false},     {"clean-only", false},
                                              {"help", false},         {"install", false},
                                              {"no-install", false},   {"src-path-jax", true},
                                              {"src-path-xla", true},  {"sm", true}};
    o.insert(o.end(), rest.begin(), rest.end());
    return o;
}

const std::vector<BuildJaxScript> k_scripts = {
    // 2023-07-17; in the nightlies up to 2023-08-24 (older 2023 nightlies are checked against it).
    {"526436f1", JtbGeneration::nightly, "", "h", k_2023_options, {}},
    // 2023-08-24 20:39Z: adds 8.9 to --sm all; in the nightlies from 2023-08-25.
    {"1d80d188", JtbGeneration::nightly, "2023-08-24", "h", k_2023_options, {}},
    // Today's layout; the jax- nightlies before 2025-12-17 are checked against it.
    {"087ff076", JtbGeneration::jax, "", "h", jax_options(false), {}},
    // 2025-12-17 (#1840): -r/--release; `-o h,r` also makes getopt accept "-,", which the script's
    // case does not handle.
    {"7f7ff35a", JtbGeneration::jax, "2025-12-17", "h,r", jax_options(true), {"-,"}},
    // 2026-01-22 (#1911): --cpu-arch is still in getopt's list, its case branch is gone.
    {"5f2395b4", JtbGeneration::jax, "2026-01-22", "h,r", jax_options(true), {"-,", "--cpu-arch"}},
    // 2026-03-20: the last change (same options).
    {"ed544116", JtbGeneration::jax, "2026-03-20", "h,r", jax_options(true), {"-,", "--cpu-arch"}},
};

// The 2023 script has --bazel-cache since aded83f0 (2023-05-04).
constexpr std::string_view k_nightly_cache_since = "2023-05-04";

/// getopt's reading of `args`: the tokens it hands the script ("--help", "-h", ...) in order, or
/// its complaint.
struct Parsed {
    std::vector<std::string> tokens;
    std::string error;
};

/// A long option of `opts` as getopt resolves `name` (exact, else a unique prefix); sets `error`.
const BuildJaxOption* resolve_long(const std::vector<BuildJaxOption>& opts, const std::string& name,
                                   const std::string& arg, std::string& error) {
    std::vector<const BuildJaxOption*> prefixed;
    for (const auto& o : opts) {
        if (o.name == name)
            return &o;
        if (!name.empty() && o.name.rfind(name, 0) == 0)
            prefixed.push_back(&o);
    }
    if (prefixed.size() == 1)
        return prefixed.front();
    if (prefixed.size() > 1) {
        std::vector<std::string> names;
        for (const auto* o : prefixed)
            names.push_back(o->name);
        error =
            "option '--" + name + "' is ambiguous; possibilities: --" + util::join(names, " --");
    } else {
        error = "unrecognized option '" + arg + "'";
    }
    return nullptr;
}

Parsed getopt_parse(const BuildJaxScript& script, const std::vector<std::string>& args) {
    Parsed p;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--")
            break;
        if (a.rfind("--", 0) == 0) {
            const auto eq = a.find('=');
            const std::string name =
                a.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
            const auto* hit = resolve_long(script.options, name, a.substr(0, eq), p.error);
            if (!hit)
                return p;
            if (!hit->takes_value && eq != std::string::npos) {
                p.error = "option '--" + hit->name + "' doesn't allow an argument";
                return p;
            }
            if (hit->takes_value && eq == std::string::npos) {
                if (i + 1 >= args.size()) {
                    p.error = "option '--" + hit->name + "' requires an argument";
                    return p;
                }
                ++i;
            }
            p.tokens.push_back("--" + hit->name);
        } else if (a.size() > 1 && a[0] == '-') {
            for (std::size_t k = 1; k < a.size(); ++k) { // no short option takes a value
                if (a[k] == ':' || script.short_options.find(a[k]) == std::string::npos) {
                    p.error = std::string("invalid option -- '") + a[k] + "'";
                    return p;
                }
                p.tokens.push_back(std::string("-") + a[k]);
            }
        } else {
            p.error = "'" + a + "' is not an option (build-jax.sh ignores positional arguments)";
            return p;
        }
    }
    for (const auto& t : p.tokens)
        if (std::find(script.unhandled.begin(), script.unhandled.end(), t) !=
            script.unhandled.end()) {
            p.error = "getopt accepts " + t +
                      " but the script's case has no branch for it: it "
                      "prints UNKNOWN OPTION " +
                      t + " and exits 1";
            return p;
        }
    return p;
}

/// The long name of a token ("-h" → "help", "-r" → "release", "--sm" → "sm").
std::string long_name(const std::string& token) {
    if (token == "-h")
        return "help";
    if (token == "-r")
        return "release";
    return token.rfind("--", 0) == 0 ? token.substr(2) : token;
}

bool is_repo_name(std::string_view s) {
    if (s.empty() || s.size() > 64)
        return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-' || c == '.';
    });
}

} // namespace

std::string_view to_string(JtbGeneration g) {
    return util::enum_name(k_jtb_generation_names, g, "nightly");
}

std::optional<JtbGeneration> parse_jtb_generation(std::string_view s) {
    return util::parse_enum(k_jtb_generation_names, s);
}

std::optional<JtbGeneration> jtb_generation_of_image(std::string_view image) {
    const auto slash = image.rfind('/');
    const auto colon = image.rfind(':');
    if (colon == std::string_view::npos || (slash != std::string_view::npos && colon < slash))
        return std::nullopt;
    const auto tag = image.substr(colon + 1);
    if (tag.starts_with("jax-"))
        return JtbGeneration::jax;
    if (tag.starts_with("nightly-"))
        return JtbGeneration::nightly;
    return std::nullopt;
}

std::string jtb_image_template(JtbGeneration g) {
    return g == JtbGeneration::jax ? "ghcr.io/nvidia/jax:jax-{date}"
                                   : "ghcr.io/nvidia/jax:nightly-{date}";
}

std::string jtb_source_dir(JtbGeneration g, std::string_view name) {
    return "/opt/" + std::string(name) + (g == JtbGeneration::nightly ? "-source" : "");
}

const std::vector<BuildJaxScript>& build_jax_scripts() {
    return k_scripts;
}

std::vector<const BuildJaxScript*> build_jax_scripts_of(JtbGeneration g, std::string_view date) {
    std::vector<const BuildJaxScript*> out;
    const BuildJaxScript* before = nullptr;
    for (const auto& s : k_scripts) {
        if (s.generation != g)
            continue;
        if (date.empty() || s.since == date)
            out.push_back(&s);
        else if (s.since < date)
            before = &s;
    }
    if (before)
        out.insert(out.begin(), before);
    return out;
}

std::string jtb_date_of_image(std::string_view image) {
    const auto slash = image.rfind('/');
    const auto colon = image.rfind(':');
    if (colon == std::string_view::npos || (slash != std::string_view::npos && colon < slash))
        return "";
    auto tag = image.substr(colon + 1);
    for (std::string_view prefix : {std::string_view("jax-"), std::string_view("nightly-")})
        if (tag.starts_with(prefix)) {
            const auto date = std::string(tag.substr(prefix.size()));
            return util::parse_date(date) ? date : std::string();
        }
    return "";
}

std::string check_build_jax_args(const BuildJaxScript& script,
                                 const std::vector<std::string>& args) {
    return getopt_parse(script, args).error;
}

std::string_view to_string(JtbSources s) {
    return util::enum_name(k_jtb_sources_names, s, "mounted");
}

std::optional<JtbSources> parse_jtb_sources(std::string_view s) {
    return util::parse_enum(k_jtb_sources_names, s);
}

std::vector<CherryPick> parse_cherry_picks(std::string_view spec, std::string_view where) {
    std::vector<CherryPick> out;
    for (const auto& part : util::split(std::string(spec), ',')) {
        const auto p = std::string(util::trim(part));
        const auto colon = p.find(':');
        if (p.empty() || colon == std::string::npos || colon == 0 || colon + 1 == p.size())
            throw_usage(std::string(where) + " '" + std::string(spec) +
                        "': expected NAME:COMMIT[,NAME:COMMIT...] (e.g. xla:1a2b3c4)");
        const auto name = p.substr(0, colon);
        if (!is_repo_name(name))
            throw_usage(std::string(where) + " '" + std::string(spec) + "': '" + name +
                        "' is not a repo name (letters, digits, . _ -)");
        out.push_back({name, p.substr(colon + 1)});
    }
    return out;
}

namespace {

/// Which nightlies a message speaks of: "the jax- nightly of 2026-02-01", "jax- nightlies".
std::string nightlies_text(const JtbSetup& s) {
    const std::string g(to_string(s.generation));
    return s.image_date.empty() ? g + "- nightlies (no date in the tag)"
                                : "the " + g + "- nightly of " + s.image_date;
}

/// Refuse extra build-jax.sh arguments that a version the nightly may carry would refuse, or
/// that perfsweep sets itself.
void check_build_args(const JtbSetup& s) {
    const auto scripts = build_jax_scripts_of(s.generation, s.image_date);
    std::vector<std::string> tokens;
    for (const auto* script : scripts) {
        const auto parsed = getopt_parse(*script, s.build_args);
        if (parsed.error.empty()) {
            tokens = parsed.tokens;
            continue;
        }
        std::vector<std::string> names;
        for (const auto& o : script->options)
            if (std::find(script->unhandled.begin(), script->unhandled.end(), "--" + o.name) ==
                script->unhandled.end())
                names.push_back("--" + o.name);
        std::string shorts;
        for (char c : script->short_options)
            if (std::find(script->unhandled.begin(), script->unhandled.end(),
                          std::string("-") + c) == script->unhandled.end())
                shorts += std::string(" -") + c;
        std::vector<std::string> versions;
        for (const auto* v : scripts)
            versions.push_back(v->commit);
        throw_usage("--build-jax-arg '" + util::join(s.build_args, " ") + "': build-jax.sh " +
                    script->commit + " (JAX-Toolbox; " + nightlies_text(s) +
                    (versions.size() == 1 ? " carries it"
                                          : " may carry any of " + util::join(versions, ", ")) +
                    ") would refuse it: " + parsed.error + "; its options:" + shorts + " " +
                    util::join(names, " "));
    }
    for (const auto& t : tokens) {
        const auto n = long_name(t);
        if (n == "src-path-jax" || n == "src-path-xla" || n == "bazel-cache")
            throw_usage("--build-jax-arg " + t +
                        ": perfsweep sets the source paths and the bazel cache itself (from "
                        "--repo / --bazel-cache)");
        if (n == "help" || n == "clean-only" || n == "dry")
            throw_usage("--build-jax-arg " + t + ": perfsweep calls build-jax.sh to build, and " +
                        t + " would build nothing");
    }
}

/// The build-jax.sh call and the cache mount: --bazel-cache (a mounted directory, which the
/// script's clean() never deletes, or a remote URL) and the source paths.
std::vector<std::string> build_call(const JtbSetup& s, JtbPlan& plan) {
    std::vector<std::string> build = {"build-jax.sh"};
    const bool remote =
        s.bazel_cache.starts_with("http://") || s.bazel_cache.starts_with("grpc://");
    if (s.bazel_cache.starts_with("https://") || s.bazel_cache.starts_with("grpcs://"))
        throw_usage("--bazel-cache '" + s.bazel_cache +
                    "': build-jax.sh passes only http:// and grpc:// URLs to bazel as a remote "
                    "cache; anything else becomes --disk_cache=<that text>. Use http://, grpc:// "
                    "or a directory");
    if (!s.bazel_cache.empty() && s.generation == JtbGeneration::nightly && !s.image_date.empty() &&
        s.image_date <= k_nightly_cache_since)
        throw_usage("--bazel-cache '" + s.bazel_cache + "': build-jax.sh of the nightly of " +
                    s.image_date + " may predate its --bazel-cache option (JAX-Toolbox aded83f0, " +
                    std::string(k_nightly_cache_since) + "); give --bazel-cache none");
    if (remote) {
        build.insert(build.end(), {"--bazel-cache", s.bazel_cache});
    } else if (!s.bazel_cache.empty()) {
        if (s.bazel_cache[0] != '/')
            throw_usage("--bazel-cache '" + s.bazel_cache + "': expected an absolute path");
        // Not bazel's output root (~/.cache/bazel): clean() removes that, and a mount point
        // cannot be removed (EBUSY, and the script stops there).
        plan.mounts.push_back(s.bazel_cache + ":" + std::string(k_cache_dir));
        build.insert(build.end(), {"--bazel-cache", std::string(k_cache_dir)});
    }
    build.insert(build.end(), {"--src-path-jax", jtb_source_dir(s.generation, "jax"),
                               "--src-path-xla", jtb_source_dir(s.generation, "xla")});
    build.insert(build.end(), s.build_args.begin(), s.build_args.end());
    return build;
}

/// The commits probe of a generation: the manifest, or `git log -1` in the 2023 clones.
std::string commits_probe(const JtbSetup& s) {
    if (s.generation == JtbGeneration::jax)
        return "cat /opt/manifest.d/git-clone.yaml";
    std::string probe = "sh -c " +
                        quote_template_word("for r in \"$@\"; do git -c \"safe.directory=*\" -C "
                                            "\"/opt/$r-source\" log -1 \"--format=$r %H %cI\" || "
                                            "exit 1; done") +
                        " perfsweep-commits";
    for (const auto& r : s.repos)
        probe += " " + quote_template_word(r.name);
    return probe;
}

} // namespace

bool keeps_builds(const JtbSetup& s) {
    if (s.builds_host.empty() || s.generation != JtbGeneration::jax)
        return false;
    const auto scripts = build_jax_scripts_of(s.generation, s.image_date);
    if (scripts.empty())
        return false;
    for (const auto& t : getopt_parse(*scripts.front(), s.build_args).tokens)
        if (long_name(t) == "build-path-jaxlib")
            return false; // the product is elsewhere: not kept
    return true;
}

JtbPlan plan_jax_toolbox(const JtbSetup& s) {
    JtbPlan plan;
    if (s.repos.empty())
        throw_usage("--jax-toolbox: expected at least one --repo (jax=PATH, xla=PATH)");
    auto absolute = [](const std::string& path, const std::string& what) {
        if (path.empty() || path[0] != '/')
            throw_usage(what + " '" + path + "': expected an absolute path");
    };
    for (const auto& r : s.repos) {
        if (!is_repo_name(r.name))
            throw_usage("--repo " + r.name + ": not a repo name (letters, digits, . _ -)");
        absolute(r.host_path, "--repo " + r.name);
    }
    check_build_args(s);

    std::vector<std::string> words = {"sh", "-c", std::string(k_build_script),
                                      "perfsweep-jax-toolbox"};
    for (const auto& r : s.repos) {
        const auto dir = jtb_source_dir(s.generation, r.name);
        std::string src;
        if (s.sources == JtbSources::image) {
            src = std::string(k_src_root) + r.name;
            plan.mounts.push_back(r.host_path + ":" + src + ":ro");
        } else {
            plan.mounts.push_back(r.host_path + ":" + dir);
        }
        words.insert(words.end(), {"repo", r.name, dir, "{commit:" + r.name + "}", src});
        plan.source_dirs[r.name] = dir;
    }
    for (const auto& cp : s.cherry_picks) {
        const auto it = std::find_if(s.repos.begin(), s.repos.end(),
                                     [&](const JtbRepo& r) { return r.name == cp.repo; });
        if (it == s.repos.end())
            throw_usage("--cherry-pick " + cp.repo + ":" + cp.commit + ": '" + cp.repo +
                        "' is not a --repo of this search");
        const std::string src =
            s.sources == JtbSources::image ? std::string(k_src_root) + cp.repo : std::string();
        words.insert(words.end(),
                     {"pick", cp.repo, jtb_source_dir(s.generation, cp.repo), cp.commit, src});
    }
    // 2023: the script installs every wheel in dist/; the previous build's must go first.
    if (s.generation == JtbGeneration::nightly)
        words.insert(words.end(), {"rmwheels", jtb_source_dir(s.generation, "jax")});
    // Today's images: the editable install's packages (/opt/jaxlibs) are the build's product;
    // a copy is kept per state and put back on a revisit (the sources are moved to the state as
    // for a build: the jax package is the editable source tree).
    if (keeps_builds(s)) {
        absolute(s.builds_host, "build store");
        plan.mounts.push_back(s.builds_host + ":" + std::string(k_builds_dir));
        plan.builds_dir = std::string(k_builds_dir);
        words.insert(words.end(),
                     {"keep", "{build_dir}", "{build_mode}", std::string(k_jaxlibs_dir)});
    }
    const auto build = build_call(s, plan);
    words.push_back("build");
    words.insert(words.end(), build.begin(), build.end());
    for (const auto& w : words)
        plan.build_command += (plan.build_command.empty() ? "" : " ") + quote_template_word(w);

    if (!s.outputs_host.empty()) {
        absolute(s.outputs_host, "outputs");
        plan.mounts.push_back(s.outputs_host + ":" + std::string(k_outputs_dir));
        plan.outputs_dir = std::string(k_outputs_dir);
    }
    plan.commits_probe = commits_probe(s);
    return plan;
}

std::string_view jtb_build_script() {
    return k_build_script;
}

std::string pyxis_image(std::string_view image) {
    if (image.empty() || image[0] == '/' || image[0] == '.' ||
        image.find('#') != std::string_view::npos)
        return std::string(image);
    const auto slash = image.find('/');
    if (slash == std::string_view::npos)
        return std::string(image);
    const auto first = image.substr(0, slash);
    // A registry host has a '.' or a ':' (port), or is localhost (the docker rule).
    const auto at = first.find('@');
    const auto host = at == std::string_view::npos ? first : first.substr(at + 1);
    if (host.find('.') == std::string_view::npos && host.find(':') == std::string_view::npos &&
        host != "localhost")
        return std::string(image);
    return std::string(image.substr(0, slash)) + "#" + std::string(image.substr(slash + 1));
}

std::string quote_template_word(std::string_view word) {
    if (word.find('\'') == std::string_view::npos)
        return "'" + std::string(word) + "'";
    std::string out = "\"";
    for (char c : word) {
        if (c == '\\' || c == '"' || c == '$' || c == '`')
            out += '\\';
        out += c;
    }
    return out + "\"";
}

} // namespace perfsweep::core
