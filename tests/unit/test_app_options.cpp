// The option table, the typed values, old names, suggestions, durations and the resolution of
// options in the application layer (app/option_table, app/option_values, app/options*).

#include "app/demo/demo.hpp"
#include "app/help.hpp"
#include "app/hourly.hpp"
#include "app/option_table.hpp"
#include "app/option_values.hpp"
#include "app/options.hpp"
#include "app/options_data.hpp"
#include "core/exit_policy.hpp"
#include "core/sweep_plan.hpp"
#include "support/command_values.hpp"
#include "util/error.hpp"
#include "util/exit_codes.hpp"

#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

using namespace perfsweep;
using app::OptionValues;
using app::RawOption;
using app::ValueSource;

using test::usage_error_of;

namespace {

OptionValues values_for(const std::string& command, const std::vector<RawOption>& raw,
                        std::vector<std::string>* warnings = nullptr) {
    OptionValues v(*app::find_command_spec(command), "perfsweep.toml");
    std::vector<std::string> w;
    app::assign_options(v, raw, w);
    if (warnings)
        *warnings = w;
    v.check();
    return v;
}

RawOption cli(const std::string& name, std::vector<std::string> values = {"true"}) {
    return {name, std::move(values), ValueSource::command_line};
}

RawOption cli1(const std::string& name, const std::string& value) {
    return cli(name, {value});
}

} // namespace

TEST_CASE("the option table: every entry names one spec, once per command, old names apart",
          "[options][table]") {
    std::set<std::string> spec_names;
    for (const auto& s : app::option_specs()) {
        INFO(s.name);
        CHECK(spec_names.insert(std::string(s.name)).second); // one meaning per name
        CHECK_FALSE(s.help.empty());
        CHECK((s.type == app::OptionType::flag) == s.value_name.empty());
    }
    std::set<std::string> used;
    for (const auto& c : app::command_specs()) {
        std::set<std::string> names;
        for (const auto& o : c.options) {
            INFO(c.name << " --" << o.name);
            REQUIRE(app::find_option_spec(o.name) != nullptr);
            used.insert(std::string(o.name));
            CHECK(names.insert(std::string(o.name)).second);
        }
        for (const auto& o : c.options)
            for (const auto& old : o.old_names) {
                INFO(c.name << " old --" << old.name);
                CHECK(names.count(std::string(old.name)) == 0); // never shadows a current name
                CHECK((old.on_value.empty() || app::spec_of(o).type == app::OptionType::flag));
            }
        // Every default is a valid value of its type.
        OptionValues v(c);
        for (const auto& o : c.options) {
            if (o.default_value.empty())
                continue;
            INFO(c.name << " --" << o.name << " default " << o.default_value);
            const auto name = app::OptionName::checked(o.name);
            switch (app::spec_of(o).type) {
            case app::OptionType::integer:
                CHECK_NOTHROW(v.integer(name));
                break;
            case app::OptionType::fraction:
                CHECK_NOTHROW(v.fraction(name));
                break;
            case app::OptionType::duration:
                CHECK(v.seconds(name).has_value());
                break;
            case app::OptionType::number:
                CHECK_NOTHROW(v.number(name));
                break;
            default:
                break;
            }
        }
    }
    for (const auto& name : spec_names) {
        INFO("--" << name << " is in the table but no command takes it");
        CHECK(used.count(name) == 1);
    }
}

TEST_CASE("the option names code may use are the table's, in its order (k_option_names)",
          "[options][table]") {
    // OptionName checks a name against k_option_names when compiling; this checks that list
    // against the table, so a name is usable exactly when the table defines it.
    const auto& specs = app::option_specs();
    REQUIRE(std::size(app::k_option_names) == specs.size());
    for (std::size_t i = 0; i < specs.size(); ++i) {
        INFO(i);
        CHECK(app::k_option_names[i] == specs[i].name);
    }
    CHECK(app::OptionName::checked("strategy").view() == "strategy");
    CHECK_THROWS_AS(app::OptionName::checked("stratgy"), std::logic_error);
}

