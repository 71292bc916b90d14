#include "app/journal_file.hpp"
#include "core/journal.hpp"
#include "support/fakes/memory.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

using namespace perfsweep;
using namespace perfsweep::core;

namespace {

Measurement full_measurement() {
    Measurement m;
    m.benchmark = "MLUPS3d.py 256 200";
    m.metric = "MLUPS";
    m.unit = "MLUPS/s";
    m.direction = Direction::lower_is_better;
    m.values = {0.1, 601.25, 1e-300, -3.5, 123456789.123456789, 1e150};
    m.label = "2023-08-24";
    m.timestamp = "2023-12-01T10:00:00Z";
    m.stage = Stage::commit;
    m.image = "ghcr.io/nvidia/jax:nightly-2023-08-24";
    m.digest = "sha256:abc";
    m.commits = {{"jax", "0123456789abcdef0123456789abcdef01234567"}, {"x=y", "s"}};
    m.commit_times = {{"jax", "2023-08-24T09:30:00Z"}};
    m.runner = {{"gpu", "NVIDIA H200"}, {"hostname", "node\t1"}};
    m.environment = {{"cuda", "12.3"}, {"label.org.opencontainers.image.revision", "abc"}};
    m.status = Status::timeout;
    m.reason = "killed after 30m\nsecond line \\ with a backslash\r";
    m.log = "logs/2023-08-24/run-1.log";
    m.exit_codes = {0, 1, -9, 125};
    m.failure_log = "logs/2023-08-24/run-2.log";
    return m;
}

JournalEvent run_event(const std::string& point, long runs, const Measurement& m) {
    JournalEvent e;
    e.kind = JournalEvent::Kind::run;
    e.point = point;
    e.runs = runs;
    e.measurement = m;
    return e;
}

/// The message of the usage error `text` raises, or "" when it parses.
std::string error_of(const std::string& text) {
    try {
        parse_journal(text, "st/journal.tsv");
    } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::usage);
        return e.what();
    }
    return "";
}

const std::string k_head = "journal\t1\tdaily\tx\n";

} // namespace

TEST_CASE("a journal round-trips every measurement field exactly", "[core][journal]") {
    const auto m = full_measurement();
    JournalEvent building;
    building.kind = JournalEvent::Kind::building;
    building.point = "jax=a,xla=b";
    JournalEvent build;
    build.kind = JournalEvent::Kind::build;
    build.point = "jax=a,xla=b";
    build.reason = "compile error:\tline 3\nnext";
    const std::string text = journal_header("hourly", "build=b.sh\ntest=t\trepeats=3") +
                             journal_record(building) + journal_record(build) +
                             journal_record(run_event("jax=a,xla=b", 1, m));
    // One record per line: escaped fields never add a line.
    CHECK(std::count(text.begin(), text.end(), '\n') == 4);
    const auto j = parse_journal(text, "journal.tsv");
    CHECK(j.stage == "hourly");
    CHECK(j.settings == "build=b.sh\ntest=t\trepeats=3");
    REQUIRE(j.events.size() == 3);
    CHECK(j.events[0].kind == JournalEvent::Kind::building);
    CHECK(j.events[0].line == 2);
    CHECK(j.events[1].kind == JournalEvent::Kind::build);
    CHECK_FALSE(j.events[1].ok);
    CHECK(j.events[1].reason == build.reason);
    const auto& r = j.events[2];
    CHECK(r.kind == JournalEvent::Kind::run);
    CHECK(r.point == "jax=a,xla=b");
    CHECK(r.runs == 1);
    const auto& b = r.measurement;
    CHECK(b.values == m.values); // exactly, not within a tolerance
    CHECK(b.benchmark == m.benchmark);
    CHECK(b.metric == m.metric);
    CHECK(b.unit == m.unit);
    CHECK(b.direction == m.direction);
    CHECK(b.label == m.label);
    CHECK(b.timestamp == m.timestamp);
    CHECK(b.stage == m.stage);
    CHECK(b.image == m.image);
    CHECK(b.digest == m.digest);
    CHECK(b.commits == m.commits);
    CHECK(b.commit_times == m.commit_times);
    CHECK(b.runner == m.runner);
    CHECK(b.environment == m.environment);
    CHECK(b.status == m.status);
    CHECK(b.reason == m.reason);
    CHECK(b.log == m.log);
    CHECK(b.exit_codes == m.exit_codes);
    CHECK(b.failure_log == m.failure_log);
}

TEST_CASE("a header-only journal has no events and a missing-image run costs nothing",
          "[core][journal]") {
    CHECK(parse_journal(k_head, "j").events.empty());
    Measurement m;
    m.status = Status::missing;
    m.label = "2023-08-25";
    const auto j = parse_journal(k_head + journal_record(run_event("2023-08-25", 0, m)), "j");
    REQUIRE(j.events.size() == 1);
    CHECK(j.events[0].runs == 0);
    CHECK(j.events[0].measurement.status == Status::missing);
    CHECK(j.events[0].measurement.values.empty());
}

TEST_CASE("a value that is not a finite number is refused when written", "[core][journal]") {
    Measurement m;
    m.values = {1, std::numeric_limits<double>::infinity()};
    CHECK_THROWS_AS(journal_record(run_event("p", 1, m)), Error);
}

