#include "core/jax_toolbox.hpp"

#include "util/error.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <cctype>

namespace perfsweep::core {

namespace {

// Mount points perfsweep owns inside the container.
constexpr std::string_view k_src_root = "/perfsweep/src/";
constexpr std::string_view k_cache_dir = "/perfsweep/bazel-cache";
constexpr std::string_view k_outputs_dir = "/perfsweep/out";
// The 2023 script has no --bazel-cache: bazel's output user root is mounted instead.
constexpr std::string_view k_nightly_cache_dir = "/root/.cache/bazel";

// The build step. POSIX sh; no braces and no single quotes, so it stays one literal template
// word. Arguments are data (never evaluated): repo/pick NAME DIR SHA SOURCE, rmwheels DIR,
// build ARGV...
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
  build)
    shift
    [ $# -gt 0 ] || fail "build: no command"
    exec "$@"
    ;;
  *)
    fail "unknown step $1"
    ;;
  esac
done
fail "no build step")SH";

const std::vector<BuildJaxOption> k_jax_options = {
    {"bazel-cache", true},
    {"bazel-cache-namespace", true},
    {"build-param", true},
    {"build-path-jaxlib", true},
    {"clean", false},
    {"clean-only", false},
    {"cpu-arch", true},
    {"debug", false},
    {"extra-targets", true},
    {"extra-target-dest", true},
    {"help", false},
    {"install", false},
    {"no-install", false},
    {"no-clean", false},
    {"src-path-jax", true},
    {"src-path-xla", true},
    {"sm", true},
};

const std::vector<BuildJaxOption> k_nightly_options = {
    {"build-param", true}, {"clean", false}, {"clean-only", false}, {"cpu-arch", true},
    {"debug", false},      {"dry", false},   {"help", false},       {"jaxlib_only", false},
    {"no-clean", false},   {"sm", true},
};

/// getopt's reading of `args`: the resolved long option names in order ("h" for -h), or an error.
struct Parsed {
    std::vector<std::string> names;
    std::string error;
};

Parsed getopt_parse(JtbGeneration g, const std::vector<std::string>& args) {
    Parsed p;
    const auto& opts = build_jax_options(g);
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--")
            break;
        if (a.rfind("--", 0) == 0) {
            const auto eq = a.find('=');
            const std::string name =
                a.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
            const BuildJaxOption* hit = nullptr;
            std::vector<std::string> prefixed;
            for (const auto& o : opts) {
                if (o.name == name) {
                    hit = &o;
                    prefixed.clear();
                    break;
                }
                if (!name.empty() && o.name.rfind(name, 0) == 0)
                    prefixed.push_back(o.name);
            }
            if (!hit && prefixed.size() == 1)
                for (const auto& o : opts)
                    if (o.name == prefixed.front())
                        hit = &o;
            if (!hit && prefixed.size() > 1) {
                p.error = "option '--" + name + "' is ambiguous; possibilities: --" +
                          util::join(prefixed, " --");
                return p;
            }
            if (!hit) {
                p.error = "unrecognized option '" + a.substr(0, eq) + "'";
                return p;
            }
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
            p.names.push_back(hit->name);
        } else if (a.size() > 1 && a[0] == '-') {
            for (std::size_t k = 1; k < a.size(); ++k) {
                if (a[k] != 'h') {
                    p.error = std::string("invalid option -- '") + a[k] + "'";
                    return p;
                }
                p.names.push_back("help");
            }
        } else {
            p.error = "'" + a + "' is not an option (build-jax.sh ignores positional arguments)";
            return p;
        }
    }
    return p;
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
    return g == JtbGeneration::jax ? "jax" : "nightly";
}