TEST_CASE("one meaning per flag name: the renamed flags", "[options][table]") {
    // --repo is always a source clone NAME=PATH; the GitHub repository is --github-repo.
    for (const auto* cmd : {"hourly", "investigate"})
        CHECK(app::find_command_option(*app::find_command_spec(cmd), "repo") != nullptr);
    for (const auto* cmd : {"comment", "issue-request", "investigate"})
        CHECK(app::find_command_option(*app::find_command_spec(cmd), "github-repo") != nullptr);
    // --label is a point's label; an issue's label is --issue-label.
    for (const auto* cmd : {"comment", "investigate"})
        CHECK(app::find_command_option(*app::find_command_spec(cmd), "label") == nullptr);
    // --format is an input format; report's output form is --json.
    CHECK(app::find_command_option(*app::find_command_spec("report"), "format") == nullptr);
    // One logs flag.
    for (const auto& c : app::command_specs())
        CHECK(app::find_command_option(c, "logs-dir") == nullptr);
    // --json on every command that produces a result.
    for (const auto* cmd : {"record", "import", "detect", "run", "daily", "hourly", "report",
                            "investigate", "merge", "demo"})
        CHECK(app::find_command_option(*app::find_command_spec(cmd), "json") != nullptr);
}

TEST_CASE("durations: one syntax for every duration option", "[options][duration]") {
    CHECK(app::parse_duration_text("30m") == 1800);
    CHECK(app::parse_duration_text("90s") == 90);
    CHECK(app::parse_duration_text("2h") == 7200);
    CHECK(app::parse_duration_text("1h30m") == 5400);
    CHECK(app::parse_duration_text("1d") == 86400);
    CHECK(app::parse_duration_text("1800") == 1800); // a bare number is seconds
    CHECK(app::parse_duration_text(" 600 ") == 600);
    CHECK_FALSE(app::parse_duration_text(""));
    CHECK_FALSE(app::parse_duration_text("1.5h"));
    CHECK_FALSE(app::parse_duration_text("-5"));
    CHECK_FALSE(app::parse_duration_text("30 m"));
    CHECK_FALSE(app::parse_duration_text("soon"));
    CHECK_FALSE(app::parse_duration_text("99999999999"));

    // hourly --timeout takes a duration like every other command (it took seconds only).
    const auto h = values_for("hourly", {cli1("repo", "a=/r"), cli1("timeout", "30m"),
                                         cli1("build", "b"), cli1("test", "t")});
    CHECK(app::resolve_hourly(h).runner->timeout_s == 1800);
    const auto h2 = values_for("hourly", {cli1("repo", "a=/r"), cli1("timeout", "1800"),
                                          cli1("build", "b"), cli1("test", "t")});
    CHECK(app::resolve_hourly(h2).runner->timeout_s == 1800);
    const auto msg = usage_error_of([] {
        values_for("run", {cli1("test", "t"), cli1("timeout", "0")});
    });
    CHECK_THAT(msg, Catch::Contains("--timeout '0'") && Catch::Contains("duration"));
}

TEST_CASE("fractions: 0.02 or 2%", "[options][fraction]") {
    CHECK(app::parse_fraction_text("0.02") == Approx(0.02));
    CHECK(app::parse_fraction_text("2%") == Approx(0.02));
    CHECK(app::parse_fraction_text("0") == 0);
    CHECK_FALSE(app::parse_fraction_text("1"));
    CHECK_FALSE(app::parse_fraction_text("150%"));
    CHECK_FALSE(app::parse_fraction_text("-0.1"));
    CHECK_FALSE(app::parse_fraction_text("two"));
    // probe's threshold is the same type as detect's now.
    const auto p =
        values_for("probe", {cli1("test", "t"), cli1("threshold", "5%"), cli1("reference", "100")});
    CHECK(app::resolve_probe(p).threshold == Approx(0.05));
}

