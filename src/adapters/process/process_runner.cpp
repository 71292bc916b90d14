#include "adapters/process/process_runner.hpp"

#include "adapters/process/env_probe.hpp"
#include "adapters/process/process.hpp"
#include "core/environment.hpp"
#include "core/exit_code.hpp"
#include "core/metric_extract.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <thread>

namespace perfsweep::adapters {

namespace {

std::string read_all(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string first_line(std::string_view s) {
    s = util::trim(s);
    size_t nl = s.find('\n');
    std::string line(util::trim(s.substr(0, nl)));
    if (line.size() > 300)
        line = line.substr(0, 300) + "...";
    return line;
}

std::string safe_name(const std::string& label) {
    std::string out;
    for (char c : label)
        out +=
            (std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '.' || c == '_')
                ? c
                : '_';
    if (out.empty() || out[0] == '.')
        out.insert(0, "point");
    return out.substr(0, 100);
}

std::string format_value(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

constexpr size_t k_echo_limit = 256 * 1024;

} // namespace

struct ProcessRunner::Launch {
    std::vector<std::string> argv;
    std::map<std::string, std::string> env;
    std::string workdir;
    std::string container_name; ///< fresh container to force-remove after a timeout
};

struct ProcessRunner::RunOutcome {
    core::Status status = core::Status::ok;
    std::string reason;
    std::vector<double> values;
    double elapsed_s = 0;
    bool interrupted = false;
    bool has_code = false; ///< exit-code mode: `code` holds the exit status (-N: signal N)
    int code = 0;
};

struct ProcessRunner::Batch {
    std::mutex mutex;
    size_t planned_runs = 0;
    size_t done_runs = 0;
    double busy_s = 0;
};

ProcessRunner::ProcessRunner(ports::RunnerConfig config, ports::Progress& progress,
                             ports::Clock& clock)
    : m_cfg(std::move(config)), m_progress(progress), m_clock(clock) {
    install_interrupt_handlers(); // Ctrl-C must stop benchmarks and remove containers first
    const auto& rt = m_cfg.runtime;
    if (rt == "docker" || rt == "podman")
        m_engine = rt;
    else if (rt == "slurm")
        m_engine = "srun";
    else if (rt != "none")
        throw_usage("--runtime '" + rt + "': expected none, docker, podman or slurm");
    if (m_cfg.kept_container && !is_container())
        throw_usage("--keep-container needs --runtime docker or podman, not '" + rt + "'");
    if (is_container() && m_cfg.image.empty())
        throw_usage("--runtime " + rt + " needs --image (e.g. ghcr.io/nvidia/jax:nightly-{date})");
    if (m_cfg.test_command.empty())
        throw_usage("--test is required: the benchmark command, e.g. 'python3 bench.py'");
    m_test = core::parse_command(m_cfg.test_command, "--test");
    if (!m_cfg.build_command.empty())
        m_build = core::parse_command(m_cfg.build_command, "--build");
    for (const auto& [k, v] : m_cfg.env) // a token given with --env is masked like the others
        if (secret_like_name(k))
            protect_secret_value(v);
    m_env_probe = env_probe_command(m_cfg.env_probe);
    m_env_on = !m_env_probe.words.empty();
    if (!m_cfg.image.empty())
        (void)core::parse_command(m_cfg.image, "--image"); // validates its placeholders
    if (m_cfg.warmup < 0)
        throw_usage("--warmup " + std::to_string(m_cfg.warmup) + ": expected 0 or more");
    if (!(m_cfg.timeout_s > 0))
        throw_usage("--timeout: expected a positive duration such as 30m");
    // $PERFSWEEP_KILL_GRACE: seconds between SIGTERM and SIGKILL to a timed-out group (default
    // 10; the test suites use a short one).
    if (const char* g = std::getenv("PERFSWEEP_KILL_GRACE"); g && *g) {
        const auto v = util::parse_double(g);
        if (!v || !(*v >= 0) || *v > 3600)
            throw_usage(std::string("PERFSWEEP_KILL_GRACE='") + g +
                        "': expected seconds between 0 and 3600, e.g. 2 or 0.5");
        m_cfg.grace_s = *v;
    }
    for (const auto& g : m_cfg.gpus)
        if (g.empty() || !util::parse_int(g))
            throw_usage("--gpus: '" + g + "' is not a GPU index; expected a list like 0,1,2,3");
    if (m_cfg.metric_regex.empty())
        m_cfg.metric_regex = core::default_metric_regex(m_cfg.metric);
    (void)core::extract_metric("", m_cfg.metric_regex); // validates the regex now
    if (m_cfg.unit.empty())
        m_cfg.unit = m_cfg.metric;
    if (m_cfg.logs_dir.empty())
        m_cfg.logs_dir = "perfsweep-logs";
    m_cfg.logs_dir = std::filesystem::absolute(m_cfg.logs_dir).lexically_normal().string();
    if (m_cfg.benchmark.empty())
        m_cfg.benchmark = m_cfg.test_command;
    if (m_cfg.exit_code_mode) { // values are failure indicators: fewer is better
        m_cfg.metric = "failed";
        m_cfg.unit = "failed";
        m_cfg.direction = core::Direction::lower_is_better;
    }
}

ProcessRunner::~ProcessRunner() {
    try {
        remove_container();
        if (!m_cfg.keep_images)
            for (const auto& img : m_pulled) {
                ProcessSpec s;
                s.argv = {m_engine, "rmi", img};
                s.timeout_s = 120;
                s.ignore_interrupt = true;
                (void)run_process(s);
            }
    } catch (...) { // a destructor never throws; cleanup is best effort
    }
}

int ProcessRunner::workers() const {
    return m_cfg.gpus.empty() ? 1 : static_cast<int>(m_cfg.gpus.size());
}

bool ProcessRunner::is_container() const {
    return m_engine == "docker" || m_engine == "podman";
}

const std::map<std::string, std::string>& ProcessRunner::fingerprint() {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (m_have_fingerprint)
        return m_fingerprint;
    m_have_fingerprint = true;
    char host[256] = {};
    if (::gethostname(host, sizeof host - 1) == 0)
        m_fingerprint["hostname"] = host;
    ProcessSpec s;
    s.argv = {"nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"};
    s.timeout_s = 30;
    s.ignore_interrupt = true;
    auto c = capture_process(s);
    if (c.result.started && c.result.exit_code == 0) {
        auto fields = util::split(first_line(c.output), ',');
        if (!fields.empty())
            m_fingerprint["gpu"] = std::string(util::trim(fields[0]));
        if (fields.size() > 1)
            m_fingerprint["driver"] = std::string(util::trim(fields[1]));
    }
    return m_fingerprint;
}

std::map<std::string, std::string> ProcessRunner::base_values(const ports::PointRequest& request,
                                                              size_t worker) const {
    auto values = request.values;
    values["label"] = request.label;
    if (!m_cfg.gpus.empty())
        values["gpu"] = m_cfg.gpus[worker];
    if (!m_cfg.workdir.empty())
        values["workdir"] = m_cfg.workdir;
    else if (!is_container() && !values.count("workdir"))
        values["workdir"] = std::filesystem::current_path().string();
    return values;
}

std::string ProcessRunner::check_image(const std::string& image, std::string& digest,
                                       core::Status& status) {
    ProcessSpec s;
    s.timeout_s = 300;
    s.argv = {m_engine, "image", "inspect", "--format", "{{.Id}}", image};
    auto local = capture_process(s);
    if (!local.result.started) {
        status = core::Status::missing;
        return m_engine + " is not usable: " + local.result.error;
    }
    if (local.result.exit_code != 0) {
        s.argv = {m_engine, "manifest", "inspect", image};
        auto manifest = capture_process(s);
        if (!manifest.result.started || manifest.result.exit_code != 0) {
            status = core::Status::missing;
            return "image " + image + " not found: " + first_line(manifest.output);
        }
        s.argv = {m_engine, "pull", "--quiet", image};
        s.timeout_s = std::max(m_cfg.timeout_s, 600.0);
        auto pull = capture_process(s);
        if (!pull.result.started || pull.result.exit_code != 0 || pull.result.timed_out) {
            status = core::Status::failed;
            return "pulling " + image + " failed (" + describe(pull.result, s.timeout_s) +
                   "): " + first_line(pull.output);
        }
        std::lock_guard<std::mutex> lock(m_mutex);
        m_pulled.insert(image);
    }
    s.timeout_s = 60;
    s.argv = {m_engine, "image", "inspect", "--format", "{{index .RepoDigests 0}}", image};
    auto d = capture_process(s);
    const std::string ref = first_line(d.output);
    if (d.result.exit_code == 0 && ref.find("@sha256:") != std::string::npos)
        digest = ref.substr(ref.find('@') + 1);
    status = core::Status::ok;
    return {};
}

std::string ProcessRunner::ensure_container(const std::string& image, std::string& digest,
                                            core::Status& status) {
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (!m_container.empty()) {
            digest = m_container_digest;
            status = core::Status::ok;
            return {};
        }
    }
    std::string why = check_image(image, digest, status);
    if (status != core::Status::ok)
        return why;
    std::lock_guard<std::mutex> lock(m_mutex);
    if (!m_container.empty())
        return {};
    std::random_device rd;
    const std::string name = "perfsweep-kept-" + std::to_string(::getpid()) + "-" +
                             std::to_string(rd() % 1000000) + "-" +
                             std::to_string(++m_container_seq);
    ProcessSpec s;
    s.timeout_s = 300;
    s.argv = {m_engine, "run", "-d", "--name", name};
    if (!m_cfg.gpus.empty()) {
        if (m_engine == "docker") {
            s.argv.push_back("--gpus");
            s.argv.push_back("\"device=" + util::join(m_cfg.gpus, ",") + "\"");
        } else
            for (const auto& g : m_cfg.gpus) {
                s.argv.push_back("--device");
                s.argv.push_back("nvidia.com/gpu=" + g);
            }
    }
    for (const auto& mnt : m_cfg.mounts) {
        s.argv.push_back("-v");
        s.argv.push_back(mnt);
    }
    for (const auto& [k, v] : m_cfg.env) {
        s.argv.push_back("-e");
        s.argv.push_back(k + "=" + v);
    }
    if (!m_cfg.workdir.empty()) {
        s.argv.push_back("-w");
        s.argv.push_back(m_cfg.workdir);
    }
    s.argv.insert(s.argv.end(), {image, "sleep", "infinity"});
    auto c = capture_process(s);
    if (!c.result.started || c.result.exit_code != 0) {
        status = core::Status::failed;
        // It may exist half-started: remove it by name.
        ProcessSpec rm;
        rm.argv = {m_engine, "rm", "-f", name};
        rm.timeout_s = 60;
        rm.ignore_interrupt = true;
        (void)run_process(rm);
        return "cannot start a container from " + image + " (" + describe(c.result, s.timeout_s) +
               "): " + first_line(c.output);
    }
    m_container = name;
    m_container_image = image;
    m_container_digest = digest;
    return {};
}

void ProcessRunner::remove_container() {
    std::string name;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        name.swap(m_container);
    }
    if (name.empty())
        return;
    ProcessSpec s;
    s.ignore_interrupt = true;
    s.timeout_s = 60;
    s.argv = {m_engine, "stop", "-t", "10", name};
    (void)run_process(s);
    s.argv = {m_engine, "rm", "-f", name};
    (void)run_process(s);
}

std::string ProcessRunner::make_point_dir(const std::string& label) {
    std::error_code ec;
    std::filesystem::create_directories(m_cfg.logs_dir, ec);
    const std::string base = m_cfg.logs_dir + "/" + safe_name(label);
    for (int i = 1; i < 100000; ++i) {
        std::string dir = i == 1 ? base : base + "." + std::to_string(i);
        if (::mkdir(dir.c_str(), 0755) == 0)
            return dir;
        if (errno != EEXIST)
            throw_infra("cannot create log directory '" + dir + "': " + std::strerror(errno));
    }
    throw_infra("cannot create a log directory under '" + m_cfg.logs_dir + "'");
}

ProcessRunner::RunOutcome ProcessRunner::run_once(const core::CommandTemplate& cmd,
                                                  std::map<std::string, std::string> values,
                                                  size_t worker, const std::string& image,
                                                  const std::string& log, const std::string& title,
                                                  bool measure) {
    RunOutcome out;
    const auto argv = core::substitute(cmd, values);
    auto env = core::placeholder_environment(values);
    for (const auto& [k, v] : m_cfg.env)
        env[k] = v;
    ProcessSpec spec;
    spec.log_path = log;
    spec.timeout_s = m_cfg.timeout_s;
    spec.grace_s = m_cfg.grace_s;
    std::string fresh_container;
    if (m_engine.empty()) { // runtime none
        spec.argv = argv;
        spec.env = env;
        spec.workdir = m_cfg.workdir;
        if (!m_cfg.gpus.empty())
            spec.env["CUDA_VISIBLE_DEVICES"] = m_cfg.gpus[worker];
    } else if (m_engine == "srun") {
        spec.env = env;
        spec.argv = {"srun", "-N1", "-n1", "--job-name=perfsweep"};
        const long minutes = static_cast<long>(std::ceil((m_cfg.timeout_s + m_cfg.grace_s) / 60));
        spec.argv.push_back("--time=" + std::to_string(minutes + 1));
        if (!m_cfg.gpus.empty())
            spec.argv.push_back("--gpus=1");
        if (!image.empty()) {
            spec.argv.push_back("--container-image=" + image);
            if (!m_cfg.mounts.empty())
                spec.argv.push_back("--container-mounts=" + util::join(m_cfg.mounts, ","));
            if (!m_cfg.workdir.empty())
                spec.argv.push_back("--container-workdir=" + m_cfg.workdir);
        } else if (!m_cfg.workdir.empty())
            spec.argv.push_back("--chdir=" + m_cfg.workdir);
        spec.argv.insert(spec.argv.end(), m_cfg.srun_args.begin(), m_cfg.srun_args.end());
        spec.argv.insert(spec.argv.end(), argv.begin(), argv.end());
    } else if (m_cfg.kept_container) {
        std::string container;
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            container = m_container;
        }
        spec.argv = {m_engine, "exec"};
        if (!m_cfg.gpus.empty())
            env["CUDA_VISIBLE_DEVICES"] = std::to_string(worker); // position inside the container
        for (const auto& [k, v] : env) {
            spec.argv.push_back("-e");
            spec.argv.push_back(k + "=" + v);
        }
        if (!m_cfg.workdir.empty()) {
            spec.argv.push_back("-w");
            spec.argv.push_back(m_cfg.workdir);
        }
        spec.argv.push_back(container);
        spec.argv.insert(spec.argv.end(), argv.begin(), argv.end());
    } else {
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            std::random_device rd;
            fresh_container = "perfsweep-run-" + std::to_string(::getpid()) + "-" +
                              std::to_string(rd() % 1000000) + "-" +
                              std::to_string(++m_container_seq);
        }
        spec.argv = {m_engine, "run", "--rm", "--name", fresh_container};
        if (!m_cfg.gpus.empty()) {
            spec.argv.push_back(m_engine == "docker" ? "--gpus" : "--device");
            spec.argv.push_back(m_engine == "docker" ? "device=" + m_cfg.gpus[worker]
                                                     : "nvidia.com/gpu=" + m_cfg.gpus[worker]);
        }
        for (const auto& mnt : m_cfg.mounts) {
            spec.argv.push_back("-v");
            spec.argv.push_back(mnt);
        }
        for (const auto& [k, v] : env) {
            spec.argv.push_back("-e");
            spec.argv.push_back(k + "=" + v);
        }
        if (!m_cfg.workdir.empty()) {
            spec.argv.push_back("-w");
            spec.argv.push_back(m_cfg.workdir);
        }
        spec.argv.push_back(image);
        spec.argv.insert(spec.argv.end(), argv.begin(), argv.end());
    }

    const auto r = run_process(spec);
    out.elapsed_s = r.elapsed_s;
    out.interrupted = r.interrupted;
    if ((r.timed_out || r.interrupted) && is_container()) {
        ProcessSpec rm;
        rm.ignore_interrupt = true;
        rm.timeout_s = 60;
        if (!fresh_container.empty()) {
            rm.argv = {m_engine, "rm", "-f", fresh_container};
            (void)run_process(rm);
        } else {
            // The exec'd process may still run inside the kept container: replace the container.
            remove_container();
        }
    }
    // Known credentials are masked in the log itself and in everything taken from it (echo,
    // reasons), even when a benchmark found a token by other means and printed it.
    std::string text = r.started ? read_all(log) : std::string();
    if (std::string masked = mask_secrets(text); masked != text) {
        std::ofstream(log, std::ios::binary | std::ios::trunc) << masked;
        text = std::move(masked);
    }
    if (m_cfg.echo_logs && r.started) {
        if (text.size() > k_echo_limit)
            m_progress.untrusted_block(title + " (last 256 KiB; full log: " + log + ")",
                                       std::string_view(text).substr(text.size() - k_echo_limit));
        else
            m_progress.untrusted_block(title, text);
    }
    if (!r.started) {
        out.status = core::Status::failed;
        out.reason = r.error;
    } else if (r.timed_out) {
        out.status = core::Status::timeout;
        out.reason = describe(r, m_cfg.timeout_s);
    } else if (m_cfg.exit_code_mode && measure && !r.interrupted) {
        // git bisect run's contract (core/exit_code.hpp); a signal that killed the test is a
        // crash (bad), recorded as -N.
        out.has_code = true;
        out.code = r.signal != 0 ? -r.signal : r.exit_code;
        const auto verdict = core::classify_exit_code(out.code);
        if (verdict == core::ExitVerdict::good || verdict == core::ExitVerdict::bad) {
            out.values = {core::failure_value(verdict)};
        } else {
            out.status = core::Status::failed;
            out.reason = describe(r, m_cfg.timeout_s) +
                         (verdict == core::ExitVerdict::skip
                              ? (out.code == core::k_exit_timeout_wrapper
                                     ? ": a timeout wrapper's status, skipped (never bad)"
                                     : ": the test cannot decide this point, skipped")
                              : ": 128 and above abort the search");
        }
    } else if (r.interrupted || r.signal != 0 || r.exit_code != 0) {
        out.status = core::Status::failed;
        out.reason = describe(r, m_cfg.timeout_s);
    } else if (measure) {
        auto ex = core::extract_metric(text, m_cfg.metric_regex);
        if (ex.values.empty() || !ex.reason.empty()) {
            out.status = core::Status::failed;
            out.reason = mask_secrets(ex.reason);
        } else
            out.values = ex.values;
    }
    return out;
}

