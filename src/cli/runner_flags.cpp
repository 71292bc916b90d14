#include "cli/runner_flags.hpp"

#include "cli/flag_values.hpp"
#include "core/exit_code.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <CLI/CLI.hpp>

#include <cctype>
#include <cstddef>

namespace perfsweep::cli {

namespace {

using O = RunnerOption;

/// A flag's name, standard help text and whether --help shows its default.
struct Standard {
    RunnerOption option;
    const char* name;
    const char* help;
    bool shows_default;
};

// In RunnerOption order (checked below).
constexpr Standard k_standard[] = {
    {O::runtime, "--runtime", "none | docker | podman | slurm", true},
    {O::image, "--image", "Image template, e.g. ghcr.io/nvidia/jax:nightly-{date}", false},
    {O::test, "--test",
     "Benchmark command template (split once, no shell), e.g. 'python3 b.py {gpu}'", false},
    {O::build, "--build",
     "Build command run before the test (in the kept container with --keep-container)", false},
    {O::keep_container, "--keep-container",
     "docker/podman: one long-lived container; build and test run with exec", false},
    {O::warmup, "--warmup", "Runs discarded first", true},
    {O::timeout, "--timeout", "Per-run timeout (90s, 30m, 2h)", true},
    {O::timeout_seconds, "--timeout", "per run timeout in seconds (default 1800)", false},
    {O::gpus, "--gpus", "GPU pool, e.g. 0,1,2,3 (one worker per GPU)", false},
    {O::metric, "--metric", "Metric name; default regex '<M>: <number>'", true},
    {O::metric_regex, "--metric-regex",
     "ECMAScript regex with one capture group holding the number", false},
    {O::unit, "--unit", "Unit (default: the metric name)", false},
    {O::benchmark, "--benchmark", "Benchmark name (default: the test command)", false},
    {O::direction, "--direction", "higher | lower (which is better)", true},
    {O::logs, "--logs", "Directory for per-run logs", true},
    {O::logs_dir, "--logs-dir", "where run logs go (default perfsweep-logs)", false},
    {O::mount, "--mount", "Container mount SRC:DST[:ro] (repeatable)", false},
    {O::env_probe, "--env-probe",
     "Environment fingerprint probe, run once per image: default (built-in script: CUDA, cuDNN, "
     "NCCL, cuBLAS, driver, GPU, Python packages), none, or a command printing key=value lines",
     true},
    {O::env, "--env", "Extra environment NAME=VALUE (repeatable)", false},
    {O::workdir, "--workdir", "Working directory ({workdir})", false},
    {O::keep_images, "--keep-images", "Do not remove images perfsweep pulled", false},
    {O::srun_arg, "--srun-arg", "Extra srun argument, e.g. --partition=gpu (repeatable)", false},
    {O::mode, "--mode",
     "metric | exit-code (exit status decides: 0 good, 1-127 bad, 125 skip, >=128 abort)", true},
};

constexpr bool in_enum_order() {
    std::size_t i = 0;
    for (const auto& s : k_standard)
        if (static_cast<std::size_t>(s.option) != i++)
            return false;
    return i == static_cast<std::size_t>(O::mode) + 1;
}
static_assert(in_enum_order(), "k_standard must list every RunnerOption in order");

// Adds one flag named `name`; returns the option, or nullptr for a flag without a value.
CLI::Option* add_one(CLI::App* cmd, RunnerFlags& f, RunnerOption o, const std::string& name,
                     const std::string& help) {
    auto& c = f.cfg;
    auto option = [&](auto& target) { return cmd->add_option(name, target, help); };
    switch (o) {
    case O::runtime:
        return option(c.runtime);
    case O::image:
        return option(c.image);
    case O::test:
        return option(c.test_command);
    case O::build:
        return option(c.build_command);
    case O::keep_container:
        cmd->add_flag(name, c.kept_container, help);
        return nullptr;
    case O::warmup:
        return option(c.warmup);
    case O::timeout:
        return option(f.timeout);
    case O::timeout_seconds:
        f.timeout_in_seconds = true;
        return option(c.timeout_s);
    case O::gpus:
        return option(f.gpus);
    case O::metric:
        return option(c.metric);
    case O::metric_regex:
        return option(c.metric_regex);
    case O::unit:
        return option(c.unit);
    case O::benchmark:
        return option(c.benchmark);
    case O::direction:
        return option(f.direction);
    case O::logs:
    case O::logs_dir:
        return option(c.logs_dir);
    case O::mount:
        return option(c.mounts);
    case O::env_probe:
        c.env_probe = "default";
        return option(c.env_probe);
    case O::env:
        return option(f.env);
    case O::workdir:
        return option(c.workdir);
    case O::keep_images:
        cmd->add_flag(name, c.keep_images, help);
        return nullptr;
    case O::srun_arg:
        return option(c.srun_args);
    case O::mode:
        return option(f.mode);
    }
    return nullptr;
}

} // namespace

void add_runner_flags(CLI::App* cmd, RunnerFlags& f, std::initializer_list<RunnerFlag> which) {
    for (const auto& w : which) {
        const auto& st = k_standard[static_cast<std::size_t>(w.option)];
        auto* opt = add_one(cmd, f, w.option, st.name, w.help ? w.help : st.help);
        if (opt && w.show_default && st.shows_default)
            opt->capture_default_str();
    }
}

bool exit_code_mode(const RunnerFlags& f) {
    const auto mode = core::parse_run_mode(f.mode);
    if (!mode)
        throw_usage("--mode '" + f.mode + "': expected metric or exit-code");
    return *mode == core::RunMode::exit_code;
}

ports::RunnerConfig runner_config(const RunnerFlags& f) {
    auto cfg = f.cfg;
    if (!f.timeout_in_seconds) {
        const auto timeout = util::parse_duration(f.timeout);
        if (!timeout)
            throw_usage("--timeout '" + f.timeout +
                        "': expected a duration such as 90s, 30m or 2h");
        cfg.timeout_s = static_cast<double>(*timeout);
    }
    cfg.direction = direction_flag(f.direction);
    cfg.exit_code_mode = exit_code_mode(f);
    if (!f.gpus.empty())
        for (const auto& g : util::split(f.gpus, ','))
            cfg.gpus.emplace_back(util::trim(g));
    // The value may be a secret: messages name the position and the NAME, never the value.
    for (std::size_t i = 0; i < f.env.size(); ++i) {
        const auto& kv = f.env[i];
        const std::string where = "--env #" + std::to_string(i + 1);
        const auto eq = kv.find('=');
        if (eq == std::string::npos)
            throw_usage(where + ": expected NAME=VALUE (no '=' found; the text is not repeated)");
        const std::string name = kv.substr(0, eq);
        bool valid = !name.empty() && name.size() <= 128 &&
                     !std::isdigit(static_cast<unsigned char>(name[0]));
        for (char c : name)
            valid = valid && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
        if (!valid)
            throw_usage(where + ": expected NAME=VALUE with NAME of letters, digits and '_' "
                                "(not starting with a digit)");
        if (!cfg.env.emplace(name, kv.substr(eq + 1)).second)
            throw_usage(where + ": " + name + " is given twice");
    }
    return cfg;
}

} // namespace perfsweep::cli