TEST_CASE("suggestions for a mistyped command or option", "[options][suggest]") {
    std::vector<std::string> commands;
    for (const auto& c : app::command_specs())
        commands.emplace_back(c.name);
    CHECK(app::closest_name("detcet", commands) == "detect");
    CHECK(app::closest_name("investgate", commands) == "investigate");
    CHECK(app::closest_name("DAILY", commands) == "daily");
    CHECK(app::closest_name("merg", commands) == "merge");
    CHECK_FALSE(app::closest_name("xyzzy", commands));
    CHECK_FALSE(app::closest_name("", commands));

    const auto& detect = *app::find_command_spec("detect");
    CHECK(app::unknown_option_message(detect, "threshhold") ==
          "unknown option --threshhold for 'detect'; did you mean --threshold?");
    CHECK(app::unknown_option_message(detect, "fromat") ==
          "unknown option --fromat for 'detect'; did you mean --format?");
    // A flag of another command: say where it belongs.
    CHECK_THAT(app::unknown_option_message(detect, "to-commit"),
               Catch::Contains("is an option of 'hourly', 'investigate'"));
    const auto msg = usage_error_of([] { values_for("detect", {cli1("treshold", "2%")}); });
    CHECK_THAT(msg, Catch::Contains("did you mean --threshold?"));
}

TEST_CASE("typed values are checked with one wording, naming the flag", "[options][values]") {
    CHECK_THAT(usage_error_of([] {
                   values_for("hourly", {cli1("repo", "a=/r"), cli1("max-builds", "-2")});
               }),
               Catch::Contains("--max-builds '-2': expected a whole number >= 0"));
    CHECK_THAT(usage_error_of([] { values_for("daily", {cli1("repeats", "three")}); }),
               Catch::Contains("--repeats 'three': expected a whole number >= 1"));
    CHECK_THAT(usage_error_of([] {
                   values_for("run", {cli1("test", "t"), cli1("metric", "")});
               }),
               Catch::Contains("--metric '': expected a non-empty NAME"));
    CHECK_THAT(usage_error_of([] {
                   values_for("run", {cli("test", {"a", "b"})});
               }),
               Catch::Contains("--test is given 2 times; give it once"));
    CHECK_THAT(usage_error_of([] { values_for("daily", {cli1("from", "2023-08-01")}); }),
               Catch::Contains("daily: --to END is required"));
    CHECK_THAT(usage_error_of([] {
                   values_for("run", {cli1("test", "t"), cli1("date", "2023-02-30")});
               }),
               Catch::Contains("--date '2023-02-30': expected a calendar date YYYY-MM-DD"));
    // investigate --record also takes "today", so its date is checked when resolved.
    CHECK_THAT(
        usage_error_of([] {
            const auto v = values_for("investigate", {cli1("history", "h"), cli1("test", "t"),
                                                      cli1("record", "2023-02-30")});
            app::resolve_investigate(v, {});
        }),
        Catch::Contains("--record '2023-02-30': expected a calendar date YYYY-MM-DD or today"));
    // A value from the config file names the file.
    OptionValues v(*app::find_command_spec("daily"), "value.toml");
    std::vector<std::string> w;
    app::assign_options(v, {{"repeats", {"three"}, ValueSource::config_file}}, w);
    CHECK_THAT(usage_error_of([&] { v.integer("repeats"); }),
               Catch::Contains("--repeats (config file value.toml, [daily]) 'three'"));
}

