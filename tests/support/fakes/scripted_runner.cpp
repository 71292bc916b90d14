#include "support/fakes/scripted_runner.hpp"

#include "core/command_template.hpp"
#include "core/exit_code.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <algorithm>

namespace perfsweep::fakes {

namespace {

class ScriptedRunner final : public ports::BuildingRunner {
public:
    ScriptedRunner(ports::RunnerConfig config, ScriptedRunners& owner, ports::Clock& clock,
                   RunLog& log)
        : m_cfg(std::move(config)), m_owner(owner), m_clock(clock), m_log(log) {}

    std::vector<core::Measurement>
    run_points(const std::vector<ports::PointRequest>& requests) override {
        std::vector<core::Measurement> out;
        for (const auto& r : requests) {
            std::map<std::string, std::vector<double>> named;
            auto m = measure(r, named);
            if (m_cfg.metrics.size() < 2) {
                out.push_back(std::move(m));
                continue;
            }
            for (const auto& name : m_cfg.metrics) { // as ProcessRunner: one per metric
                auto x = m;
                x.metric = x.unit = name;
                x.values = named[name];
                if (x.status == core::Status::ok && x.values.size() != m.values.size()) {
                    x.status = core::Status::failed;
                    x.values.clear();
                    x.reason = "no " + name + " value in the output";
                } else if (x.status != core::Status::ok)
                    x.values.clear();
                out.push_back(std::move(x));
            }
        }
        return out;
    }
    int workers() const override { return std::max<int>(1, static_cast<int>(m_cfg.gpus.size())); }
    std::map<std::string, std::string> runner_fingerprint() override { return m_owner.machine; }

    ports::StepOutcome build(const ports::PointRequest& request) override {
        ++m_log.builds[state_key(request.commits)];
        if (!m_owner.build)
            return {true, "", ""};
        return m_owner.build(request);
    }

    ports::CommandOutcome run_command(const ports::PointRequest& request,
                                      const std::string&) override {
        ++m_log.commands[request.label];
        if (!m_owner.command)
            return {false, "exit code 127 (no probe scripted)", "", ""};
        return m_owner.command(request);
    }

private:
    core::Measurement measure(const ports::PointRequest& request,
                              std::map<std::string, std::vector<double>>& named) {
        if (!m_owner.run)
            throw_infra("fakes::ScriptedRunners: no run script");
        m_log.points.push_back(request);
        core::Measurement m;
        m.benchmark = m_cfg.benchmark; // as ProcessRunner: the options resolved the defaults
        m.metric = m_cfg.metric;
        m.unit = m_cfg.unit;
        m.direction = m_cfg.direction;
        m.label = request.label;
        m.stage = request.stage;
        m.commits = request.commits;
        m.commit_times = request.commit_times;
        m.runner = m_owner.machine;
        m.timestamp = util::format_iso8601(static_cast<util::UnixSeconds>(m_clock.now()));
        auto values = request.values;
        values["time"] = m.timestamp;
        if (!m_cfg.image.empty())
            m.image = core::substitute_word(m_cfg.image, values, "--image");
        const int repeats = std::max(1, request.repeats);
        for (int k = 0; k < m_cfg.warmup + repeats; ++k) {
            const bool warmup = k < m_cfg.warmup;
            const int repeat = warmup ? 0 : request.first_repeat + k - m_cfg.warmup;
            const Run r = m_owner.run(request, repeat);
            if (r.kind == Run::Kind::missing) { // the image: nothing ran
                m.status = core::Status::missing;
                m.reason = r.reason;
                m.values.clear();
                return m;
            }
            ++m_log.runs[request.label];
            m.log = m_cfg.logs_dir + "/" + request.label + "/run-" + std::to_string(k + 1) + ".log";
            if (m_owner.logs)
                m_owner.logs->write_atomic(m.log, r.output);
            if (r.kind == Run::Kind::hang) {
                m_clock.sleep(m_cfg.timeout_s);
                m.status = core::Status::timeout;
                m.reason = "run " + std::to_string(k + 1) + ": timed out after " +
                           util::format_duration(m_cfg.timeout_s);
                m.values.clear();
                return m;
            }
            m_clock.sleep(m_owner.seconds_per_run);
            if (m_cfg.exit_code_mode && r.kind != Run::Kind::fail) { // as ProcessRunner
                const int code = r.kind == Run::Kind::exit ? r.code : 0;
                const auto verdict = core::classify_exit_code(code);
                if (warmup)
                    continue; // discarded, whatever it said
                m.exit_codes.push_back(code);
                if (verdict == core::ExitVerdict::bad && m.failure_log.empty())
                    m.failure_log = m.log;
                if (verdict == core::ExitVerdict::good || verdict == core::ExitVerdict::bad) {
                    m.values.push_back(core::failure_value(verdict));
                    continue;
                }
                m.status = core::Status::failed;
                m.reason = "run " + std::to_string(k + 1) + ": exit code " + std::to_string(code) +
                           (verdict == core::ExitVerdict::skip
                                ? ": the test cannot decide this point, skipped"
                                : ": 128 and above abort the search");
                m.values.clear();
                return m;
            }
            if (r.kind == Run::Kind::fail || r.kind == Run::Kind::exit) {
                m.status = core::Status::failed;
                m.reason = "run " + std::to_string(k + 1) + ": " +
                           (r.kind == Run::Kind::exit && r.code == 0
                                ? "no " + m_cfg.metric + " value in the output"
                                : r.reason);
                m.values.clear();
                return m;
            }
            if (warmup)
                continue;
            m.values.push_back(r.value);
            for (const auto& name : m_cfg.metrics)
                if (const auto it = r.metrics.find(name); it != r.metrics.end())
                    named[name].push_back(it->second);
                else if (name == m_cfg.metric && r.metrics.empty())
                    named[name].push_back(r.value);
        }
        m.status = core::Status::ok;
        return m;
    }

    ports::RunnerConfig m_cfg;
    ScriptedRunners& m_owner;
    ports::Clock& m_clock;
    RunLog& m_log;
};

long sum(const std::map<std::string, int>& m) {
    long n = 0;
    for (const auto& [k, v] : m)
        n += v;
    return n;
}

} // namespace

long RunLog::total_runs() const {
    return sum(runs);
}

long RunLog::total_builds() const {
    return sum(builds);
}

std::unique_ptr<ports::BuildingRunner> ScriptedRunners::make(const ports::RunnerConfig& config) {
    if (config.runtime != "none" && config.runtime != "docker" && config.runtime != "podman" &&
        config.runtime != "slurm")
        throw_usage("--runtime '" + config.runtime + "': expected none, docker, podman or slurm");
    log.configs.push_back(config);
    return std::make_unique<ScriptedRunner>(config, *this, m_clock, log);
}

std::string state_key(const std::map<std::string, std::string>& commits) {
    std::vector<std::string> parts;
    for (const auto& [name, sha] : commits)
        parts.push_back(name + "@" + sha);
    return util::join(parts, " ");
}

} // namespace perfsweep::fakes