TEST_CASE("a damaged journal is refused naming the file, the line and what was expected",
          "[core][journal]") {
    const std::string run = "run\t2023-08-24\t1\tstatus\tok\tvalues\t1.5\n";
    struct Case {
        std::string text;
        std::vector<std::string> says;
    };
    const std::vector<Case> cases = {
        {"", {"st/journal.tsv:", "empty", "journal header"}},
        {"journal\t1\tdaily\tx", {"st/journal.tsv:1:", "no end of line", "torn"}},
        {k_head + run.substr(0, 20), {"st/journal.tsv:2:", "torn"}},
        {"garbage{\n", {"st/journal.tsv:1:", "journal header", "garbage{"}},
        {"journal\t2\tdaily\tx\n", {"st/journal.tsv:1:", "version '2'", "reads version 1"}},
        {"journal\t1\t\tx\n", {":1:", "stage"}},
        {k_head + "\n", {":2:", "empty line"}},
        {k_head + k_head, {":2:", "second journal header"}},
        {k_head + "ran\t2023-08-24\t1\n",
         {":2:", "unknown record 'ran'", "run, building, build or restored"}},
        {k_head + "garbage{\n", {":2:", "unknown record 'garbage{'"}},
        {k_head + "run\t\t1\n", {":2:", "field 2 (point)"}},
        {k_head + "run\tp\n", {":2:", "RUNS"}},
        {k_head + "run\tp\tmany\n", {":2:", "field 3 (runs)", "'many'"}},
        {k_head + "run\tp\t-1\n", {":2:", "field 3 (runs)"}},
        {k_head + "run\tp\t1\tstatus\n", {":2:", "NAME<TAB>VALUE pairs"}},
        {k_head + "run\tp\t1\tcolour\tred\n", {":2:", "unknown measurement field 'colour'"}},
        {k_head + "run\tp\t1\tstatus\tok\tstatus\tok\n", {":2:", "'status' appears twice"}},
        {k_head + "run\tp\t1\tstatus\tfine\n", {":2:", "field 'status'", "'fine'"}},
        {k_head + "run\tp\t1\tdirection\tup\n", {":2:", "field 'direction'"}},
        {k_head + "run\tp\t1\tstage\tweekly\n", {":2:", "field 'stage'"}},
        {k_head + "run\tp\t1\tvalues\t1.5,x\n", {":2:", "field 'values'", "'x'"}},
        {k_head + "run\tp\t1\tvalues\t1e999\n", {":2:", "field 'values'"}},
        {k_head + "run\tp\t1\tvalues\t1e200\n", {":2:", "field 'values'", "magnitude"}},
        {k_head + "run\tp\t1\texit_codes\t1,99999999999\n", {":2:", "field 'exit_codes'"}},
        {k_head + "run\tp\t1\tcommit.\tabc\n", {":2:", "a name after 'commit.'"}},
        {k_head + "run\tp\t1\treason\tbad \\x escape\n", {":2:", "field 5", "unknown escape"}},
        {k_head + "run\tp\t1\treason\tends in \\\n", {":2:", "lone backslash"}},
        {k_head + "building\tp\textra\n", {":2:", "building record"}},
        {k_head + "build\tp\tok\n", {":2:", "build record"}},
        {k_head + "build\tp\tmaybe\t\n", {":2:", "ok or failed", "'maybe'"}},
        {k_head + "restored\tp\n", {":2:", "a restored record"}},
        {k_head + run + "build\tp\tok\n", {"st/journal.tsv:3:"}},
    };
    for (const auto& c : cases) {
        const auto msg = error_of(c.text);
        INFO("journal: " << c.text << "\nerror: " << msg);
        CHECK_FALSE(msg.empty());
        for (const auto& s : c.says)
            CHECK(msg.find(s) != std::string::npos);
    }
}

TEST_CASE("a state directory of other settings is refused naming where they differ, briefly",
          "[core][journal]") {
    // A --jax-toolbox build command embeds a whole build script: the message names the change,
    // not every setting twice.
    const std::string script(3000, 's');
    const std::string was = "build=sh -c '" + script + "' build-jax.sh --sm 9.0 test=bench";
    const std::string now = "build=sh -c '" + script + "' build-jax.sh --sm 8.0 test=bench";
    fakes::MemoryFiles files;
    app::JournalFile first(files, "st", "hourly", was);
    try {
        app::JournalFile second(files, "st", "hourly", now);
        FAIL("other settings were accepted");
    } catch (const Error& e) {
        const std::string m = e.what();
        CHECK(e.kind() == ErrorKind::usage);
        CHECK(m.size() < 400);
        CHECK_THAT(m, Catch::Contains("st/journal.tsv holds a different sweep") &&
                          Catch::Contains("--sm 8.0 test=bench' here") &&
                          Catch::Contains("--sm 9.0 test=bench' there"));
    }
    CHECK(describe_settings_difference("a", "a").empty());
    CHECK(describe_settings_difference("repeats=3", "repeats=5") ==
          "at character 9: 'repeats=3' here, 'repeats=5' there");
    const auto inserted = describe_settings_difference("x=1 " + script + " y", "x=1 y", 10);
    CHECK(inserted.size() < 100);
    CHECK_THAT(inserted, Catch::StartsWith("at character 5: 'x=1 ssssss"));
}