TEST_CASE("old names: accepted with a warning, mapped to the current option",
          "[options][deprecated]") {
    std::vector<std::string> w;
    auto v = values_for("hourly", {cli1("repo", "a=/r"), cli1("logs-dir", "L")}, &w);
    CHECK(v.text("logs") == "L");
    REQUIRE(w.size() == 1);
    CHECK_THAT(w[0], Catch::Contains("--logs-dir is an old name; use --logs"));

    v = values_for("report", {cli1("input", "r.json"), cli1("format", "json")}, &w);
    CHECK(v.flag("json"));
    v = values_for("report", {cli1("input", "r.json"), cli1("format", "markdown")}, &w);
    CHECK_FALSE(v.flag("json"));
    CHECK_THAT(usage_error_of([] {
                   values_for("report", {cli1("input", "r.json"), cli1("format", "html")});
               }),
               Catch::Contains("expected json or markdown"));

    v = values_for("run", {cli1("test", "t"), cli1("mode", "exit-code")}, &w);
    CHECK(app::resolve_runner(v).exit_code_mode);
    v = values_for("daily",
                   {cli1("from", "2023-08-01"), cli1("to", "2023-08-09"), cli1("test", "t"),
                    cli1("min-change", "0.05")},
                   &w);
    CHECK(app::resolve_daily(v).options.sweep.min_change == Approx(0.05));
    v = values_for("record",
                   {cli1("history", "h"), cli1("metric", "M"), cli1("output-file", "out.txt")}, &w);
    CHECK(app::resolve_record(v).request.output_file == "out.txt");
    v = values_for("comment",
                   {cli1("body-file", "b"), cli1("repo", "o/r"), cli1("pr", "3"),
                    cli("label", {"perf", "ci"})},
                   &w);
    const auto c = app::resolve_comment(v, {});
    CHECK(c.request.repo == "o/r");
    CHECK(c.request.labels == std::vector<std::string>{"perf", "ci"});

    // The same option under both names is ambiguous.
    CHECK_THAT(
        usage_error_of([] {
            values_for("hourly", {cli1("repo", "a=/r"), cli1("logs", "A"), cli1("logs-dir", "B")});
        }),
        Catch::Contains("name the same option"));
    // A config file key under its old name is accepted too; the command line wins over it.
    OptionValues cfg(*app::find_command_spec("investigate"), "p.toml");
    app::assign_options(cfg,
                        {{"mode", {"exit-code"}, ValueSource::config_file},
                         {"threshold", {"0.1"}, ValueSource::config_file},
                         cli1("threshold", "0.05")},
                        w);
    CHECK(cfg.text("check") == "exit-code");
    CHECK(cfg.fraction("threshold") == Approx(0.05));
    CHECK(cfg.source("threshold") == ValueSource::command_line);
    CHECK_THAT(w.back(), Catch::Contains("key 'mode' in [investigate] of config file p.toml"));
}

TEST_CASE("runner options: the 18.10 refusals", "[options][runner]") {
    auto run = [](std::vector<RawOption> raw) {
        raw.push_back(cli1("test", "python3 b.py {image}"));
        return app::resolve_runner(values_for("run", raw));
    };
    // {image} without --image is a usage error, not an empty argument.
    CHECK_THAT(usage_error_of([&] { run({}); }),
               Catch::Contains("uses {image}, but no --image is given"));
    CHECK(run({cli1("image", "img:1")}).image == "img:1");
    CHECK_THAT(usage_error_of([&] {
                   run({cli1("image", "i"), cli1("gpus", "0,0")});
               }),
               Catch::Contains("--gpus '0,0': GPU 0 is listed twice"));
    CHECK_THAT(usage_error_of([&] {
                   run({cli1("image", "i"), cli1("gpus", "0,,1")});
               }),
               Catch::Contains("expected GPU ids separated by commas"));
    CHECK(run({cli1("image", "i"), cli1("gpus", "0, 1,2")}).gpus ==
          std::vector<std::string>{"0", "1", "2"});
    // --max-repeats below --repeats is refused; without --max-repeats the cap follows.
    auto daily = [](std::vector<RawOption> raw) {
        raw.push_back(cli1("from", "2023-08-01"));
        raw.push_back(cli1("to", "2023-08-09"));
        raw.push_back(cli1("test", "t"));
        return app::resolve_daily(values_for("daily", raw));
    };
    CHECK_THAT(usage_error_of([&] {
                   daily({cli1("repeats", "5"), cli1("max-repeats", "4")});
               }),
               Catch::Contains("--max-repeats 4: expected at least --repeats (5)"));
    CHECK(daily({cli1("repeats", "20")}).options.sweep.max_repeats == 20);
    CHECK(daily({}).options.sweep.max_repeats == 12);
    CHECK_THAT(usage_error_of([&] {
                   daily({cli("env", {"A=1", "A=2"})});
               }),
               Catch::Contains("--env #2: A is given twice"));
}

