#include "adapters/process/env_probe.hpp"

#include "adapters/json/json_parse.hpp"
#include "adapters/process/process.hpp"
#include "core/environment.hpp"
#include "util/strings.hpp"

#include <rapidjson/document.h>

#include <unistd.h>

namespace perfsweep::adapters {

namespace {

// No braces except ${...}: the words go through placeholder substitution like any command.
constexpr const char* k_script =
    R"PROBE(# perfsweep-env-probe: prints key=value lines; every piece is optional
# What an image's entrypoint printed before (CUDA images' banner) ends at the start line.
echo "# perfsweep-env-probe"
if command -v nvidia-smi >/dev/null 2>&1; then
  line=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1)
  if [ -n "$line" ]; then
    echo "gpu=${line%%,*}"
    echo "driver=${line##*, }"
    echo "gpu_count=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | wc -l)"
  fi
fi
for py in python3 python; do
  if command -v "$py" >/dev/null 2>&1; then
    "$py" - <<'PY' 2>/dev/null
import json, os, re, sys
print("python=%d.%d.%d" % sys.version_info[:3])
def out(k, v):
    if v:
        print(k + "=" + str(v).strip())
toolkit = {}
try:
    d = json.load(open("/usr/local/cuda/version.json"))
    for src, key in (("cuda", "cuda"), ("cuda_cudart", "cudart"), ("libcublas", "cublas")):
        if src in d and d[src].get("version"):
            toolkit[key] = d[src]["version"]
            out(key, d[src]["version"])
except Exception:
    pass
if "cuda" not in toolkit:  # no toolkit manifest: nvcc names the toolkit release
    try:
        import subprocess
        v = subprocess.run(["nvcc", "--version"], capture_output=True, text=True, timeout=10).stdout
        m = re.search(r"release [0-9.]+, V([0-9.]+)", v)
        if m:
            toolkit["cuda"] = m.group(1)
            out("cuda", m.group(1))
    except Exception:
        pass
inc = ["/usr/include", "/usr/local/cuda/include", "/usr/include/x86_64-linux-gnu",
       "/usr/include/aarch64-linux-gnu"]
def header(name, macros):
    for i in inc:
        try:
            t = open(i + "/" + name).read()
        except Exception:
            continue
        m = [re.search(r"#define\s+" + x + r"\s+(\d+)", t) for x in macros]
        if all(m):
            return ".".join(x.group(1) for x in m)
cudnn = header("cudnn_version.h", ("CUDNN_MAJOR", "CUDNN_MINOR", "CUDNN_PATCHLEVEL"))
out("cudnn", cudnn)
out("nccl", header("nccl.h", ("NCCL_MAJOR", "NCCL_MINOR", "NCCL_PATCH")))
if not cudnn:
    try:
        import subprocess
        so = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True, timeout=10).stdout
        m = re.search(r"libcudnn\.so\.(\d+)", so)
        if m:
            out("cudnn_so", m.group(1))
    except Exception:
        pass
# Installed distributions from their dist-info directory names (nothing is imported).
seen = set()
for entry in sys.path:
    try:
        names = os.listdir(entry or ".")
    except Exception:
        continue
    for n in sorted(names):
        m = re.match(r"([A-Za-z0-9_.]+)-([^-]+)\.dist-info$", n)
        if not m:
            continue
        name = m.group(1).lower().replace("-", "_").replace(".", "_")
        if name in seen:
            continue
        if name.startswith("jax") or name.startswith("nvidia_") or name in ("flax", "numpy"):
            seen.add(name)
            out(name, m.group(2))
            # pip-installed CUDA (jax[cuda]): the same keys a toolkit manifest gives
            for key, wheel in (("cudart", "nvidia_cuda_runtime"), ("cublas", "nvidia_cublas")):
                if key not in toolkit and re.match(wheel + r"(_cu[0-9]+)?$", name):
                    toolkit[key] = m.group(2)
                    out(key, m.group(2))
PY
    break
  fi
done
exit 0
)PROBE";

} // namespace

std::map<std::string, std::string> probe_runner_fingerprint() {
    std::map<std::string, std::string> fp;
    char host[256] = {};
    if (::gethostname(host, sizeof host - 1) == 0)
        fp["hostname"] = host;
    ProcessSpec s;
    s.argv = {"nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"};
    s.timeout_s = 30;
    s.ignore_interrupt = true;
    auto c = capture_process(s);
    if (c.result.started && c.result.exit_code == 0) {
        // The first line of the output (leading blanks skipped), at most 300 characters.
        auto text = util::trim(c.output);
        auto line = util::trim(text.substr(0, text.find('\n')));
        std::string first(line.substr(0, 300));
        if (line.size() > 300)
            first += "...";
        auto fields = util::split(first, ',');
        if (!fields.empty())
            fp["gpu"] = std::string(util::trim(fields[0]));
        if (fields.size() > 1)
            fp["driver"] = std::string(util::trim(fields[1]));
    }
    return fp;
}

core::CommandTemplate default_env_probe() {
    core::CommandTemplate t;
    t.source = std::string("sh -c '# ") + k_env_probe_marker + " ...'";
    t.words = {"sh", "-c", k_script};
    return t;
}

core::CommandTemplate env_probe_command(const std::string& spec) {
    const auto s = util::trim(spec);
    if (s.empty() || s == "none")
        return {};
    if (s == "default")
        return default_env_probe();
    return core::parse_command(s, "--env-probe");
}

std::map<std::string, std::string> image_labels(const std::string& engine, const std::string& image,
                                                std::vector<std::string>& warnings) {
    std::map<std::string, std::string> out;
    ProcessSpec s;
    s.argv = {engine, "image", "inspect", "--format", "{{json .Config.Labels}}", image};
    s.timeout_s = 60;
    s.ignore_interrupt = true;
    const auto c = capture_process(s);
    if (!c.result.started || c.result.exit_code != 0)
        return out; // not present locally: labels are optional, never pulled for
    rapidjson::Document d;
    if (parse_json(d, c.output) || !(d.IsObject() || d.IsNull())) {
        warnings.push_back("image labels of " + image + ": not a JSON object; ignored");
        return out;
    }
    if (d.IsNull())
        return out;
    std::size_t rejected = 0;
    for (auto m = d.MemberBegin(); m != d.MemberEnd(); ++m) {
        const std::string key =
            "label." + std::string(m->name.GetString(), m->name.GetStringLength());
        if (!m->value.IsString()) {
            ++rejected;
            continue;
        }
        const std::string value(m->value.GetString(), m->value.GetStringLength());
        if (!core::check_environment_entry(key, value).empty() ||
            out.size() >= core::k_env_entries_max) {
            ++rejected;
            continue;
        }
        out.emplace(key, value);
    }
    if (rejected > 0)
        warnings.push_back("image labels of " + image + ": " + std::to_string(rejected) +
                           " label(s) rejected (key charset, length, control characters)");
    return out;
}

} // namespace perfsweep::adapters
