#include "adapters/process/process_runner.hpp"

#include "adapters/process/containment.hpp"
#include "adapters/process/env_probe.hpp"
#include "adapters/process/process.hpp"
#include "adapters/process/worker_pool.hpp"
#include "core/environment.hpp"
#include "core/exit_code.hpp"
#include "core/metric_extract.hpp"
#include "core/metric_set.hpp"
#include "core/series.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <optional>
#include <thread>

namespace perfsweep::adapters {

namespace {

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

/// A run's values for a progress line, not the record: at most 8, then how many there were.
std::string shown_values(const std::vector<double>& values) {
    std::vector<std::string> vs;
    for (std::size_t i = 0; i < values.size() && i < 8; ++i)
        vs.push_back(format_value(values[i]));
    if (values.size() > 8)
        vs.push_back("... (" + std::to_string(values.size()) + " values)");
    return util::join(vs, " ");
}

constexpr size_t k_echo_limit = 256 * 1024;    ///< log tail echoed in GitHub Actions
constexpr size_t k_output_limit = 1024 * 1024; ///< output kept for a probe's caller

} // namespace

struct ProcessRunner::RunOutcome {
    core::Status status = core::Status::ok;
    std::string reason;
    std::vector<double> values;
    double elapsed_s = 0;
    bool interrupted = false;
    bool has_code = false; ///< exit-code mode: `code` holds the exit status (-N: signal N)
    int code = 0;
    std::string output;                       ///< Reading::output: the first k_output_limit bytes
    std::vector<core::NamedExtraction> named; ///< several metrics: each one's extraction
};

/// Several metrics of one point: each one's values over the runs, or why it has none.
struct ProcessRunner::MetricValues {
    struct One {
        std::vector<double> values;
        std::string reason; ///< the first run without a value of it
        int runs = 0;       ///< runs that gave it a value
    };
    std::map<std::string, One> by_name;
    std::vector<std::string> order; ///< names in order of first appearance
    int runs = 0;                   ///< measured runs
    One& operator[](const std::string& name) { return by_name[name]; }
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
    check_runtime(m_cfg);
    configure();
    m_runtime = make_runtime(m_cfg);
}

ProcessRunner::ProcessRunner(ports::RunnerConfig config, std::unique_ptr<Runtime> runtime,
                             ports::Progress& progress, ports::Clock& clock)
    : m_cfg(std::move(config)), m_runtime(std::move(runtime)), m_progress(progress),
      m_clock(clock) {
    if (!m_runtime)
        throw_infra("ProcessRunner needs a runtime");
    configure();
}

ProcessRunner::~ProcessRunner() = default;

void ProcessRunner::configure() {
    install_interrupt_handlers(); // Ctrl-C must stop benchmarks and remove containers first
    // Before anything is measured: what runs of a killed perfsweep left running (its guard was
    // killed too) must not share the machine with ours.
    const auto left = end_orphaned_runs();
    if (left.runs > 0) {
        m_progress.line(
            "ended what " + std::to_string(left.runs) +
            " run(s) of a killed perfsweep left behind: " + std::to_string(left.processes) +
            " process(es), " + std::to_string(left.cleanups) + " cleanup command(s)");
        for (const auto& d : left.details)
            m_progress.line("  " + d);
    }
    if (left.waited_s > 0)
        m_progress.line("waited " + util::format_duration(left.waited_s) +
                        " for the guard of a killed perfsweep to end its runs");
    static std::once_flag told; // once a process: several runners share the registry
    std::call_once(told, [this] {
        const auto where = containment();
        if (!where.registry_note.empty())
            m_progress.line("warning: " + where.registry_note);
        else if (where.registry.empty())
            m_progress.line("warning: the runs in flight are not recorded (" +
                            where.registry_why_not +
                            "): a benchmark that leaves its process group may outlive a killed "
                            "perfsweep; set PERFSWEEP_RUN_DIR to a private directory");
    });
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
    // $PERFSWEEP_LOG_LIMIT: bytes of a run's output its log keeps (the first and the last half;
    // default 2 MiB; 0 = everything).
    if (const char* l = std::getenv("PERFSWEEP_LOG_LIMIT"); l && *l) {
        const auto v = util::parse_int(l);
        if (!v || *v < 0)
            throw_usage(std::string("PERFSWEEP_LOG_LIMIT='") + l +
                        "': expected a number of bytes, e.g. 4194304 (0: no cap)");
        m_log_limit = static_cast<std::size_t>(*v);
    }
    for (const auto& g : m_cfg.gpus)
        if (g.empty() || !util::parse_int(g))
            throw_usage("--gpus: '" + g + "' is not a GPU index; expected a list like 0,1,2,3");
    if (several_metrics()) {
        if (m_cfg.exit_code_mode)
            throw_usage("--check exit-code reads no metric; drop the extra --metric and the "
                        "(?<name>...) group");
        (void)core::MetricSetStream(m_cfg.metrics, m_cfg.metric_regex); // validates them now
    } else {
        if (m_cfg.metric_regex.empty())
            m_cfg.metric_regex = core::default_metric_regex(m_cfg.metric);
        (void)core::extract_metric("", m_cfg.metric_regex); // validates the regex now
    }
    if (m_cfg.unit.empty())
        m_cfg.unit = m_cfg.metric;
    if (m_cfg.logs_dir.empty())
        m_cfg.logs_dir = "perfsweep-logs";
    m_cfg.logs_dir = std::filesystem::absolute(m_cfg.logs_dir).lexically_normal().string();
    if (m_cfg.benchmark.empty())
        m_cfg.benchmark = core::default_benchmark_name(m_cfg.test_command);
    if (m_cfg.exit_code_mode) { // values are failure indicators: fewer is better
        m_cfg.metric = "failed";
        m_cfg.unit = "failed";
        m_cfg.direction = core::Direction::lower_is_better;
    }
}

bool ProcessRunner::several_metrics() const {
    return m_cfg.metrics.size() > 1 || core::has_name_group(m_cfg.metric_regex);
}

int ProcessRunner::workers() const {
    return m_cfg.gpus.empty() ? 1 : static_cast<int>(m_cfg.gpus.size());
}

const std::map<std::string, std::string>& ProcessRunner::fingerprint() {
    std::call_once(m_fingerprint_once, [this] { m_fingerprint = probe_runner_fingerprint(); });
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
    else if (!m_runtime->in_container() && !values.count("workdir"))
        values["workdir"] = std::filesystem::current_path().string();
    return values;
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
                                                  const std::map<std::string, std::string>& values,
                                                  size_t worker, const std::string& image,
                                                  const std::string& log, const std::string& title,
                                                  Reading reading) {
    RunOutcome out;
    Invocation inv;
    inv.argv = core::substitute(cmd, values);
    inv.env = core::placeholder_environment(values);
    for (const auto& [k, v] : m_cfg.env)
        inv.env[k] = v;
    inv.image = image;
    inv.worker = worker;
    Launch launch = m_runtime->wrap(inv);
    launch.spec.log_path = log;
    launch.spec.log_limit = m_log_limit;
    launch.spec.timeout_s = m_cfg.timeout_s;
    launch.spec.grace_s = m_cfg.grace_s;

    // The output streams by once: the metric is read from it, the log tail for the Actions echo
    // and a probe's first MiB are kept; nothing else of it stays in memory.
    const bool measure = reading == Reading::metric;
    std::optional<core::MetricStream> metric;
    std::optional<core::MetricSetStream> metric_set;
    if (measure && several_metrics())
        metric_set.emplace(m_cfg.metrics.empty() ? std::vector<std::string>{m_cfg.metric}
                                                 : m_cfg.metrics,
                           m_cfg.metric_regex);
    else if (measure && !m_cfg.exit_code_mode)
        metric.emplace(m_cfg.metric_regex);
    std::string tail;
    std::size_t total = 0;
    launch.spec.on_output = [&](std::string_view text) {
        total += text.size();
        if (metric)
            metric->feed(text);
        if (metric_set)
            metric_set->feed(text);
        if (m_cfg.echo_logs) {
            tail.append(text);
            if (tail.size() > 2 * k_echo_limit)
                tail.erase(0, tail.size() - k_echo_limit);
        }
        if (reading == Reading::output && out.output.size() < k_output_limit)
            out.output.append(text.substr(0, k_output_limit - out.output.size()));
    };
    const auto r = run_process(launch.spec);
    out.elapsed_s = r.elapsed_s;
    out.interrupted = r.interrupted;
    if (r.timed_out || r.interrupted)
        m_runtime->after_kill(launch);
    if (r.log_incomplete) // disk full: the output was still read, the log file is cut short
        m_progress.line(title + "  warning: writing " + log + " failed; the log is incomplete");
    if (m_cfg.echo_logs && r.started) {
        if (total > k_echo_limit)
            m_progress.untrusted_block(title + " (last 256 KiB; full log: " + log + ")",
                                       std::string_view(tail).substr(tail.size() - k_echo_limit));
        else
            m_progress.untrusted_block(title, tail);
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
    } else if (metric_set) {
        out.named = metric_set->finish(); // each metric's own failure is told per metric
        for (auto& n : out.named)
            n.extraction.reason = mask_secrets(n.extraction.reason);
    } else if (metric) {
        auto ex = metric->finish();
        if (ex.values.empty() || !ex.reason.empty()) {
            out.status = core::Status::failed;
            out.reason = mask_secrets(ex.reason);
        } else
            out.values = ex.values;
    }
    return out;
}

std::vector<core::Measurement> ProcessRunner::measure(const ports::PointRequest& request,
                                                      size_t worker, Batch& batch) {
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
    if (!m_cfg.testbed.empty())
        m.runner["testbed"] = m_cfg.testbed;
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
        else if (o.status == core::Status::ok && !o.named.empty()) { // several metrics
            std::vector<std::string> parts;
            for (const auto& n : o.named)
                parts.push_back(n.metric + " " +
                                (n.extraction.values.empty() ? std::string("-")
                                                             : shown_values(n.extraction.values)));
            result = util::join(parts, ", ");
        } else if (o.status == core::Status::ok) {
            result = shown_values(o.values) + " " + m_cfg.unit;
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

    MetricValues acc;
    const auto ready = m_runtime->prepare(m.image);
    m.digest = ready.digest;
    if (ready.status != core::Status::ok) {
        m.status = ready.status;
        m.reason = ready.reason;
        finish_unplanned(0);
        m_progress.line(request.label + "  " + std::string(core::to_string(m.status)) + ": " +
                        ready.reason);
        return split_metrics(m, acc);
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
        auto o =
            run_once(m_test, v, worker, m.image, log, request.label + " " + what, Reading::metric);
        ++runs;
        report(what, o);
        if (o.status != core::Status::ok && !m_cfg.exit_code_mode) { // exit-code mode: discarded
            fail(o, what, log);
            return split_metrics(m, acc);
        }
    }
    const bool several = several_metrics();
    for (int r = 1; several ? r <= repeats : static_cast<int>(m.values.size()) < repeats; ++r) {
        const std::string log = dir + "/run-" + std::to_string(r) + ".log";
        auto v = values;
        v["repeat"] = std::to_string(request.first_repeat + r - 1);
        const std::string what = "run " + std::to_string(r) + "/" + std::to_string(repeats);
        auto o =
            run_once(m_test, v, worker, m.image, log, request.label + " " + what, Reading::metric);
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
            return split_metrics(m, acc);
        }
        m.values.insert(m.values.end(), o.values.begin(), o.values.end());
        for (const auto& n : o.named) { // several metrics: each keeps its own values
            if (!acc.by_name.count(n.metric))
                acc.order.push_back(n.metric);
            auto& a = acc[n.metric];
            if (n.extraction.values.empty() || !n.extraction.reason.empty()) {
                if (a.reason.empty())
                    a.reason = what + ": " + n.extraction.reason;
            } else {
                a.values.insert(a.values.end(), n.extraction.values.begin(),
                                n.extraction.values.end());
                ++a.runs;
            }
        }
        acc.runs = r;
    }
    finish_unplanned(runs);
    m.status = core::Status::ok;
    return split_metrics(m, acc);
}

std::vector<core::Measurement> ProcessRunner::split_metrics(const core::Measurement& m,
                                                            const MetricValues& acc) const {
    if (!several_metrics())
        return {m};
    std::vector<core::Measurement> out;
    auto one = [&](const std::string& name) {
        core::Measurement x = m;
        x.metric = name;
        x.unit = name;
        return x;
    };
    if (m.status != core::Status::ok || acc.order.empty()) { // nothing was read
        std::vector<std::string> names = m_cfg.metrics;
        if (names.empty())
            names = {m_cfg.metric};
        for (const auto& name : names) {
            auto x = one(name);
            if (x.status == core::Status::ok) {
                x.status = core::Status::failed;
                x.reason = "no run gave a value";
            }
            out.push_back(std::move(x));
        }
        return out;
    }
    for (const auto& name : acc.order) {
        const auto& a = acc.by_name.at(name);
        auto x = one(name.empty() ? m_cfg.metric : name);
        x.values = a.values;
        if (a.runs < acc.runs || x.values.empty()) {
            x.status = core::Status::failed;
            x.values.clear();
            x.reason = a.reason.empty() ? std::to_string(a.runs) + " of " +
                                              std::to_string(acc.runs) + " runs gave a value"
                                        : a.reason;
        }
        out.push_back(std::move(x));
    }
    return out;
}

std::vector<core::Measurement>
ProcessRunner::run_points(const std::vector<ports::PointRequest>& requests) {
    std::vector<std::vector<core::Measurement>> results(requests.size());
    Batch batch;
    for (const auto& r : requests)
        batch.planned_runs += static_cast<size_t>(m_cfg.warmup + std::max(1, r.repeats));
    run_pool(
        static_cast<size_t>(workers()), requests.size(),
        [&](size_t i, size_t worker) {
            results[i] = measure(requests[i], worker, batch);
            for (auto& m : results[i])
                attach_environment(m, requests[i], worker);
        },
        [] { return interrupted() != 0; });
    if (int sig = interrupted())
        throw_infra("interrupted by signal " + std::to_string(sig) +
                    "; running benchmarks were stopped and containers removed");
    std::vector<core::Measurement> out;
    for (auto& r : results)
        for (auto& m : r)
            out.push_back(std::move(m));
    return out;
}

void ProcessRunner::run_stream(
    const std::function<std::optional<ports::PointRequest>()>& next,
    const std::function<void(const ports::PointRequest&, std::vector<core::Measurement>)>& done) {
    const auto n = static_cast<size_t>(workers());
    if (n <= 1) {
        ports::PointRunner::run_stream(next, done);
        return;
    }
    std::mutex mutex; // next and done, never at once; the counters below
    std::condition_variable changed;
    size_t in_flight = 0;
    bool stop = false;
    std::exception_ptr error;
    Batch batch;
    auto loop = [&](size_t worker) {
        std::unique_lock<std::mutex> lock(mutex);
        try {
            for (;;) {
                std::optional<ports::PointRequest> q;
                // A free worker takes the next point; none while a point in flight may still
                // make one useful: wait for it to report.
                while (!stop && !(q = next())) {
                    if (in_flight == 0) {
                        stop = true;
                        break;
                    }
                    changed.wait(lock);
                }
                if (stop || interrupted() != 0) {
                    stop = true;
                    changed.notify_all();
                    return;
                }
                ++in_flight;
                {
                    std::lock_guard<std::mutex> counts(batch.mutex);
                    batch.planned_runs +=
                        static_cast<size_t>(m_cfg.warmup + std::max(1, q->repeats));
                }
                lock.unlock();
                auto result = measure(*q, worker, batch);
                for (auto& m : result)
                    attach_environment(m, *q, worker);
                lock.lock();
                --in_flight;
                if (!stop && interrupted() == 0)
                    done(*q, std::move(result));
                changed.notify_all();
            }
        } catch (...) {
            if (!error)
                error = std::current_exception();
            stop = true;
            changed.notify_all();
        }
    };
    std::vector<std::thread> threads;
    for (size_t w = 0; w < n; ++w)
        threads.emplace_back(loop, w);
    for (auto& t : threads)
        t.join();
    if (error)
        std::rethrow_exception(error);
    if (int sig = interrupted())
        throw_infra("interrupted by signal " + std::to_string(sig) +
                    "; running benchmarks were stopped and containers removed");
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
    if (const auto ready = m_runtime->prepare_build(image); ready.status != core::Status::ok) {
        out.reason = ready.reason;
        return out;
    }
    const std::string dir = make_point_dir(request.label);
    out.log = dir + "/build.log";
    values["repeat"] = "build";
    auto o =
        run_once(m_build, values, 0, image, out.log, request.label + " build", Reading::nothing);
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

ports::CommandOutcome ProcessRunner::run_command(const ports::PointRequest& request,
                                                 const std::string& name) {
    ports::CommandOutcome out;
    auto values = base_values(request, 0);
    values["time"] = util::format_iso8601(static_cast<util::UnixSeconds>(m_clock.now()));
    std::string image;
    if (!m_cfg.image.empty())
        image = core::substitute_word(m_cfg.image, values, "--image");
    values["image"] = image;
    values["repeat"] = name;
    if (const auto ready = m_runtime->prepare(image); ready.status != core::Status::ok) {
        out.reason = ready.reason;
        return out;
    }
    out.log = make_point_dir(request.label) + "/" + safe_name(name) + ".log";
    auto o =
        run_once(m_test, values, 0, image, out.log, request.label + " " + name, Reading::output);
    if (o.interrupted || interrupted())
        throw_infra("interrupted during the " + name + " of " + request.label);
    out.ok = o.status == core::Status::ok;
    if (!out.ok)
        out.reason = std::string(core::to_string(o.status)) + ": " + o.reason;
    out.output = std::move(o.output);
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
    auto o = run_once(m_env_probe, values, worker, m.image, log, request.label + " env-probe",
                      Reading::output);
    if (o.interrupted || interrupted() != 0)
        return;
    if (o.status != core::Status::ok)
        warnings.push_back("environment probe failed (" + std::string(core::to_string(o.status)) +
                           ": " + o.reason + "); log " + log);
    else {
        auto parsed = core::parse_environment_probe(o.output, log);
        env = std::move(parsed.entries);
        warnings.insert(warnings.end(), parsed.warnings.begin(), parsed.warnings.end());
    }
    if (const auto engine = m_runtime->image_engine(); !engine.empty() && !m.image.empty())
        for (auto& [k, v] : image_labels(engine, m.image, warnings))
            env.emplace(k, v);
    for (const auto& w : warnings)
        m_progress.line(request.label + "  warning: " + w);
    m_progress.line(request.label + "  environment: " + std::to_string(env.size()) + " entries (" +
                    log + ")");
    m_env_cache[key] = env;
    m.environment = std::move(env);
}

} // namespace perfsweep::adapters