TEST_CASE("threshold: github-action-benchmark's ratio becomes the relative change of the direction",
          "[options][threshold]") {
    const auto at = [](const std::string& threshold, const std::string& direction) {
        const auto v =
            values_for("investigate", {cli1("history", "h"), cli1("test", "t"),
                                       cli1("threshold", threshold), cli1("direction", direction)});
        const auto o = app::resolve_investigate(v, {}).options;
        CHECK(o.daily.sweep.min_change == Approx(o.threshold));
        return o.threshold;
    };
    CHECK(at("5%", "higher") == Approx(0.05));
    CHECK(at("5%", "lower") == Approx(0.05));
    CHECK(at("150%", "higher") == Approx(1.0 / 3)); // 1.5 times worse: a third less
    CHECK(at("150%", "lower") == Approx(0.5));      // 1.5 times worse: half as much again
    CHECK(at("2x", "higher") == Approx(0.5));
    CHECK_THAT(usage_error_of([] {
                   values_for("detect", {cli1("history", "h"), cli1("threshold", "1.5")});
               }),
               Catch::Contains("--threshold '1.5': expected a relative change") &&
                   Catch::Contains("150% or 1.5x"));
}

TEST_CASE("investigate: the pipeline's derivation rules live in one place",
          "[options][investigate]") {
    const auto v =
        values_for("investigate",
                   {cli1("history", "h.jsonl"), cli1("test", "bench {date}"),
                    cli1("image", "img:{date}"), cli1("runtime", "docker"), cli1("threshold", "3%"),
                    cli("repo", {"jax=/s/jax", "xla=/s/xla"}), cli1("build", "build-jax.sh"),
                    cli1("max-time", "6h"), cli1("repeats", "4"), cli1("hourly-test", "bench2")});
    const auto o = app::resolve_investigate(v, {}).options;
    CHECK(o.threshold == Approx(0.03));
    CHECK(o.daily.sweep.min_change == Approx(0.03)); // the demo once forgot this one
    CHECK(o.daily_runner.build_command.empty());     // --build is for source states
    CHECK(o.daily_runner.benchmark == "bench"); // the program: stable when its arguments change
    CHECK(o.hourly_runner.build_command == "build-jax.sh");
    CHECK(o.hourly_runner.test_command == "bench2");
    CHECK(o.hourly_runner.kept_container);
    CHECK(o.hourly_runner.mounts == std::vector<std::string>{"/s/jax:/s/jax", "/s/xla:/s/xla"});
    // --repeats is the daily stage's; the hourly window ends keep their own default (3 runs
    // show the noise), and --hourly-repeats 0 takes --repeats.
    CHECK(o.daily.sweep.repeats == 4);
    CHECK(o.hourly_options.repeats == app::HourlyOptions{}.repeats);
    CHECK(o.hourly_options.max_repeats == 12);
    auto raw = std::vector<RawOption>{cli1("history", "h.jsonl"), cli1("test", "t"),
                                      cli1("repeats", "4"), cli1("hourly-repeats", "0")};
    CHECK(app::resolve_investigate(values_for("investigate", raw), {})
              .options.hourly_options.repeats == 4);
    CHECK(o.hourly_options.max_time == std::chrono::hours{6});
    CHECK(o.daily.max_time == std::chrono::hours{6});
    CHECK(o.hourly_options.step == std::chrono::hours{1});
    CHECK_THAT(usage_error_of([] {
                   app::resolve_investigate(
                       values_for("investigate",
                                  {cli1("history", "h"), cli1("test", "t"), cli1("repo", "a=/r")}),
                       {});
               }),
               Catch::Contains("--repo needs --build"));
    CHECK_THAT(usage_error_of([] {
                   auto v2 = values_for("investigate", {cli1("history", "h"), cli1("test", "t"),
                                                        cli1("repo", "a=/r"), cli1("build", "b"),
                                                        cli1("comment", "true")});
                   app::resolve_investigate(v2, {});
               }),
               Catch::Contains("--github-repo OWNER/NAME"));
}