core::Measurement ProcessRunner::run_one(const ports::PointRequest& request, size_t worker,
                                         Batch& batch) {
    core::Measurement m;
    m.benchmark = m_cfg.benchmark;
    m.metric = m_cfg.metric;
    m.unit = m_cfg.unit;
    m.direction = m_cfg.direction;
    m.label = request.label;
    m.stage = request.stage;
    m.commits = request.commits;
    m.commit_times = request.commit_times;
    m.runner = fingerprint();
    m.timestamp = util::format_iso8601(static_cast<util::UnixSeconds>(m_clock.now()));
    auto values = base_values(request, worker);
    values["time"] = m.timestamp;
    if (!m_cfg.image.empty())
        m.image = core::substitute_word(m_cfg.image, values, "--image");
    values["image"] = m.image;

    const int repeats = std::max(1, request.repeats);
    const size_t planned = static_cast<size_t>(m_cfg.warmup + repeats);
    auto finish_unplanned = [&](size_t runs_done) {
        std::lock_guard<std::mutex> lock(batch.mutex);
        if (planned > runs_done)
            batch.planned_runs -= planned - runs_done;
    };
    auto report = [&](const std::string& what, const RunOutcome& o) {
        std::lock_guard<std::mutex> lock(batch.mutex);
        batch.done_runs += 1;
        batch.planned_runs = std::max(batch.planned_runs, batch.done_runs);
        batch.busy_s += o.elapsed_s;
        std::string result;
        if (o.has_code)
            result = "exit " + std::to_string(o.code) + " (" +
                     std::string(core::to_string(core::classify_exit_code(o.code))) + ")";
        else if (o.status == core::Status::ok) {
            std::vector<std::string> vs;
            for (double v : o.values)
                vs.push_back(format_value(v));
            result = util::join(vs, " ") + " " + m_cfg.unit;
        } else
            result = std::string(core::to_string(o.status)) + ": " + o.reason;
        const double avg = batch.busy_s / static_cast<double>(batch.done_runs);
        const double eta = avg * static_cast<double>(batch.planned_runs - batch.done_runs) /
                           static_cast<double>(workers());
        std::string label = request.label;
        for (char& c : label)
            if (c == '\n' || c == '\r')
                c = ' ';
        m_progress.line(label + "  " + what + "  " + result + "  " +
                        util::format_duration(o.elapsed_s) + "  (" +
                        std::to_string(batch.done_runs) + "/" + std::to_string(batch.planned_runs) +
                        " runs, ETA " + util::format_duration(eta) + ")");
    };

    core::Status image_status = core::Status::ok;
    std::string why;
    if (is_container())
        why = m_cfg.kept_container ? ensure_container(m.image, m.digest, image_status)
                                   : check_image(m.image, m.digest, image_status);
    if (image_status != core::Status::ok) {
        m.status = image_status;
        m.reason = why;
        finish_unplanned(0);
        m_progress.line(request.label + "  " + std::string(core::to_string(m.status)) + ": " + why);
        return m;
    }
    const std::string dir = make_point_dir(request.label);
    size_t runs = 0;
    auto fail = [&](const RunOutcome& o, const std::string& what, const std::string& log) {
        m.status = o.status;
        m.reason = what + ": " + o.reason;
        m.values.clear();
        m.log = log;
        finish_unplanned(runs);
    };
    for (int w = 1; w <= m_cfg.warmup; ++w) {
        const std::string log = dir + "/warmup-" + std::to_string(w) + ".log";
        auto v = values;
        v["repeat"] = "warmup" + std::to_string(w);
        const std::string what = "warmup " + std::to_string(w) + "/" + std::to_string(m_cfg.warmup);
        auto o = run_once(m_test, v, worker, m.image, log, request.label + " " + what, true);
        ++runs;
        report(what, o);
        if (o.status != core::Status::ok && !m_cfg.exit_code_mode) { // exit-code mode: discarded
            fail(o, what, log);
            return m;
        }
    }
    for (int r = 1; static_cast<int>(m.values.size()) < repeats; ++r) {
        const std::string log = dir + "/run-" + std::to_string(r) + ".log";
        auto v = values;
        v["repeat"] = std::to_string(r);
        const std::string what = "run " + std::to_string(r) + "/" + std::to_string(repeats);
        auto o = run_once(m_test, v, worker, m.image, log, request.label + " " + what, true);
        ++runs;
        report(what, o);
        m.log = log;
        if (o.has_code) {
            m.exit_codes.push_back(o.code);
            if (m.failure_log.empty() && core::classify_exit_code(o.code) == core::ExitVerdict::bad)
                m.failure_log = log;
        }
        if (o.status != core::Status::ok) {
            fail(o, what, log);
            return m;
        }
        m.values.insert(m.values.end(), o.values.begin(), o.values.end());
    }
    finish_unplanned(runs);
    m.status = core::Status::ok;
    return m;
}

