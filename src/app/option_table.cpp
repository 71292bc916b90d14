#include "app/option_table.hpp"

#include "app/hourly.hpp"
#include "core/sweep_plan.hpp"
#include "util/error.hpp"

#include <sstream>
#include <stdexcept>
#include <string>

namespace perfsweep::app {

namespace {

using T = OptionType;

std::string number_text(double x) {
    std::ostringstream s;
    s << x;
    return s.str();
}

// The planners' defaults as option text: one source (core::SweepOptions for the daily sweep and
// merge, app::HourlyOptions for the hourly stage), so that the CLI, the action, a config file and
// the demo run the planner as its tests and benchmarks measured it.
struct PlannerDefaults {
    std::string strategy, repeats, max_repeats, min_span, threshold, alpha;
    std::string hourly_strategy, hourly_repeats, hourly_max_repeats;
};

const PlannerDefaults& planner_defaults() {
    static const PlannerDefaults d = [] {
        const core::SweepOptions s;
        const HourlyOptions h;
        return PlannerDefaults{std::string(core::to_string(s.strategy)),
                               std::to_string(s.repeats),
                               std::to_string(s.max_repeats),
                               std::to_string(s.min_span),
                               number_text(s.min_change),
                               number_text(s.alpha),
                               std::string(util::enum_name(k_hourly_strategy_names, h.strategy)),
                               std::to_string(h.repeats),
                               std::to_string(h.max_repeats)};
    }();
    return d;
}

// Every option once: name, type, value name, help (, min for integers, nonempty for text).
std::vector<OptionSpec> make_options() {
    return {
        // What is measured and where it is kept.
        {"history", T::text, "SPEC", "History: a JSON Lines file, git:BRANCH or git+URL#BRANCH", 0,
         true},
        {"benchmark", T::text, "NAME",
         "Benchmark name: with the metric and the testbed it names a series (default: the test "
         "command's program or script name, e.g. run.sh for 'bash bench/run.sh 256')",
         0, true},
        {"testbed", T::text, "NAME",
         "The machine class of the points, stored as runner testbed (default: the runner GPU's "
         "class, e.g. 'H100 80GB HBM3'); points of two testbeds never pool",
         0, true},
        {"metric", T::text, "NAME", "Metric name; the default regex reads '<NAME>: <number>'", 0,
         true},
        {"metric-regex", T::text, "REGEX",
         "ECMAScript regex with one capture group holding the number; record and run also "
         "take a (?<name>...) group naming the metric of each match (one series per name)",
         0, true},
        {"unit", T::text, "UNIT", "Unit of the metric (default: the metric name)"},
        {"direction", T::text, "higher|lower", "Which is better: higher or lower values", 0, true},
        {"threshold", T::threshold, "THRESHOLD",
         "Smallest change that counts: relative (0.02 or 2%) or, from 100% on, a ratio of how "
         "much worse (150% or 1.5x)"},
        {"json", T::flag, "", "Print the result as JSON"},
        // Reading data.
        {"input", T::text, "FILE", "File to read ('-' = stdin)", 0, true},
        {"inputs", T::list, "PATH", "Files to read ('-' = stdin), or directories of them"},
        {"format", T::text, "FORMAT",
         "Format of the input: csv | grep | benchmark-action | jsonl (default: detected per "
         "file)",
         0, true},
        // One measurement.
        {"label", T::text, "LABEL", "Label of the point", 0, true},
        {"date", T::date, "DATE", "Nightly date of the point ({date}, {yyyy}, {mm}, {dd})"},
        {"value", T::list, "NUMBER", "A measured value (repeat the flag for repeats)"},
        {"benchmark-output", T::text, "FILE",
         "Benchmark output to read the metric from ('-' = stdin)", 0, true},
        {"match", T::text, "all|first|last", "Which matches to keep when the output has several"},
        {"digest", T::text, "DIGEST", "Image digest"},
        {"commit", T::list, "NAME=SHA",
         "Commit of source repo NAME ({commit:NAME} in templates; repeatable)"},
        {"path", T::list, "NAME=DIR", "Directory of source repo NAME ({path:NAME}; repeatable)"},
        {"runner", T::list, "KEY=VALUE", "Runner fingerprint entry (repeatable)"},
        {"status", T::text, "STATUS", "ok | failed | timeout | missing"},
        {"reason", T::text, "TEXT", "Why the measurement is not ok"},
        {"log", T::text, "FILE", "Path of the run's log file"},
        {"stage", T::text, "STAGE", "Stage of the pipeline", 0, true},
        // How a point runs.
        {"runtime", T::text, "RUNTIME", "none | docker | podman | slurm", 0, true},
        {"image", T::text, "IMAGE",
         "Container image; where dates vary a template with {date} (or {yyyy} {mm} {dd}), e.g. "
         "ghcr.io/nvidia/jax:nightly-{date}"},
        {"test", T::text, "COMMAND",
         "Benchmark command template (split once, no shell), e.g. 'python3 b.py {gpu}'", 0, true},
        {"build", T::text, "COMMAND",
         "Build command template run before the test ({commit:NAME} {path:NAME} {time})", 0, true},
        {"keep-container", T::flag, "",
         "docker/podman: one long-lived container; build and test run with exec"},
        {"warmup", T::integer, "N", "Runs discarded first", 0},
        {"timeout", T::duration, "DURATION", "Per-run timeout"},
        {"gpus", T::text, "LIST", "GPU pool, e.g. 0,1,2,3 (one worker per GPU)", 0, true},
        {"logs", T::text, "DIR", "Directory for per-run logs", 0, true},
        {"mount", T::list, "SRC:DST[:ro]", "Container mount (repeatable)"},
        {"env-probe", T::text, "PROBE",
         "Environment fingerprint probe, run once per image: default (built-in script: CUDA, "
         "cuDNN, NCCL, cuBLAS, driver, GPU, Python packages), none, or a command printing "
         "KEY=VALUE lines",
         0, true},
        {"env", T::list, "NAME=VALUE", "Extra environment for the benchmark (repeatable)"},
        {"workdir", T::text, "DIR", "Working directory ({workdir}; default: the current one)"},
        {"keep-images", T::flag, "", "Do not remove images perfsweep pulled"},
        {"srun-arg", T::list, "ARG", "Extra srun argument, e.g. --partition=gpu (repeatable)"},
        {"check", T::text, "metric|exit-code",
         "What decides good and bad: the metric, or the test's exit status (0 good, 1-127 bad, "
         "125 skip, >=128 abort)",
         0, true},
        {"repeats", T::integer, "N", "Values per point at first", 1},
        // Sweeps.
        {"from", T::text, "START", "Start of the range", 0, true},
        {"to", T::text, "END", "End of the range", 0, true},
        {"strategy", T::text, "STRATEGY", "Search strategy", 0, true},
        {"max-repeats", T::integer, "N",
         "Cap when undecided points double their runs (at least --repeats)", 1},
        {"min-span", T::integer, "DAYS",
         "Shortest excursion: a level lasting at least this many days is always sampled "
         "(adaptive)",
         1},
        {"max-runs", T::integer, "N", "Budget of benchmark runs (0 = none)", 0},
        {"max-builds", T::integer, "N", "Budget of builds (0 = none)", 0},
        {"keep-builds", T::integer, "N",
         "Finished builds of source states kept (STATE/builds, else ./perfsweep-builds) and put "
         "back on a revisit instead of a rebuild; the least recently used go first (0 = keep "
         "none)",
         0},
        {"max-time", T::duration, "DURATION", "Wall-clock budget per stage (e.g. 6h)"},
        {"commits-probe", T::text, "COMMAND",
         "Command run once per measured date whose output names the build's commits ('NAME SHA "
         "[ISO-TIME]' lines or git-clone.yaml), e.g. cat /opt/manifest.d/git-clone.yaml",
         0, true},
        {"commits-label", T::list, "REPO=LABEL",
         "The image label naming the commit REPO was built from, read without pulling "
         "(docker/podman; repeatable), e.g. jax=com.example.jax-commit"},
        {"state", T::text, "DIR",
         "Resumable state directory: every finished run is kept there; the same command resumes", 0,
         true},
        {"rerun", T::flag, "", "Do not reuse history points"},
        // Source repos (hourly and commit stages).
        {"repo", T::list, "NAME=PATH", "A full local clone of source repo NAME (repeatable)"},
        {"ref", T::text, "REF", "Ref whose main line is followed", 0, true},
        {"ref-for", T::list, "NAME=REF", "Another ref for one repo (repeatable)"},
        {"fetch", T::flag, "", "Fetch origin in every repo first"},
        {"token-env", T::text, "VAR", "Environment variable holding the token", 0, true},
        {"from-result", T::text, "FILE", "Take the window from a `perfsweep daily --json` result",
         0, true},
        {"good-commits", T::text, "NAME=SHA,...", "The last good state's commits"},
        {"bad-commits", T::text, "NAME=SHA,...", "The first bad state's commits"},
        {"step", T::duration, "DURATION", "Grid step of the hourly stage"},
        {"plan", T::flag, "", "Print the states only; check out, build and run nothing"},
        {"any-parent", T::flag, "",
         "A state is the newest commit by date reachable from the ref (git rev-list -1 "
         "--before=T), not the first-parent main line"},
        {"to-commit", T::flag, "", "Narrow the hour to the culprit commit"},
        {"hourly-test", T::text, "COMMAND", "Test command for source states (default: --test)", 0,
         true},
        {"hourly-repeats", T::integer, "N",
         "Runs at each hourly window end; inner states start with 1 (0 = as --repeats)", 0},
        {"hourly-strategy", T::text, "STRATEGY", "Hourly search: bisect | adaptive | sequential", 0,
         true},
        {"outputs", T::text, "DIR|none",
         "A directory per tested source state for the benchmark's own files ({output_dir}, "
         "$PERFSWEEP_OUTPUT_DIR); DIR/last-good and DIR/first-bad link to the final pair",
         0, true},
        {"salloc-arg", T::list, "ARG",
         "runtime slurm: extra salloc argument for the allocation held for the whole search, "
         "e.g. --partition=gpu (repeatable)"},
        // JAX-Toolbox images (docs/jax-toolbox.md).
        {"jax-toolbox", T::text, "auto|jax|nightly",
         "Rebuild inside a JAX-Toolbox nightly with its own build-jax.sh (writes the build "
         "command): auto (from the --image tag), jax (ghcr.io/nvidia/jax:jax-DATE, /opt/jax "
         "/opt/xla) or nightly (2023's :nightly-DATE, /opt/*-source)",
         0, true},
        {"jax-toolbox-sources", T::text, "image|mounted",
         "JAX-Toolbox: image (the image's clones, moved to each state by SHA) or mounted (the "
         "--repo clones mounted over the image's source directories)",
         0, true},
        {"bazel-cache", T::text, "DIR|URL|none",
         "JAX-Toolbox: bazel cache that survives the container: a directory (default "
         "STATE/bazel-cache, else ./perfsweep-bazel-cache), an http:// or grpc:// remote cache, "
         "or none",
         0, true},
        {"build-jax-arg", T::list, "ARG",
         "JAX-Toolbox: extra build-jax.sh argument, checked against its option set (repeatable, "
         "e.g. --build-jax-arg=--sm --build-jax-arg=9.0)"},
        {"cherry-pick", T::list, "NAME:COMMIT[,...]",
         "JAX-Toolbox: fix commits applied onto every state that lacks them (skipped where they "
         "do not apply; repeatable)"},
        // The pipeline and its report.
        {"record", T::text, "DATE|today",
         "Record the nightly of this date first: YYYY-MM-DD, or today (the UTC date)", 0, true},
        {"narrow", T::text, "latest|all", "Which regressions to narrow", 0, true},
        {"fail-on-regression", T::flag, "", "Exit 1 when a regression is found"},
        {"output-dir", T::text, "DIR", "Directory for the results", 0, true},
        {"output", T::text, "FILE", "Write to this file instead of stdout", 0, true},
        {"key", T::text, "KEY", "Sticky-comment key: the marker <!-- perfsweep:KEY -->", 0, true},
        // The dashboard.
        {"title", T::text, "TEXT", "Title of the dashboard's pages", 0, true},
        {"publish", T::text, "SPEC",
         "Also commit the site into this git branch: git:BRANCH or git+URL#BRANCH (as --history; "
         "e.g. gh-pages)",
         0, true},
        {"publish-dir", T::text, "DIR",
         "Folder of the --publish branch for the site (default: its root)", 0, true},
        {"dashboard-url", T::text, "URL",
         "Where the dashboard is served: the report links the regressed series' page and shows its "
         "chart (URL/series/NAME.html, .svg)",
         0, true},
        // GitHub.
        {"comment", T::flag, "", "Post the report as a sticky comment on a regression"},
        {"github-repo", T::text, "OWNER/NAME", "GitHub repository", 0, true},
        {"pr", T::integer, "N", "Pull request number", 1},
        {"issue", T::integer, "N", "Issue number", 1},
        {"new-issue", T::text, "TITLE",
         "Open an issue with this title (or reuse the open one with the marker)", 0, true},
        {"issue-label", T::list, "LABEL", "Label for --new-issue (repeatable)"},
        {"close-on-recovery", T::flag, "",
         "Close the sticky issue on a healthy night (default: only say so in it)"},
        {"body-file", T::text, "FILE", "Markdown body ('-' = stdin)", 0, true},
        {"event", T::text, "FILE", "Event payload JSON (default: $GITHUB_EVENT_PATH)", 0, true},
        {"event-name", T::text, "NAME",
         "issues or issue_comment (default: $GITHUB_EVENT_NAME, else inferred)", 0, true},
        {"no-comment", T::flag, "", "Refuse without commenting on the issue"},
        // Fan-out.
        {"alpha", T::number, "P", "Significance level of the two-sample test"},
        {"max-points", T::integer, "N",
         "At most N dates spread evenly, both ends included (0 = all)", 0},
        {"exclude-measured", T::flag, "",
         "Leave out dates already measured ok in --history for --benchmark"},
        // compare (the pull-request verdict).
        {"base-test", T::text, "COMMAND",
         "The base's benchmark command (default: --test, run in --base-workdir)", 0, true},
        {"base-workdir", T::text, "DIR",
         "A checkout of the base (e.g. a git worktree of the PR's base commit): the base runs "
         "there",
         0, true},
        {"base-history", T::text, "SPEC",
         "Compare the head with the base level recorded in this history instead of running the "
         "base",
         0, true},
        {"min-pairs", T::integer, "N", "First look: pairs of base and head runs", 2},
        {"max-pairs", T::integer, "N", "Cap of pairs: still undecided there is inconclusive", 2},
        {"report-only", T::flag, "",
         "Exit 0 on a regression (the report and comment still say it)"},
        // probe.
        {"good-value", T::list, "NUMBER",
         "Metric mode: a known good value (repeatable; their median is the level)"},
        {"reference", T::number, "NUMBER", "Metric mode: the good level (with --threshold)"},
        {"good-label", T::text, "LABEL",
         "With --history: the good level is every ok value recorded under this label", 0, true},
        // help.
        {"command", T::text, "COMMAND", "Command to describe"},
        {"markdown", T::flag, "", "Print the whole reference as markdown (docs/commands.md)"},
        // demo-bench (the demo's simulated benchmark).
        {"bench-action", T::text, "ACTION", "measure | build"},
        {"nightly", T::text, "DIR", "Nightly snapshot directory"},
        {"framework", T::text, "DIR", "Framework worktree"},
        {"compiler", T::text, "DIR", "Compiler worktree"},
        {"repeat", T::integer, "N", "Repeat index (seeds the noise)", 0},
        {"deterministic", T::flag, "", "Noise from label and repeat only"},
    };
}

using P = Positional;

// The runner options, in the order most commands list them.
std::vector<CommandOption> runner_options(bool with_build) {
    std::vector<CommandOption> o = {
        {"runtime", "none"},
        {"image", ""},
        {"test", "", true},
    };
    if (with_build) {
        o.push_back({"build", ""});
        o.push_back({"keep-container", ""});
    }
    return o;
}

// Options every measuring command takes after its own, with their defaults.
std::vector<CommandOption> measure_options() {
    return {
        {"warmup", "0"},
        {"timeout", "30m"},
        {"gpus", ""},
        {"metric", "MLUPS"},
        {"metric-regex", ""},
        {"unit", ""},
        {"benchmark", "", false, "default: the test command's program or script name"},
        {"testbed", ""},
        {"direction", "higher"},
        {"logs", "perfsweep-logs"},
        {"mount", ""},
        {"env-probe", "default"},
        {"env", ""},
        {"workdir", ""},
    };
}

const OldName k_mode{"mode"};

CommandOption repeatable(CommandOption o) {
    o.repeatable = true;
    return o;
}

// The measure options without --workdir (for a command that lists it with its own note).
std::vector<CommandOption> strip_workdir(std::vector<CommandOption> options) {
    std::erase_if(options, [](const CommandOption& o) { return o.name == "workdir"; });
    return options;
}

// `run`: --metric may be repeated, one series a metric of the same runs.
std::vector<CommandOption> several_metrics(std::vector<CommandOption> options) {
    for (auto& o : options)
        if (o.name == "metric") {
            o.repeatable = true;
            o.note = "repeat it for several metrics of the same runs (one series each)";
        }
    return options;
}

std::vector<CommandOption> concat(std::vector<CommandOption> a,
                                  const std::vector<CommandOption>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

std::vector<CommandSpec> make_commands() {
    const PlannerDefaults& d = planner_defaults();
    std::vector<CommandSpec> c;
    c.push_back({"record",
                 "append one measurement (values or benchmark output) to a history",
                 "Append one measurement to a history: values given with --value, or extracted "
                 "from benchmark output with --benchmark-output (- = stdin).",
                 {
                     {"history", "", true, "appended to"},
                     {"benchmark", "", false, "e.g. lbm-256"},
                     repeatable({"metric", "", true,
                                 "repeat it for several metrics of one output (one series each)"}),
                     {"testbed", "", false, "default: the class of --runner gpu=NAME"},
                     {"unit", ""},
                     {"direction", "higher"},
                     {"value", ""},
                     {"benchmark-output", "", false, "", {{"output-file"}}},
                     {"metric-regex", "", false, "default '<METRIC>:\\s*<number>'"},
                     {"match", "all"},
                     {"label", "", false, "default: today (UTC)"},
                     {"image", "", false, "the image the benchmark ran in"},
                     {"digest", ""},
                     {"commit", ""},
                     {"runner", ""},
                     {"status", "ok"},
                     {"reason", ""},
                     {"log", ""},
                     {"json", ""},
                 }});
    c.push_back({"import",
                 "append CSV, `grep METRIC OUT*` output, github-action-benchmark data or JSON "
                 "Lines to a history",
                 "Append measurements from csv, grep output, github-action-benchmark data or JSON "
                 "Lines files to a history (all files or nothing).",
                 {
                     {"inputs", "", true, "", {}, P::only},
                     {"history", "", true, "appended to"},
                     {"format", ""},
                     {"benchmark", "", false,
                      "recorded with every value (github-action-benchmark: default the suite "
                      "name)"},
                     {"metric", "", false, "required for csv; grep infers it from the first line"},
                     {"testbed", "", false, "recorded with every value"},
                     {"unit", ""},
                     {"direction", "", false,
                      "default: github-action-benchmark's tool, else the unit (times and sizes "
                      "lower), else higher"},
                     {"json", ""},
                 }});
    c.push_back(
        {"detect",
         "change points over the whole series and a verdict about the present",
         "Find change points in a metric's history and decide whether the latest level is "
         "a regression (exit 1), an improvement (5), neither (0) or inconclusive (4; also "
         "for a missing or empty history).",
         {
             {"history", ""},
             {"input", "", false,
              "read instead of a history: csv, grep output, benchmark-action data or jsonl"},
             {"format", ""},
             {"benchmark", "", false, "selects series (default: every series, one table)"},
             {"metric", "", false, "selects series (and names the metric of csv input)"},
             {"testbed", "", false, "selects series"},
             {"unit", "", false, "for csv/grep input"},
             {"direction", "", false, "overrides the stored one"},
             {"threshold", "0.02"},
             {"json", ""},
         }});
    c.push_back(
        {"run",
         "run the benchmark for one point (none, docker, podman, slurm; repeats, timeout, "
         "GPU pool)",
         "Run the benchmark for one point (repeats, timeout, runtime) and print or record "
         "it. Exit 0 when the point is ok, 4 when it has no value.",
         concat(
             concat(runner_options(true),
                    {
                        {"label", "", false, "default: --date, else now"},
                        {"date", ""},
                        {"stage", "record", false,
                         "record | daily | hourly | commit: the stage the point is recorded for"},
                        {"repeats", "1"},
                    }),
             concat(several_metrics(measure_options()),
                    {
                        {"history", "", false, "the measurement is appended to it"},
                        {"json", ""},
                        {"commit", ""},
                        {"path", ""},
                        {"keep-images", ""},
                        {"srun-arg", ""},
                        {"check", "metric", false, "", {k_mode}},
                    }))});
    c.push_back(
        {"compare",
         "the pull-request verdict: head and base on one runner, interleaved, repeats by need",
         "Measure the head (--test in --workdir) and its base (--base-workdir or --base-test) "
         "on this runner in one job, interleaved (base-head, head-base, ...), pair after pair "
         "until a sequential test decides regression, improvement or same per series (or "
         "--max-pairs); or the head against --base-history's level. Exit 1 on a regression "
         "(unless --report-only), 4 when a run has no value, else 0.",
         concat(concat(runner_options(false),
                       {
                           {"workdir", "", false, "the head's checkout (default: here)"},
                           {"base-workdir", ""},
                           {"base-test", ""},
                           {"base-history", ""},
                           {"threshold", "0.02"},
                           {"alpha", "0.01", false,
                            "error rate per series: a false regression at most alpha/2"},
                           {"min-pairs", "4"},
                           {"max-pairs", "32"},
                           {"report-only", ""},
                           {"comment", "", false, "post the table as a sticky PR comment"},
                           {"github-repo", "", false, "default: $GITHUB_REPOSITORY"},
                           {"pr", "", false, "default: the pull_request event's"},
                           {"issue", ""},
                           {"new-issue", ""},
                           {"issue-label", ""},
                           {"key", "compare"},
                           {"token-env", "GITHUB_TOKEN"},
                           {"json", ""},
                       }),
                several_metrics(strip_workdir(measure_options())))});
    c.push_back(
        {"daily", "sweep dated nightly images between two dates and find every good→bad day",
         "Sweep dated nightly images between two dates and find every change of level. Exit 4 "
         "when a boundary stays undecided or a budget ends the sweep.",
         concat(
             {
                 {"from", "", true, "date YYYY-MM-DD (tag date, publisher's time zone)"},
                 {"to", "", true, "date YYYY-MM-DD"},
                 {"image", "", false},
                 {"runtime", "none"},
                 {"test", "", true},
                 {"strategy", d.strategy, false, "exhaustive | adaptive | bisect"},
                 {"repeats", d.repeats, false, "more only where a decision is undecided"},
                 {"max-repeats", d.max_repeats},
                 {"min-span", d.min_span},
                 {"threshold", d.threshold, false, "smaller changes are ignored", {{"min-change"}}},
                 {"state", ""},
                 {"history", "", false,
                  "points are reused from it (same benchmark and runner) and appended to it"},
                 {"rerun", ""},
                 {"max-runs", "0"},
                 {"max-time", ""},
                 {"commits-probe", ""},
                 {"commits-label", ""},
                 {"json", ""},
             },
             concat(measure_options(), {
                                           {"srun-arg", ""},
                                           {"check", "metric", false, "", {k_mode}},
                                       }))});
    c.push_back({"hourly",
                 "rebuild JAX/XLA (any repos) at states over time; narrow to an hour, then a "
                 "commit",
                 "Rebuild source repos (JAX, XLA, ...) at states over time inside one environment "
                 "and narrow a good→bad window to an hour, then (--to-commit) to a commit. Exit 4 "
                 "when inconclusive.",
                 {
                     {"repo", "", true},
                     {"ref", "origin/main"},
                     {"ref-for", ""},
                     {"fetch", ""},
                     {"token-env", "PERFSWEEP_GIT_TOKEN", false, "an HTTPS token for --fetch"},
                     {"from", "", false, "the last good time: ISO 8601 with Z or an offset"},
                     {"to", "", false, "the first bad time: ISO 8601 with Z or an offset"},
                     {"from-result", ""},
                     {"good-commits", ""},
                     {"bad-commits", ""},
                     {"step", "1h"},
                     {"plan", ""},
                     {"any-parent", ""},
                     {"build", "", false, "required unless --plan or --jax-toolbox"},
                     {"test", "", false, "required unless --plan"},
                     {"runtime", "none", false,
                      "docker/podman: one kept container; slurm: one held allocation (with "
                      "--image one named pyxis container); --jax-toolbox: docker unless given"},
                     {"image", "", false, "the last good environment"},
                     {"gpus", "", false,
                      "the GPUs of the kept container (docker --gpus device=LIST) or allocation"},
                     {"strategy", d.hourly_strategy, false,
                      "bisect (fewest builds) | adaptive (a stride, then bisection) | sequential"},
                     {"repeats", d.hourly_repeats, false,
                      "runs at each window end (they show the noise); inner states start with 1"},
                     {"max-repeats", d.hourly_max_repeats, false,
                      "in exit-code mode also for the window ends"},
                     {"env-probe", "default"},
                     {"state", ""},
                     {"max-builds", "0"},
                     {"keep-builds", "12"},
                     {"max-time", ""},
                     {"to-commit", ""},
                     {"json", ""},
                     {"metric", "MLUPS"},
                     {"metric-regex", ""},
                     {"direction", "higher"},
                     {"timeout", "30m"},
                     {"logs", "perfsweep-logs", false, "", {{"logs-dir"}}},
                     {"check", "metric", false, "", {k_mode}},
                     {"outputs", "", false, "default: LOGS/outputs"},
                     {"mount", ""},
                     {"env", ""},
                     {"workdir", ""},
                     {"srun-arg", ""},
                     {"salloc-arg", ""},
                     {"jax-toolbox", ""},
                     {"jax-toolbox-sources", "image"},
                     {"bazel-cache", ""},
                     {"build-jax-arg", ""},
                     {"cherry-pick", ""},
                 }});
    c.push_back({"report",
                 "render any stage's result JSON as markdown (Mermaid charts, tables, window) or "
                 "JSON",
                 "Render a stage result (detect, daily, hourly, investigate) as markdown, or as "
                 "JSON with --json.",
                 {
                     {"input", "", true, "a result JSON file"},
                     {"json", "", false, "", {{"format", "json", "markdown"}}},
                     {"key", "default"},
                     {"output", ""},
                 }});
    c.push_back({"comment",
                 "post or update a sticky PR/issue comment (GitHub REST API)",
                 "Post or update the sticky perfsweep comment on a PR or issue (GitHub REST API). "
                 "Without --pr, --issue or --new-issue: the PR or issue of the Actions event.",
                 {
                     {"github-repo", "", false, "default: $GITHUB_REPOSITORY", {{"repo"}}},
                     {"pr", ""},
                     {"issue", ""},
                     {"new-issue", ""},
                     {"issue-label", "", false, "", {{"label"}}},
                     {"body-file", "", true},
                     {"key", "default"},
                     {"token-env", "GITHUB_TOKEN"},
                 }});
    c.push_back(
        {"investigate",
         "the whole pipeline: record → detect → daily → hourly → commit → report → comment",
         "The whole pipeline: record (optional) → detect → daily → hourly → commit → report → "
         "comment. Exit 0 (no regression, or one without --fail-on-regression), 1 (regression "
         "with --fail-on-regression), 4 (inconclusive).",
         {
             {"history", "", true},
             {"record", ""},
             {"threshold", d.threshold},
             {"from", "", false, "a date: sweep this range instead of detect's window"},
             {"to", "", false, "a date"},
             {"narrow", "latest"},
             {"fail-on-regression", ""},
             {"runtime", "none"},
             {"image", "", false},
             {"test", "", true},
             {"hourly-test", ""},
             {"build", "", false, "rebuilds the sources at each source state"},
             {"jax-toolbox", "", false, "also reads each nightly's commits from the image"},
             {"jax-toolbox-sources", "image"},
             {"bazel-cache", ""},
             {"build-jax-arg", ""},
             {"cherry-pick", ""},
             {"benchmark", "", false, "default: the test command's program or script name"},
             {"testbed", ""},
             repeatable({"metric", "MLUPS", false,
                         "repeat it for several metrics of the same runs (one series each): "
                         "every regressed series is narrowed, those of one night by one sweep"}),
             {"metric-regex", ""},
             {"unit", ""},
             {"direction", "higher"},
             {"repeats", d.repeats, false, "daily stage; more only where a decision is undecided"},
             {"max-repeats", d.max_repeats},
             {"strategy", d.strategy, false, "daily: exhaustive | adaptive | bisect"},
             {"min-span", d.min_span},
             {"max-runs", "0", false, "daily stage"},
             {"max-builds", "0", false, "hourly stage"},
             {"keep-builds", "12", false, "shared by every hourly stage of the investigation"},
             {"max-time", ""},
             {"timeout", "30m"},
             {"gpus", ""},
             {"commits-probe", ""},
             {"commits-label", ""},
             {"mount", ""},
             {"env-probe", "default"},
             {"env", ""},
             {"logs", "perfsweep-logs"},
             {"repo", ""},
             {"ref", "origin/main"},
             {"step", "1h"},
             {"hourly-strategy", d.hourly_strategy},
             {"hourly-repeats", d.hourly_repeats},
             {"any-parent", ""},
             {"to-commit", ""},
             {"state", ""},
             {"output-dir", "perfsweep-out", false, "report.md and result.json"},
             {"key", "default"},
             {"comment", ""},
             {"github-repo", "", false, "default: $GITHUB_REPOSITORY", {{"comment-repo"}}},
             {"pr", ""},
             {"issue", ""},
             {"new-issue", "", false,
              "on schedule, workflow_dispatch and push events the sticky issue by default: "
              "'perfsweep: METRIC regression', opened on a regression, updated on the next ones"},
             {"issue-label", "", false, "of the sticky issue; default perfsweep", {{"label"}}},
             {"close-on-recovery", ""},
             {"token-env", "GITHUB_TOKEN"},
             {"check", "metric", false, "", {k_mode}},
             {"dashboard-url", ""},
             {"json", "", false, "the result.json document instead of the markdown report"},
         }});
    c.push_back({"dashboard",
                 "a static site of every series: charts, change points, investigations",
                 "Write a static dashboard of the history: an index of every series (small "
                 "chart, latest level, change, verdict; sortable, filterable) and a page per "
                 "series with its points, fitted levels, change points, and the nightly window, "
                 "hour window and culprit of each investigation kept beside the history. No "
                 "network is needed to view it.",
                 {
                     {"history", "", true},
                     {"output-dir", "perfsweep-dashboard", false, "index.html and the pages"},
                     {"threshold", "0.02", false, "detect's, for every series"},
                     {"title", "perfsweep dashboard"},
                     {"publish", ""},
                     {"publish-dir", ""},
                 }});
    c.push_back({"demo",
                 "the offline demo",
                 "Offline demo: generate two source repos, nightlies and a simulated benchmark, "
                 "then run the whole pipeline (no GPU, container, network or token needed).",
                 {
                     {"output-dir",
                      "perfsweep-demo",
                      false,
                      "created fresh (a -2, -3 suffix when it is taken)",
                      {{"dir"}}},
                     {"json", "", false, "the result.json document instead of the report"},
                 }});
    c.push_back({"plan",
                 "fan a stage out over a GitHub Actions matrix (JSON)",
                 "Print the points of a stage as a GitHub Actions matrix (JSON) for fan-out.",
                 {
                     {"stage", "daily", false, "daily (hourly: use `perfsweep hourly --plan`)"},
                     {"from", "", true, "date YYYY-MM-DD"},
                     {"to", "", true, "date YYYY-MM-DD"},
                     {"image", ""},
                     {"history", "", false, "measured dates are read from it"},
                     {"benchmark", "", false, "matches history records"},
                     {"exclude-measured", ""},
                     {"max-points", "0"},
                 }});
    c.push_back(
        {"merge",
         "combine the matrix jobs' results into the history and a daily result",
         "Combine the per-point results of matrix jobs into the history and a daily "
         "result. Exit 4 when a boundary is undecided or more dates are to be measured.",
         {
             {"inputs", "", false, "`perfsweep run --json` output or JSON Lines", {}, P::also},
             {"stage", "daily", false, "daily"},
             {"history", "", false,
              "the records it lacks are appended (same label, benchmark and timestamp "
              "are skipped)"},
             {"from", "", false, "a date (default: the earliest merged date)"},
             {"to", "", false, "a date (default: the latest merged date)"},
             {"benchmark", "", false, "only its records are merged"},
             {"alpha", d.alpha},
             {"threshold",
              d.threshold,
              false,
              "the relative change only (a ratio needs the results' direction)",
              {{"min-change"}}},
             {"json", "", false, "the `daily --json` format"},
         }});
    c.push_back(
        {"probe",
         "measure the current checkout (or a build) once and exit 0 good / 1 bad / 125 skip for "
         "`git bisect run`; its own errors exit 128",
         "Measure one source state and exit 0 good / 1 bad / 125 skip (for git bisect run); "
         "usage and infrastructure errors exit 128.",
         concat({{"test", "", true},
                 {"check", "metric", false, "", {k_mode}},
                 {"good-value", ""},
                 {"reference", ""},
                 {"history", "", false,
                  "metric mode: the good level is the latest ok record of the benchmark"},
                 {"good-label", ""},
                 {"threshold", "0.05", false, "metric mode: the relative change that is bad"},
                 {"runtime", "none"},
                 {"image", ""},
                 {"build", "", false, "a failed build is a skip (125)"},
                 {"keep-container", ""},
                 {"label", "probe", false, "logs go under it"},
                 {"repeats", "1"}},
                {{"warmup", "0"},
                 {"timeout", "30m", false, "a timeout is a skip"},
                 {"metric", "MLUPS"},
                 {"metric-regex", ""},
                 {"benchmark", "", false, "matches --history records (default: the test command)"},
                 {"direction", "higher"},
                 {"logs", "perfsweep-logs"},
                 {"mount", ""},
                 {"env", ""},
                 {"workdir", ""}})});
    c.push_back({"issue-request",
                 "accept or refuse an investigation asked for in an issue (the author's write "
                 "access, a strict perfsweep block)",
                 "Accept or refuse an investigation requested in an issue: checks the author's "
                 "write access and reads only the fenced perfsweep block (from, to, metric, "
                 "threshold, mode). A refusal exits 2.",
                 {
                     {"event", ""},
                     {"event-name", ""},
                     {"github-repo", "", false, "default: the event's repository", {{"repo"}}},
                     {"key", "issue-request", false, "of the refusal comment"},
                     {"token-env", "GITHUB_TOKEN"},
                     {"no-comment", ""},
                 }});
    c.push_back({"help",
                 "describe a command (perfsweep help COMMAND)",
                 "Print the list of commands, or one command's options.",
                 {
                     {"command", "", false, "", {}, P::only},
                     {"markdown", "", false, "", {}, P::no, true},
                 }});
    c.push_back({"version", "print the version", "Print the version.", {}});
    c.push_back({"demo-bench",
                 "the demo's simulated benchmark",
                 "Simulated benchmark used by `perfsweep demo` (a real child process).",
                 {
                     {"bench-action", "measure", false, "", {}, P::only},
                     {"nightly", ""},
                     {"framework", ""},
                     {"compiler", ""},
                     {"label", "", false, "seeds the noise"},
                     {"repeat", "0"},
                     {"deterministic", ""},
                 },
                 true});
    return c;
}

} // namespace

const std::vector<OptionSpec>& option_specs() {
    static const std::vector<OptionSpec> specs = make_options();
    return specs;
}

const std::vector<CommandSpec>& command_specs() {
    static const std::vector<CommandSpec> commands = make_commands();
    return commands;
}

const OptionSpec* find_option_spec(std::string_view name) {
    for (const auto& s : option_specs())
        if (s.name == name)
            return &s;
    return nullptr;
}

const CommandSpec* find_command_spec(std::string_view name) {
    for (const auto& c : command_specs())
        if (c.name == name)
            return &c;
    return nullptr;
}

const CommandOption* find_command_option(const CommandSpec& command, std::string_view name) {
    for (const auto& o : command.options)
        if (o.name == name)
            return &o;
    return nullptr;
}

void unknown_option_name_see_option_table() {
    throw std::logic_error("an option name that is not in k_option_names");
}

OptionName OptionName::checked(std::string_view name) {
    for (auto n : k_option_names)
        if (n == name)
            return OptionName(Trusted{}, n); // the table's own text: it outlives every caller
    throw std::logic_error("option table: no option '" + std::string(name) + "'");
}

const OptionSpec& spec_of(const CommandOption& option) {
    const auto* s = find_option_spec(option.name);
    if (!s)
        throw std::logic_error("option table: no spec for option '" + std::string(option.name) +
                               "'");
    return *s;
}

} // namespace perfsweep::app
