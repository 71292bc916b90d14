#include "app/options_data.hpp"

#include "app/daily.hpp"
#include "core/import_formats.hpp"
#include "util/enum_names.hpp"
#include "util/error.hpp"

namespace perfsweep::app {

namespace {

std::optional<core::ImportFormat> format_of(const OptionValues& v) {
    if (!v.given("format"))
        return std::nullopt;
    const std::string t = v.text("format");
    const auto f = core::parse_import_format(t);
    if (!f)
        throw_usage(v.describe("format") + " '" + t + "': expected " +
                    util::enum_choices(core::k_import_format_names));
    return *f;
}

void daily_stage_only(const OptionValues& v) {
    const std::string stage = v.text("stage");
    if (stage == "hourly" && v.command().name == std::string_view("plan"))
        throw_usage("--stage hourly: not supported by `perfsweep plan` yet; list the hourly "
                    "states with `perfsweep hourly --plan` (each state needs a build, so the "
                    "hourly stage fans out best over --gpus or the Slurm runtime)");
    if (stage != "daily")
        throw_usage(v.describe("stage") + " '" + stage + "': expected daily");
}

} // namespace

RecordCommand resolve_record(const OptionValues& v) {
    RecordCommand c;
    auto& r = c.request;
    r.history = v.text("history");
    r.base.benchmark = v.text("benchmark");
    r.metrics = v.list("metric");
    r.base.metric = r.metrics.empty() ? v.text("metric") : r.metrics.front();
    r.testbed = v.text("testbed");
    r.base.unit = v.text("unit");
    r.base.direction = v.direction("direction");
    r.values = v.list("value");
    r.output_file = v.text("benchmark-output");
    r.metric_regex = v.text("metric-regex");
    const std::string match = v.text("match");
    const auto policy = util::parse_enum(k_match_policy_names, match);
    if (!policy)
        throw_usage(v.describe("match") + " '" + match + "': expected " +
                    util::enum_choices(k_match_policy_names));
    r.match = *policy;
    r.base.label = v.text("label");
    r.base.image = v.text("image");
    r.base.digest = v.text("digest");
    r.commits = v.list("commit");
    r.runner = v.list("runner");
    if (v.given("status"))
        r.status = v.text("status");
    r.base.reason = v.text("reason");
    r.base.log = v.text("log");
    c.json = v.flag("json");
    return c;
}

ImportCommand resolve_import(const OptionValues& v) {
    ImportCommand c;
    auto& r = c.request;
    r.inputs = v.list("inputs");
    r.history = v.text("history");
    r.format = format_of(v);
    r.defaults.benchmark = v.text("benchmark");
    r.defaults.metric = v.text("metric");
    r.defaults.unit = v.text("unit");
    r.testbed = v.text("testbed");
    if (v.given("direction")) // else the tool or the unit decides, per record
        r.defaults.direction = v.direction("direction");
    c.json = v.flag("json");
    return c;
}

DetectCommand resolve_detect(const OptionValues& v) {
    DetectCommand c;
    auto& r = c.request;
    r.history = v.text("history");
    r.input = v.text("input");
    r.format = format_of(v);
    r.benchmark = v.text("benchmark");
    r.metric = v.text("metric");
    r.testbed = v.text("testbed");
    r.unit = v.text("unit");
    if (v.given("direction"))
        r.direction = v.direction("direction");
    r.threshold = v.threshold("threshold"); // made relative with the series' direction
    r.options.threshold = relative_threshold(*r.threshold, core::Direction::higher_is_better);
    r.empty_history_inconclusive = true;
    c.json = v.flag("json");
    return c;
}

ReportRequest resolve_report(const OptionValues& v) {
    ReportRequest r;
    r.input = v.text("input");
    r.format = v.flag("json") ? "json" : "markdown";
    r.key = v.text("key");
    r.output = v.text("output");
    return r;
}

CommentCommand resolve_comment(const OptionValues& v, const CommentContext& context) {
    CommentCommand c;
    c.body_file = v.text("body-file");
    c.token_env = v.text("token-env");
    c.request = resolve_comment_target(v, context);
    return c;
}

PlanCommand resolve_plan(const OptionValues& v) {
    daily_stage_only(v);
    PlanCommand c;
    auto& o = c.options;
    o.dates = resolve_date_range(v.text("from"), v.text("to"));
    o.image = v.text("image");
    o.benchmark = v.text("benchmark");
    o.exclude_measured = v.flag("exclude-measured");
    o.max_points = v.integer_int("max-points");
    c.history = v.text("history");
    if (o.exclude_measured && o.benchmark.empty())
        throw_usage("--exclude-measured needs --benchmark NAME (the benchmark whose measured "
                    "dates are left out)");
    return c;
}

MergeCommand resolve_merge(const OptionValues& v) {
    daily_stage_only(v);
    MergeCommand c;
    c.paths = v.list("inputs");
    if (c.paths.empty())
        throw_usage("merge: give the result files (or a directory of them) with --inputs");
    c.history = v.text("history");
    auto& o = c.options;
    o.from = v.text("from");
    o.to = v.text("to");
    o.benchmark = v.text("benchmark");
    o.sweep.alpha = v.number("alpha");
    if (!(o.sweep.alpha > 0 && o.sweep.alpha < 1))
        throw_usage(v.describe("alpha") + " '" + v.text("alpha") +
                    "': expected a significance level above 0 and below 1, e.g. 0.01");
    const Threshold t = v.threshold("threshold");
    if (t.ratio) // the results' direction is read later; a ratio's meaning depends on it
        throw_usage(v.describe("threshold") + " '" + v.text("threshold") +
                    "': merge takes the relative change (e.g. 0.05 or 5%), not a ratio");
    o.sweep.min_change = t.value;
    c.json = v.flag("json");
    return c;
}

CompareCommand resolve_compare(const OptionValues& v, const CommentContext& context) {
    CompareCommand c;
    auto& r = c.request;
    r.head = resolve_runner(v);
    r.base_history = v.text("base-history");
    const bool base_run = v.given("base-workdir") || v.given("base-test");
    if (base_run && !r.base_history.empty())
        throw_usage("compare: give the base as a checkout (--base-workdir / --base-test) or as "
                    "--base-history, not both");
    if (base_run) {
        auto base = r.head;
        if (v.given("base-workdir"))
            base.workdir = v.text("base-workdir");
        if (v.given("base-test"))
            base.test_command = v.text("base-test");
        if (base.workdir == r.head.workdir && base.test_command == r.head.test_command)
            throw_usage(v.describe("base-workdir") +
                        ": the base would run the head's command in the head's directory; give "
                        "a checkout of the base (e.g. git worktree add ../base BASE_SHA)");
        base.benchmark = r.head.benchmark; // the same series on both sides
        base.logs_dir = r.head.logs_dir + "/base";
        r.head.logs_dir += "/head";
        r.base = base;
    }
    auto& o = r.options;
    o.threshold = v.threshold("threshold", r.head.direction);
    o.alpha = v.number("alpha");
    if (!(o.alpha > 0 && o.alpha < 0.5))
        throw_usage(v.describe("alpha") + " '" + v.text("alpha") +
                    "': expected an error rate above 0 and below 0.5, e.g. 0.01");
    o.min_pairs = v.integer_int("min-pairs");
    o.max_pairs = v.integer_int("max-pairs");
    if (o.max_pairs < o.min_pairs)
        throw_usage(v.describe("max-pairs") + " " + std::to_string(o.max_pairs) +
                    ": expected at least --min-pairs (" + std::to_string(o.min_pairs) + ")");
    o.direction = r.head.direction;
    c.report_only = v.flag("report-only");
    c.token_env = v.text("token-env");
    if (v.flag("comment"))
        c.comment = resolve_comment_target(v, context);
    c.json = v.flag("json");
    return c;
}

IssueRequestCommand resolve_issue_request(const OptionValues& v) {
    IssueRequestCommand c;
    c.event = v.text("event");
    c.event_name = v.text("event-name");
    c.options.repo = v.text("github-repo");
    c.options.key = v.text("key");
    c.options.comment = !v.flag("no-comment");
    c.token_env = v.text("token-env");
    return c;
}

} // namespace perfsweep::app