TEST_CASE("the planners' defaults are the command line's: daily, merge, investigate, hourly",
          "[options][defaults]") {
    const core::SweepOptions planner;
    const app::HourlyOptions hourly;
    auto same_sweep = [&](const core::SweepOptions& s) {
        CHECK(s.strategy == planner.strategy);
        CHECK(s.repeats == planner.repeats);
        CHECK(s.max_repeats == planner.max_repeats);
        CHECK(s.min_span == planner.min_span);
        CHECK(s.min_change == Approx(planner.min_change));
        CHECK(s.alpha == Approx(planner.alpha));
    };
    // Repeats by need (one run at first) and a 3-day shortest excursion (the seed's 3-day level).
    CHECK(planner.repeats == 1);
    CHECK(planner.min_span == 3);
    same_sweep(
        app::resolve_daily(values_for("daily", {cli1("from", "2023-08-01"),
                                                cli1("to", "2023-08-09"), cli1("test", "t")}))
            .options.sweep);
    same_sweep(app::resolve_merge(values_for("merge", {cli("inputs", {"r.json"})})).options.sweep);
    const auto inv = app::resolve_investigate(
                         values_for("investigate", {cli1("history", "h"), cli1("test", "t")}), {})
                         .options;
    same_sweep(inv.daily.sweep);
    // Hourly: bisect (fewest builds), 3 runs at each window end, from both commands.
    CHECK(hourly.strategy == core::SweepStrategy::bisect);
    CHECK(inv.hourly_options.strategy == hourly.strategy);
    CHECK(inv.hourly_options.repeats == hourly.repeats);
    CHECK(inv.hourly_options.max_repeats == hourly.max_repeats);
    const auto h =
        app::resolve_hourly(
            values_for("hourly", {cli1("repo", "a=/r"), cli1("build", "b"), cli1("test", "t")}))
            .options;
    CHECK(h.strategy == hourly.strategy);
    CHECK(h.repeats == hourly.repeats);
    CHECK(h.max_repeats == hourly.max_repeats);
    // Every hourly strategy the stage runs is accepted by both commands.
    for (const std::string s : {"bisect", "adaptive", "sequential"}) {
        CHECK(app::resolve_hourly(values_for("hourly", {cli1("repo", "a=/r"), cli1("build", "b"),
                                                        cli1("test", "t"), cli1("strategy", s)}))
                  .options.strategy == *util::parse_enum(app::k_hourly_strategy_names, s));
        CHECK(app::resolve_investigate(
                  values_for("investigate",
                             {cli1("history", "h"), cli1("test", "t"), cli1("hourly-strategy", s)}),
                  {})
                  .options.hourly_options.strategy ==
              *util::parse_enum(app::k_hourly_strategy_names, s));
    }
    CHECK_THAT(usage_error_of([] {
                   app::resolve_hourly(
                       values_for("hourly", {cli1("repo", "a=/r"), cli1("build", "b"),
                                             cli1("test", "t"), cli1("strategy", "binary")}));
               }),
               Catch::Contains("'binary': expected bisect, adaptive or sequential"));
}

TEST_CASE("the demo resolves its investigation exactly as the command line does",
          "[options][demo]") {
    ports::DemoWorld world;
    world.root = "/tmp/d/world";
    world.repos = {{"compiler", "/tmp/d/world/compiler"}, {"framework", "/tmp/d/world/framework"}};
    world.nightlies = "/tmp/d/world/nightlies";
    world.self_exe = "/usr/bin/perfsweep";
    const auto demo = app::demo_investigate_values(world, "/tmp/d");
    // The same options typed on a command line: every value the demo gives, under its name.
    std::vector<RawOption> raw;
    for (const auto& [name, given] : demo.given_values())
        raw.push_back(cli(name, given.values));
    const auto typed = values_for("investigate", raw);

    const auto a = app::resolve_investigate(demo, {}).options;
    const auto b = app::resolve_investigate(typed, {}).options;
    CHECK(a.threshold == Approx(0.015));
    CHECK(a.daily.sweep.min_change == Approx(a.threshold));
    CHECK(b.daily.sweep.min_change == Approx(a.daily.sweep.min_change));
    CHECK(a.daily.sweep.repeats == b.daily.sweep.repeats);
    CHECK(a.daily.sweep.max_repeats == b.daily.sweep.max_repeats);
    CHECK(a.daily.sweep.direction == b.daily.sweep.direction);
    CHECK(a.daily_runner.test_command == b.daily_runner.test_command);
    CHECK(a.daily_runner.image == b.daily_runner.image);
    CHECK(a.daily_runner.timeout_s == 60);
    CHECK(a.daily_runner.env_probe == "none");
    CHECK(a.hourly_runner.build_command == b.hourly_runner.build_command);
    CHECK(a.hourly_runner.test_command == b.hourly_runner.test_command);
    CHECK(a.hourly_options.repos.size() == 2);
    CHECK(a.hourly_options.to_commit);
    CHECK(b.hourly_options.to_commit);
    REQUIRE(a.record);
    CHECK_FALSE(a.record->today);
    CHECK(util::format_day(a.record->date) == "2023-08-24");
    CHECK(a.out_dir == "/tmp/d/report");
    CHECK(a.commits_probe == b.commits_probe);
}

