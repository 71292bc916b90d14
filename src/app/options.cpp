#include "app/options.hpp"

#include "core/command_template.hpp"
#include "core/commit_probe.hpp"
#include "core/exit_code.hpp"
#include "core/series.hpp"
#include "util/enum_names.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <cctype>
#include <set>

namespace perfsweep::app {

namespace {

bool takes(const OptionValues& v, OptionName name) {
    return find_command_option(v.command(), name) != nullptr;
}

bool exit_code_mode_of(const OptionValues& v) {
    const std::string t = v.text("check");
    const auto m = core::parse_run_mode(t);
    if (!m)
        throw_usage(v.describe("check") + " '" + t + "': expected " +
                    util::enum_choices(core::k_run_mode_names));
    return *m == core::RunMode::exit_code;
}

core::SweepStrategy strategy_of(const OptionValues& v) {
    const std::string t = v.text("strategy");
    const auto s = core::parse_strategy(t);
    if (!s)
        throw_usage(v.describe("strategy") + " '" + t +
                    "': expected exhaustive, adaptive or bisect");
    return *s;
}

std::vector<std::string> gpus_of(const OptionValues& v) {
    std::vector<std::string> out;
    const std::string t = v.text("gpus");
    if (t.empty())
        return out;
    std::set<std::string> seen;
    for (const auto& g : util::split(t, ',')) {
        const std::string id(util::trim(g));
        if (id.empty() || id.find_first_of(" \t") != std::string::npos)
            throw_usage(v.describe("gpus") + " '" + t +
                        "': expected GPU ids separated by commas, e.g. 0,1,2,3");
        if (!seen.insert(id).second)
            throw_usage(v.describe("gpus") + " '" + t + "': GPU " + id +
                        " is listed twice (each GPU runs one point at a time)");
        out.push_back(id);
    }
    return out;
}

std::map<std::string, std::string> env_of(const OptionValues& v) {
    std::map<std::string, std::string> out;
    const auto items = v.list("env");
    // The value may be a secret: messages name the position and the NAME, never the value.
    for (std::size_t i = 0; i < items.size(); ++i) {
        const auto& kv = items[i];
        const std::string where = v.describe("env") + " #" + std::to_string(i + 1);
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
        if (!out.emplace(name, kv.substr(eq + 1)).second)
            throw_usage(where + ": " + name + " is given twice");
    }
    return out;
}

// A command template that uses {image} needs an image to fill it in.
void check_image_placeholder(const std::string& command, const std::string& flag,
                             const ports::RunnerConfig& cfg) {
    if (command.empty() || !cfg.image.empty())
        return;
    const auto t = core::parse_command(command, flag);
    if (std::find(t.fields.begin(), t.fields.end(), "image") != t.fields.end())
        throw_usage(flag + " '" + command +
                    "': uses {image}, but no --image is given (name the image, or drop {image})");
}

// The hourly stage's search: bisect (fewest builds), adaptive or sequential.
core::SweepStrategy hourly_strategy_of(const OptionValues& v, OptionName name) {
    const std::string t = v.text(name);
    const auto s = util::parse_enum(k_hourly_strategy_names, t);
    if (!s)
        throw_usage(v.describe(name) + " '" + t + "': expected " +
                    util::enum_choices(k_hourly_strategy_names));
    return *s;
}

// --repeats and --max-repeats: an explicit cap below the first repeats is refused; without one the
// cap rises to the repeats.
std::pair<int, int> repeats_of(const OptionValues& v) {
    const int repeats = v.integer_int("repeats");
    const int max_repeats = v.integer_int("max-repeats");
    if (v.given("max-repeats") && max_repeats < repeats)
        throw_usage(v.describe("max-repeats") + " " + std::to_string(max_repeats) +
                    ": expected at least --repeats (" + std::to_string(repeats) + ")");
    return {repeats, std::max(max_repeats, repeats)};
}

std::chrono::seconds max_time_of(const OptionValues& v) {
    return std::chrono::seconds{v.seconds("max-time").value_or(0)};
}

std::map<std::string, std::string> commit_labels_of(const OptionValues& v,
                                                    const ports::RunnerConfig& cfg) {
    std::map<std::string, std::string> out;
    const auto values = v.list("commits-label");
    const std::string flag = v.describe("commits-label");
    if (!values.empty() && cfg.runtime != "docker" && cfg.runtime != "podman")
        throw_usage(flag + " '" + values.front() +
                    "': image labels are read with --runtime docker or podman, not '" +
                    cfg.runtime + "' (use --commits-probe instead)");
    if (!values.empty() && cfg.env_probe == "none")
        throw_usage(flag + " '" + values.front() +
                    "': image labels are read with the environment probe; drop --env-probe none");
    for (const auto& item : values) {
        auto [repo, label] = split_name_value(item, flag, "REPO=LABEL");
        if (!core::is_probe_name(repo) || !core::is_probe_name(label) || label.size() > 58)
            throw_usage(flag + " '" + item +
                        "': expected REPO=LABEL, names of 1-64 characters [A-Za-z0-9._/-] (the "
                        "label at most 58), e.g. jax=com.example.jax-commit");
        if (!out.emplace(repo, label).second)
            throw_usage(flag + " '" + item + "': repo '" + repo + "' is given twice");
    }
    return out;
}

std::vector<RepoSpec> repos_of(const OptionValues& v) {
    std::map<std::string, std::string> refs;
    if (takes(v, "ref-for"))
        for (const auto& s : v.list("ref-for")) {
            auto [name, ref] = split_name_value(s, v.describe("ref-for"), "NAME=REF");
            refs[name] = ref;
        }
    std::vector<RepoSpec> out;
    std::set<std::string> names;
    for (const auto& s : v.list("repo")) {
        auto [name, path] = split_name_value(s, v.describe("repo"), "NAME=PATH");
        if (!names.insert(name).second)
            throw_usage(v.describe("repo") + " '" + s + "': repo '" + name + "' is given twice");
        RepoSpec spec{name, path, v.text("ref")};
        if (auto it = refs.find(name); it != refs.end()) {
            spec.ref = it->second;
            refs.erase(it);
        }
        out.push_back(spec);
    }
    if (!refs.empty())
        throw_usage(v.describe("ref-for") + " " + refs.begin()->first +
                    ": no --repo has that name");
    return out;
}

std::map<std::string, std::string> commit_list(const OptionValues& v, OptionName name) {
    std::map<std::string, std::string> out;
    const std::string s = v.text(name);
    if (s.empty())
        return out;
    for (const auto& part : util::split(s, ',')) {
        auto [repo, sha] = split_name_value(std::string(util::trim(part)), v.describe(name),
                                            "NAME=SHA,NAME=SHA...");
        if (!out.emplace(repo, sha).second)
            throw_usage(v.describe(name) + ": repo '" + repo + "' is given twice");
    }
    return out;
}

util::Time time_of(const OptionValues& v, OptionName name) {
    return parse_time_text(v.text(name), v.describe(name));
}

// investigate --record: today, a date, or none.
std::optional<RecordNight> record_night_of(const OptionValues& v) {
    const std::string t = v.text("record");
    if (t.empty())
        return std::nullopt;
    if (t == "today")
        return RecordNight{true, {}};
    const auto d = util::parse_day(t);
    if (!d)
        throw_usage(v.describe("record") + " '" + t +
                    "': expected a calendar date YYYY-MM-DD or today");
    return RecordNight{false, *d};
}

// investigate --from/--to: both, two dates, --from not after --to.
core::DateRange range_of(const OptionValues& v) {
    const std::string from = v.text("from"), to = v.text("to");
    const auto f = util::parse_day(from), t = util::parse_day(to);
    if (!f || !t || *t < *f)
        throw_usage("--from/--to '" + from + "'/'" + to +
                    "': expected two dates YYYY-MM-DD, --from not after --to");
    return {*f, *t};
}

/// Whether the commands of `rc` run in a container image (docker/podman, pyxis under Slurm).
bool in_container(const ports::RunnerConfig& rc) {
    return rc.runtime == "docker" || rc.runtime == "podman" ||
           (rc.runtime == "slurm" && !rc.image.empty());
}

} // namespace

util::Time parse_time_text(const std::string& text, const std::string& where) {
    std::string why;
    const auto t = util::parse_iso8601(text, &why);
    if (!t)
        throw_usage(where + " '" + text + "': " + why +
                    " (expected ISO 8601 UTC such as 2023-08-24T13:00:00Z or with an offset)");
    return util::time_at(*t);
}

std::pair<std::string, std::string>
split_name_value(const std::string& text, const std::string& flag, const char* expected) {
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
        throw_usage(flag + " '" + text + "': expected " + expected);
    return {text.substr(0, eq), text.substr(eq + 1)};
}

ports::RunnerConfig resolve_runner(const OptionValues& v) {
    ports::RunnerConfig cfg;
    auto text = [&](OptionName name, std::string& out) {
        if (takes(v, name))
            out = v.text(name);
    };
    auto list = [&](OptionName name, std::vector<std::string>& out) {
        if (takes(v, name))
            out = v.list(name);
    };
    text("runtime", cfg.runtime);
    text("image", cfg.image);
    text("test", cfg.test_command);
    text("build", cfg.build_command);
    if (takes(v, "keep-container"))
        cfg.kept_container = v.flag("keep-container");
    if (takes(v, "warmup"))
        cfg.warmup = v.integer_int("warmup");
    if (takes(v, "timeout"))
        cfg.timeout_s = static_cast<double>(v.seconds("timeout").value_or(1800));
    if (takes(v, "gpus"))
        cfg.gpus = gpus_of(v);
    text("metric", cfg.metric);
    text("metric-regex", cfg.metric_regex);
    text("unit", cfg.unit);
    text("benchmark", cfg.benchmark);
    if (cfg.benchmark.empty() && !cfg.test_command.empty()) // stable when the arguments change
        cfg.benchmark = core::default_benchmark_name(cfg.test_command);
    text("testbed", cfg.testbed);
    if (takes(v, "metric") && find_command_option(v.command(), "metric")->repeatable)
        cfg.metrics = v.list("metric");
    if (cfg.metrics.size() == 1)
        cfg.metrics.clear();
    if (!cfg.metrics.empty())
        cfg.metric = cfg.metrics.front();
    if (takes(v, "direction"))
        cfg.direction = v.direction("direction");
    text("logs", cfg.logs_dir);
    list("mount", cfg.mounts);
    text("env-probe", cfg.env_probe);
    if (takes(v, "env"))
        cfg.env = env_of(v);
    text("workdir", cfg.workdir);
    if (takes(v, "keep-images"))
        cfg.keep_images = v.flag("keep-images");
    list("srun-arg", cfg.srun_args);
    if (takes(v, "check"))
        cfg.exit_code_mode = exit_code_mode_of(v);
    check_image_placeholder(cfg.test_command, v.describe("test"), cfg);
    if (takes(v, "build"))
        check_image_placeholder(cfg.build_command, v.describe("build"), cfg);
    return cfg;
}

RunRequest resolve_run(const OptionValues& v, util::UnixSeconds now) {
    RunRequest r;
    r.runner = resolve_runner(v);
    auto& req = r.point;
    req.repeats = v.integer_int("repeats");
    const std::string stage_text = v.text("stage");
    const auto stage = core::parse_stage(stage_text);
    if (!stage)
        throw_usage(v.describe("stage") + " '" + stage_text +
                    "': expected record, daily, hourly or commit");
    req.stage = *stage;
    const std::string date = v.text("date");
    if (!date.empty())
        req.values["date"] = date;
    for (const auto& kv : v.list("commit")) {
        auto [name, sha] = split_name_value(kv, v.describe("commit"), "NAME=SHA");
        req.values["commit:" + name] = sha;
        req.commits[name] = sha;
    }
    for (const auto& kv : v.list("path")) {
        auto [name, path] = split_name_value(kv, v.describe("path"), "NAME=DIR");
        req.values["path:" + name] = path;
    }
    req.label = v.given("label") ? v.text("label")
                : !date.empty()  ? date
                                 : util::format_iso8601(now);
    r.history = v.text("history");
    r.json = v.flag("json");
    return r;
}

ProbeRequest resolve_probe(const OptionValues& v) {
    ProbeRequest r;
    r.runner = resolve_runner(v);
    r.label = v.text("label");
    r.repeats = v.integer_int("repeats");
    r.history = v.text("history");
    r.good_label = v.text("good-label");
    if (!r.good_label.empty() && r.history.empty())
        throw_usage(v.describe("good-label") + " '" + r.good_label +
                    "': needs --history (the records it names)");
    const bool refs = v.given("good-value") || v.given("reference") || !r.history.empty();
    if (r.runner.exit_code_mode) {
        if (refs)
            throw_usage("probe --check exit-code: --good-value, --reference and --history are for "
                        "the metric check; the exit status decides here");
        return r;
    }
    r.threshold = v.threshold("threshold", r.runner.direction);
    const int given = (v.given("good-value") ? 1 : 0) + (v.given("reference") ? 1 : 0) +
                      (!r.history.empty() ? 1 : 0);
    if (given != 1)
        throw_usage("probe (metric check): give exactly one reference: --good-value V "
                    "(repeatable), --reference V with --threshold, or --history FILE");
    for (const auto& g : v.list("good-value")) {
        const auto d = util::parse_double(util::trim(g));
        if (!d)
            throw_usage(v.describe("good-value") + " '" + g + "': expected a number");
        r.good_values.push_back(*d);
    }
    if (v.given("reference"))
        r.reference = v.number("reference");
    return r;
}

DailyRequest resolve_daily(const OptionValues& v) {
    DailyRequest r;
    auto& cfg = r.runner;
    cfg = resolve_runner(v);
    auto& o = r.options;
    o.dates = resolve_date_range(v.text("from"), v.text("to"));
    o.benchmark = cfg.benchmark;
    o.metric = cfg.exit_code_mode ? "failed" : cfg.metric;
    o.sweep.strategy = strategy_of(v);
    std::tie(o.sweep.repeats, o.sweep.max_repeats) = repeats_of(v);
    o.sweep.min_span = v.integer_int("min-span");
    o.sweep.min_change = v.threshold("threshold", cfg.direction);
    o.sweep.max_runs = static_cast<long>(v.integer("max-runs"));
    o.sweep.direction = cfg.direction;
    if (cfg.exit_code_mode)
        o.sweep.comparison = core::ComparisonKind::pass_fail;
    o.max_time = max_time_of(v);
    o.state_dir = v.text("state");
    o.rerun = v.flag("rerun");
    o.commit_labels = commit_labels_of(v, cfg);
    o.identity = journal_identity(o, cfg);
    if (const std::string probe = v.text("commits-probe"); !probe.empty())
        r.commits_probe = commits_probe_runner(cfg, probe);
    r.history = v.text("history");
    r.json = v.flag("json");
    return r;
}

HourlyRequest resolve_hourly(const OptionValues& v) {
    HourlyRequest r;
    auto& o = r.options;
    o.repos = repos_of(v);
    o.fetch = v.flag("fetch");
    o.token_env = v.text("token-env");
    if (v.given("from"))
        o.from = time_of(v, "from");
    if (v.given("to"))
        o.to = time_of(v, "to");
    r.from_result = v.text("from-result");
    if (!r.from_result.empty() &&
        (v.given("from") || v.given("to") || v.given("good-commits") || v.given("bad-commits")))
        throw_usage(v.describe("from-result") +
                    " cannot be combined with --from/--to/--good-commits/--bad-commits");
    o.good_commits = commit_list(v, "good-commits");
    o.bad_commits = commit_list(v, "bad-commits");
    o.step = std::chrono::seconds{*v.seconds("step")};
    o.any_parent = v.flag("any-parent");
    o.strategy = hourly_strategy_of(v, "strategy");
    std::tie(o.repeats, o.max_repeats) = repeats_of(v);
    o.state_dir = v.text("state");
    o.max_builds = v.integer_int("max-builds");
    o.max_time = max_time_of(v);
    o.to_commit = v.flag("to-commit");
    auto rc = resolve_runner(v);
    r.jax_toolbox = resolve_jax_toolbox(v, o.state_dir);
    o.builds = default_build_store(o.state_dir, v.integer_int("keep-builds"), rc.build_command,
                                   r.jax_toolbox.has_value());
    if (r.jax_toolbox && !v.given("runtime")) // the mode rebuilds inside the image
        rc.runtime = "docker";
    o.settings_key = journal_identity(o, rc);
    o.exit_code_mode = rc.exit_code_mode;
    o.direction = rc.direction;
    o.outputs_dir = v.text("outputs"); // a directory per tested state; default LOGS/outputs
    if (o.outputs_dir.empty())
        o.outputs_dir = (rc.logs_dir.empty() ? "perfsweep-logs" : rc.logs_dir) + "/outputs";
    else if (o.outputs_dir == "none")
        o.outputs_dir.clear();
    const auto salloc = v.list("salloc-arg");
    if (!salloc.empty() && rc.runtime != "slurm")
        throw_usage(v.describe("salloc-arg") + " needs --runtime slurm");
    if (!v.flag("plan")) {
        if ((!r.jax_toolbox && rc.build_command.empty()) || rc.test_command.empty())
            throw_usage(r.jax_toolbox
                            ? "hourly: --test is required unless --plan is given"
                            : "hourly: --build and --test are required unless --plan is given "
                              "(or --jax-toolbox, which writes the build command)");
        // One environment for the whole search: a kept container (docker/podman) or a held
        // Slurm allocation whose steps share one named pyxis container.
        rc.kept_container =
            rc.runtime == "docker" || rc.runtime == "podman" || rc.runtime == "slurm";
        if (!r.jax_toolbox && in_container(rc)) // the mode mounts what its plan needs
            for (const auto& repo : o.repos)
                rc.mounts.push_back(repo.path + ":" + repo.path);
        rc.salloc_args = salloc;
        rc.allocation_time_s =
            o.max_time.count() > 0 ? static_cast<double>(o.max_time.count()) + 900 : 0;
        r.runner = rc;
    }
    r.json = v.flag("json");
    return r;
}

std::string journal_identity(const DailyOptions& daily, const ports::RunnerConfig& rc) {
    const auto& s = daily.sweep;
    std::string id = "from=" + util::format_day(daily.dates.from) +
                     "\nto=" + util::format_day(daily.dates.to) + "\nimage=" + rc.image +
                     "\nruntime=" + rc.runtime + "\ntest=" + rc.test_command +
                     "\nbenchmark=" + daily.benchmark + "\nmetric=" + rc.metric +
                     "\nstrategy=" + std::string(core::to_string(s.strategy)) +
                     "\nrepeats=" + std::to_string(s.repeats) +
                     "\nmax_repeats=" + std::to_string(s.max_repeats) +
                     "\nmin_span=" + std::to_string(s.min_span) +
                     "\nmin_change=" + std::to_string(s.min_change) + "\n";
    if (s.comparison == core::ComparisonKind::pass_fail)
        id += "mode=exit-code\n";
    return id;
}

std::string journal_identity(const HourlyOptions& hourly, const ports::RunnerConfig& rc) {
    std::string id = "build=" + rc.build_command + " test=" + rc.test_command +
                     " runtime=" + rc.runtime + " image=" + rc.image + " metric=" + rc.metric +
                     " regex=" + rc.metric_regex + " repeats=" + std::to_string(hourly.repeats);
    if (hourly.exit_code_mode)
        id += " mode=exit-code";
    return id;
}

ports::RunnerConfig commits_probe_runner(const ports::RunnerConfig& benchmark,
                                         const std::string& command) {
    auto pc = benchmark;
    pc.test_command = command;
    pc.warmup = 0;
    pc.logs_dir = benchmark.logs_dir + "/probe";
    pc.env_probe = "none"; // the environment is probed by the benchmark's runner
    return pc;
}

CommentRequest resolve_comment_target(const OptionValues& v, const CommentContext& context,
                                      const std::string& sticky_issue_metric) {
    const std::string command(v.command().name);
    CommentRequest req;
    req.repo = v.given("github-repo") ? v.text("github-repo") : context.github_repository;
    if (req.repo.empty())
        throw_usage(command + ": name the GitHub repository with --github-repo OWNER/NAME "
                              "(GITHUB_REPOSITORY is not set)");
    const int targets =
        (v.given("pr") ? 1 : 0) + (v.given("issue") ? 1 : 0) + (v.given("new-issue") ? 1 : 0);
    if (targets > 1)
        throw_usage(command + ": give only one of --pr, --issue and --new-issue");
    if (v.given("pr"))
        req.number = v.integer("pr");
    if (v.given("issue"))
        req.number = v.integer("issue");
    req.new_issue_title = v.text("new-issue");
    req.labels = v.list("issue-label");
    req.key = v.text("key");
    if (!req.number && req.new_issue_title.empty()) {
        if (!context.actions)
            throw_usage(command + ": give --pr, --issue or --new-issue");
        const auto t = context.actions->event_target();
        if (t.number)
            req.number = t.number;
        else if (!sticky_issue_metric.empty() && reports_to_sticky_issue(t.event_name))
            req.new_issue_title = sticky_issue_title(sticky_issue_metric); // the nightly job
        else
            throw_usage(command + ": no --pr, --issue or --new-issue, and " + t.why_none +
                        "; give one of them explicitly");
    }
    if (!sticky_issue_metric.empty() && !req.number && req.labels.empty())
        req.labels = {k_sticky_issue_label};
    return req;
}

InvestigateRequest resolve_investigate(const OptionValues& v, const CommentContext& context) {
    InvestigateRequest r;
    auto& o = r.options;
    o.history = v.text("history");
    o.record = record_night_of(v);
    if (v.given("from") || v.given("to"))
        o.range = range_of(v);
    const std::string narrow = v.text("narrow");
    const auto n = core::parse_narrow(narrow);
    if (!n)
        throw_usage(v.describe("narrow") + " '" + narrow + "': expected " +
                    util::enum_choices(core::k_narrow_names));
    o.narrow = *n;
    o.fail_on_regression = v.flag("fail-on-regression");
    o.commits_probe = v.text("commits-probe");
    o.state_dir = v.text("state");
    o.out_dir = v.text("output-dir");
    o.key = v.text("key");
    o.dashboard_url = v.text("dashboard-url");
    o.token_env = v.text("token-env");

    // The daily stage: its runner, and the sweep with the pipeline's threshold.
    auto& d = o.daily_runner;
    d = resolve_runner(v);
    d.build_command.clear(); // --build rebuilds source states (the hourly runner), not nightlies
    o.threshold = v.threshold("threshold", d.direction); // a ratio needs the direction
    auto& sweep = o.daily.sweep;
    sweep.strategy = strategy_of(v);
    std::tie(sweep.repeats, sweep.max_repeats) = repeats_of(v);
    sweep.min_span = v.integer_int("min-span");
    sweep.max_runs = static_cast<long>(v.integer("max-runs"));
    sweep.direction = d.direction;
    sweep.min_change = o.threshold;
    if (d.exit_code_mode)
        sweep.comparison = core::ComparisonKind::pass_fail;
    o.daily.commit_labels = commit_labels_of(v, d);
    o.daily.max_time = max_time_of(v);

    // The hourly and commit stages: the daily runner rebuilding the sources.
    auto& hourly = o.hourly_options;
    hourly.repos = repos_of(v);
    hourly.step = std::chrono::seconds{*v.seconds("step")};
    hourly.strategy = hourly_strategy_of(v, "hourly-strategy");
    const int hourly_repeats = v.integer_int("hourly-repeats");
    hourly.repeats = hourly_repeats > 0 ? hourly_repeats : sweep.repeats;
    if (v.given("max-repeats") && hourly.repeats > sweep.max_repeats)
        throw_usage(v.describe("max-repeats") + " " + std::to_string(sweep.max_repeats) +
                    ": expected at least --hourly-repeats (" + std::to_string(hourly.repeats) +
                    ")");
    hourly.max_repeats = std::max(sweep.max_repeats, hourly.repeats);
    hourly.max_builds = v.integer_int("max-builds");
    hourly.max_time = o.daily.max_time;
    hourly.any_parent = v.flag("any-parent");
    hourly.to_commit = v.flag("to-commit");
    hourly.direction = d.direction;
    hourly.exit_code_mode = d.exit_code_mode;
    auto& h = o.hourly_runner;
    h = d;
    h.build_command = v.text("build");
    h.test_command = v.given("hourly-test") ? v.text("hourly-test") : d.test_command;
    check_image_placeholder(h.test_command, v.describe("hourly-test"), h);
    // One environment per hourly search: a kept container or a held Slurm allocation (each
    // state's output directory is mounted by prepare_source_runner).
    h.kept_container = d.runtime == "docker" || d.runtime == "podman" || d.runtime == "slurm";
    r.jax_toolbox = resolve_jax_toolbox(v, o.state_dir);
    hourly.builds = default_build_store(o.state_dir, v.integer_int("keep-builds"), h.build_command,
                                        r.jax_toolbox.has_value());
    if (!r.jax_toolbox && in_container(h)) // the mode mounts what its plan needs
        for (const auto& repo : hourly.repos)
            h.mounts.push_back(repo.path + ":" + repo.path);
    // Each tested source state gets OUTPUT_DIR/states/<state> for the benchmark's own files.
    hourly.outputs_dir = o.out_dir + "/states";
    if (!hourly.repos.empty() && h.build_command.empty() && !r.jax_toolbox)
        throw_usage("investigate: --repo needs --build (the command that rebuilds the sources) "
                    "or --jax-toolbox (which writes it)");
    if (v.flag("comment"))
        o.comment = resolve_comment_target(v, context, d.metric.empty() ? "performance" : d.metric);
    o.close_on_recovery = v.flag("close-on-recovery");
    if (o.close_on_recovery && (!o.comment || o.comment->number))
        throw_usage(v.describe("close-on-recovery") +
                    ": closes the sticky issue; it needs --comment on a scheduled run or "
                    "--new-issue");
    r.json = v.flag("json");
    return r;
}

} // namespace perfsweep::app