std::optional<JtbGeneration> parse_jtb_generation(std::string_view s) {
    if (s == "jax")
        return JtbGeneration::jax;
    if (s == "nightly")
        return JtbGeneration::nightly;
    return std::nullopt;
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

const std::vector<BuildJaxOption>& build_jax_options(JtbGeneration g) {
    return g == JtbGeneration::jax ? k_jax_options : k_nightly_options;
}

std::string check_build_jax_args(JtbGeneration g, const std::vector<std::string>& args) {
    return getopt_parse(g, args).error;
}

std::string_view to_string(JtbSources s) {
    return s == JtbSources::image ? "image" : "mounted";
}

std::optional<JtbSources> parse_jtb_sources(std::string_view s) {
    if (s == "image")
        return JtbSources::image;
    if (s == "mounted")
        return JtbSources::mounted;
    return std::nullopt;
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

JtbPlan plan_jax_toolbox(const JtbSetup& s) {
    JtbPlan plan;
    const bool nightly = s.generation == JtbGeneration::nightly;
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
    // Extra build-jax.sh arguments: what getopt accepts, minus what perfsweep sets itself.
    const auto parsed = getopt_parse(s.generation, s.build_args);
    if (!parsed.error.empty())
        throw_usage("--build-jax-arg '" + util::join(s.build_args, " ") + "': build-jax.sh (" +
                    std::string(to_string(s.generation)) +
                    " images) would refuse it: " + parsed.error + "; its options: " + [&] {
                        std::vector<std::string> names;
                        for (const auto& o : build_jax_options(s.generation))
                            names.push_back("--" + o.name);
                        return util::join(names, " ");
                    }());
    for (const auto& n : parsed.names)
        if (n == "src-path-jax" || n == "src-path-xla" || n == "bazel-cache" || n == "help" ||
            n == "clean-only" || n == "dry")
            throw_usage("--build-jax-arg --" + n +
                        ": perfsweep sets the source paths and the bazel cache itself, and "
                        "--" +
                        n +
                        (n == "help" || n == "clean-only" || n == "dry"
                             ? " would build nothing"
                             : " is derived from --repo / --bazel-cache"));

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

    std::vector<std::string> build = {"build-jax.sh"};
    const bool remote =
        s.bazel_cache.starts_with("http://") || s.bazel_cache.starts_with("grpc://");
    if (s.bazel_cache.starts_with("https://") || s.bazel_cache.starts_with("grpcs://"))
        throw_usage("--bazel-cache '" + s.bazel_cache +
                    "': build-jax.sh passes only http:// and grpc:// URLs to bazel as a remote "
                    "cache; anything else becomes --disk_cache=<that text>. Use http://, grpc:// "
                    "or a directory");
    if (nightly) {
        if (remote)
            throw_usage("--bazel-cache '" + s.bazel_cache +
                        "': the 2023 (nightly-) images' build-jax.sh has no --bazel-cache; give a "
                        "directory (it is mounted as bazel's output root " +
                        std::string(k_nightly_cache_dir) + ")");
        if (!s.bazel_cache.empty()) {
            absolute(s.bazel_cache, "--bazel-cache");
            plan.mounts.push_back(s.bazel_cache + ":" + std::string(k_nightly_cache_dir));
        }
        words.insert(words.end(), {"rmwheels", jtb_source_dir(s.generation, "jax")});
    } else {
        if (remote) {
            build.insert(build.end(), {"--bazel-cache", s.bazel_cache});
        } else if (!s.bazel_cache.empty()) {
            absolute(s.bazel_cache, "--bazel-cache");
            plan.mounts.push_back(s.bazel_cache + ":" + std::string(k_cache_dir));
            build.insert(build.end(), {"--bazel-cache", std::string(k_cache_dir)});
        }
        build.insert(build.end(), {"--src-path-jax", jtb_source_dir(s.generation, "jax"),
                                   "--src-path-xla", jtb_source_dir(s.generation, "xla")});
    }
    build.insert(build.end(), s.build_args.begin(), s.build_args.end());
    words.push_back("build");
    words.insert(words.end(), build.begin(), build.end());
    for (const auto& w : words)
        plan.build_command += (plan.build_command.empty() ? "" : " ") + quote_template_word(w);

    if (!s.outputs_host.empty()) {
        absolute(s.outputs_host, "outputs");
        plan.mounts.push_back(s.outputs_host + ":" + std::string(k_outputs_dir));
        plan.outputs_dir = std::string(k_outputs_dir);
    }

    if (nightly) {
        std::string probe =
            "sh -c " +
            quote_template_word("for r in \"$@\"; do git -c \"safe.directory=*\" -C "
                                "\"/opt/$r-source\" log -1 \"--format=$r %H %cI\" || "
                                "exit 1; done") +
            " perfsweep-commits";
        for (const auto& r : s.repos)
            probe += " " + quote_template_word(r.name);
        plan.commits_probe = probe;
    } else {
        plan.commits_probe = "cat /opt/manifest.d/git-clone.yaml";
    }
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