std::vector<core::Measurement>
ProcessRunner::run_points(const std::vector<ports::PointRequest>& requests) {
    std::vector<core::Measurement> results(requests.size());
    Batch batch;
    for (const auto& r : requests)
        batch.planned_runs += static_cast<size_t>(m_cfg.warmup + std::max(1, r.repeats));
    std::atomic<size_t> next{0};
    std::mutex err_mutex;
    std::exception_ptr error;
    auto work = [&](size_t worker) {
        for (;;) {
            if (interrupted() != 0)
                return;
            {
                std::lock_guard<std::mutex> lock(err_mutex);
                if (error)
                    return;
            }
            const size_t i = next.fetch_add(1);
            if (i >= requests.size())
                return;
            try {
                results[i] = run_one(requests[i], worker, batch);
                attach_environment(results[i], requests[i], worker);
            } catch (...) {
                std::lock_guard<std::mutex> lock(err_mutex);
                if (!error)
                    error = std::current_exception();
                return;
            }
        }
    };
    const size_t n = std::min(static_cast<size_t>(workers()), requests.size());
    if (n <= 1)
        work(0);
    else {
        std::vector<std::thread> threads;
        for (size_t w = 0; w < n; ++w)
            threads.emplace_back(work, w);
        for (auto& t : threads)
            t.join();
    }
    if (error)
        std::rethrow_exception(error);
    if (int sig = interrupted())
        throw_infra("interrupted by signal " + std::to_string(sig) +
                    "; running benchmarks were stopped and containers removed");
    return results;
}

