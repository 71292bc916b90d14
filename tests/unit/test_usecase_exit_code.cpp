// Exit-code mode in-process with the in-memory ports (tests/support/fakes): a nightly test that
// starts failing 30 % of its runs is found with repeats, every exit status is recorded, and the
// report says how far the failure rate rose, with the first failing run's log. The binary's own
// exit-code runs (real child processes, signals, skip/abort, git bisect run) stay in
// tests/integration/test_exit_code_mode.cpp.
#include "app/daily.hpp"
#include "app/options.hpp"
#include "report/daily_text.hpp"
#include "report/markdown.hpp"
#include "support/fakes/world.hpp"

#include <catch2/catch.hpp>

#include <cstdint>

using namespace perfsweep;

namespace {

// Fails 30 % of the runs from `flaky_from` on, deterministic per date and run number.
fakes::RunScript flaky_from(const std::string& first) {
    return [first](const ports::PointRequest& r, int repeat) {
        std::uint32_t h = 2166136261u; // FNV-1a of "date/run"
        for (char c : r.label + "/" + std::to_string(repeat))
            h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
        if (r.label >= first && h % 1000 < 300)
            return fakes::Run::exit(1, "testing nightly " + r.label + "\nAssertionError: flaky\n");
        return fakes::Run::exit(0, "testing nightly " + r.label + "\npassed\n");
    };
}

} // namespace

TEST_CASE("daily --check exit-code in-process: a 30 % flaky failure is found and its rates told",
          "[usecase][exitcode][daily]") {
    fakes::World w;
    w.runners.run = flaky_from("2023-08-13");
    w.runners.logs = &w.files;
    app::OptionValues v(*app::find_command_spec("daily"));
    v.set("from", "2023-08-07");
    v.set("to", "2023-08-17");
    v.set("check", "exit-code");
    v.set("test", "python3 nightly.py {date}");
    v.set("logs", "logs");
    v.set("repeats", "6");
    v.set("max-repeats", "24");
    v.check();
    const auto req = app::resolve_daily(v);
    REQUIRE(req.runner.exit_code_mode);
    auto runner = w.runners.make(req.runner);
    auto r = app::run_daily(req.options, w.adapters, {*runner});
    r.image = req.runner.image;
    REQUIRE(r.sweep.boundaries.size() == 1);
    const auto& b = r.sweep.boundaries[0];
    CHECK(r.sweep.points[b.last_before].label == "2023-08-12");
    CHECK(r.sweep.points[b.first_after].label == "2023-08-13");
    CHECK(b.kind == core::ChangeKind::regression);
    CHECK(b.old_level == 0);
    CHECK(b.new_level > 0.15);
    CHECK(b.new_level < 0.45);
    // Every repeat's exit status is recorded.
    bool saw_1 = false;
    for (const auto& ms : r.measurements)
        for (const auto& m : ms)
            for (int c : m.exit_codes)
                saw_1 = saw_1 || c == 1;
    CHECK(saw_1);
    // The text and the markdown report say how far the failure rate rose, with the first failing
    // run's log of the first bad nightly.
    CHECK_THAT(report::render_daily(r), Catch::Contains("failure rate rose from 0 % (0/"));
    const auto md = report::render_markdown(core::ResultDocument(r));
    INFO(md);
    CHECK_THAT(md, Catch::Contains("failure rate rose from 0 % (0/"));
    CHECK_THAT(md, Catch::Contains("between nightly 2023-08-12 and 2023-08-13"));
    CHECK_THAT(md, Catch::Contains("| failed runs |"));
    CHECK_THAT(md, Catch::Contains("AssertionError: flaky"));
    CHECK_THAT(md, Catch::Contains("**Nightly 2023-08-13** (exit status 1)"));
}