TEST_CASE("detect: a missing or empty history is inconclusive, exit 4", "[options][exit]") {
    const auto v = values_for("detect", {cli1("history", "h.jsonl")});
    CHECK(app::resolve_detect(v).request.empty_history_inconclusive);
    CHECK(core::exit_code_for(core::Verdict::inconclusive) == exit_inconclusive);
}

TEST_CASE("import: without --direction the tool or the unit decides per record",
          "[options][import]") {
    const auto plain = app::resolve_import(
        values_for("import", {cli("inputs", {"t.csv"}), cli1("history", "h.jsonl")}));
    CHECK_FALSE(plain.request.defaults.direction.has_value());
    const auto lower = app::resolve_import(
        values_for("import", {cli("inputs", {"t.csv"}), cli1("history", "h.jsonl"),
                              cli1("direction", "lower")}));
    REQUIRE(lower.request.defaults.direction.has_value());
    CHECK(*lower.request.defaults.direction == core::Direction::lower_is_better);
}

TEST_CASE("one exit-code policy: daily and merge exit 4 for an unfinished sweep",
          "[options][exit]") {
    core::DailyResult r;
    r.sweep.complete = true;
    CHECK(core::sweep_exit_code(r) == exit_ok);
    r.sweep.complete = false; // merge: dates still to measure
    CHECK(core::sweep_exit_code(r) == exit_inconclusive);
    r.sweep.complete = true;
    r.sweep.boundaries.push_back({});
    CHECK(core::sweep_exit_code(r) == exit_inconclusive); // an undecided boundary
    CHECK(core::investigate_exit_code(core::Verdict::regression, false) == exit_ok);
    CHECK(core::investigate_exit_code(core::Verdict::regression, true) == exit_regression);
    CHECK(core::investigate_exit_code(core::Verdict::inconclusive, true) == exit_inconclusive);
    CHECK(core::point_exit_code(core::Status::timeout) == exit_inconclusive);
}

TEST_CASE("help is rendered from the table", "[options][help]") {
    const auto help = app::render_command_help(*app::find_command_spec("hourly"));
    CHECK_THAT(help, Catch::Contains("usage: perfsweep hourly [options]"));
    CHECK_THAT(help, Catch::Contains("--timeout DURATION"));
    CHECK_THAT(help, Catch::Contains("[default: 30m]"));
    CHECK_THAT(help, Catch::Contains("--logs-dir (now --logs)"));
    for (const auto& command : app::command_specs()) {
        if (command.hidden)
            continue;
        INFO(command.name);
        CHECK(app::render_command_help(command).rfind(
                  "usage: perfsweep " + std::string(command.name), 0) == 0);
    }
    const auto list = app::render_command_list("9.9.9");
    CHECK_THAT(list, Catch::Contains("perfsweep 9.9.9"));
    CHECK_THAT(list, Catch::Contains("  investigate"));
    CHECK_THAT(list, !Catch::Contains("demo-bench"));
    const auto md = app::render_reference_markdown();
    CHECK_THAT(md, Catch::Contains("## investigate"));
    CHECK_THAT(md, Catch::Contains("| `--threshold THRESHOLD` | threshold | `0.02` |"));
}