ports::StepOutcome ProcessRunner::build(const ports::PointRequest& request) {
    ports::StepOutcome out;
    if (m_build.words.empty())
        throw_usage("no build command configured (--build)");
    auto values = base_values(request, 0);
    values["time"] = util::format_iso8601(static_cast<util::UnixSeconds>(m_clock.now()));
    std::string image;
    if (!m_cfg.image.empty())
        image = core::substitute_word(m_cfg.image, values, "--image");
    values["image"] = image;
    if (is_container() && m_cfg.kept_container) {
        std::string digest;
        core::Status st = core::Status::ok;
        std::string why = ensure_container(image, digest, st);
        if (st != core::Status::ok) {
            out.reason = why;
            return out;
        }
    }
    const std::string dir = make_point_dir(request.label);
    out.log = dir + "/build.log";
    values["repeat"] = "build";
    auto o = run_once(m_build, values, 0, image, out.log, request.label + " build", false);
    if (o.interrupted || interrupted())
        throw_infra("interrupted during the build of " + request.label);
    const bool ran_ok = o.status == core::Status::ok; // exit 0; no metric is read from a build
    out.ok = ran_ok;
    if (!ran_ok)
        out.reason = std::string(core::to_string(o.status)) + ": " + o.reason;
    m_progress.line(request.label + "  build  " + (ran_ok ? "ok" : out.reason) + "  " +
                    util::format_duration(o.elapsed_s));
    return out;
}

void ProcessRunner::attach_environment(core::Measurement& m, const ports::PointRequest& request,
                                       size_t worker) {
    if (!m_env_on || m.status == core::Status::missing || interrupted() != 0)
        return;
    auto values = base_values(request, worker);
    values["time"] = m.timestamp;
    values["image"] = m.image;
    values["repeat"] = "env-probe";
    const auto argv = core::substitute(m_env_probe, values);
    std::string key = m.image;
    for (const auto& w : argv)
        key += '\n' + w;
    std::lock_guard<std::mutex> lock(m_env_mutex); // one probe at a time; later calls hit the cache
    if (auto it = m_env_cache.find(key); it != m_env_cache.end()) {
        m.environment = it->second;
        return;
    }
    std::vector<std::string> warnings;
    std::map<std::string, std::string> env;
    const std::string dir = make_point_dir(request.label + ".env-probe");
    const std::string log = dir + "/env-probe.log";
    auto o =
        run_once(m_env_probe, values, worker, m.image, log, request.label + " env-probe", false);
    if (o.interrupted || interrupted() != 0)
        return;
    if (o.status != core::Status::ok)
        warnings.push_back("environment probe failed (" + std::string(core::to_string(o.status)) +
                           ": " + o.reason + "); log " + log);
    else {
        auto parsed = core::parse_environment_probe(read_all(log), log);
        env = std::move(parsed.entries);
        warnings.insert(warnings.end(), parsed.warnings.begin(), parsed.warnings.end());
    }
    if (is_container() && !m.image.empty())
        for (auto& [k, v] : image_labels(m_engine, m.image, warnings))
            env.emplace(k, v);
    for (const auto& w : warnings)
        m_progress.line(request.label + "  warning: " + w);
    m_progress.line(request.label + "  environment: " + std::to_string(env.size()) + " entries (" +
                    log + ")");
    m_env_cache[key] = env;
    m.environment = std::move(env);
}

} // namespace perfsweep::adapters
