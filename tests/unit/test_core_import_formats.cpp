#include "core/import_formats.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

using namespace perfsweep;
using namespace perfsweep::core;

namespace {
ImportDefaults mlups() {
    ImportDefaults d;
    d.benchmark = "MLUPS3d.py 256 200";
    d.metric = "MLUPS";
    d.unit = "MLUPS";
    return d;
}

/// The message of the usage error `f` throws ("" if none).
template <class F> std::string error_of(F f) {
    try {
        f();
    } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::usage);
        return e.what();
    }
    return "";
}
} // namespace

TEST_CASE("csv: values, repeats, failed points, optional columns", "[core][import]") {
    const std::string text = "label,value,status,reason\n"
                             "2023-08-22,577.3,ok,\n"
                             "2023-08-23,577.1;576.9;577.4,,\r\n"
                             "\n"
                             "2023-08-24,,failed,Traceback\n"
                             "2023-08-25,,,\n";
    auto ms = parse_csv(text, "h.csv", mlups());
    REQUIRE(ms.size() == 4);
    CHECK(ms[0].label == "2023-08-22");
    CHECK(ms[0].values == std::vector<double>{577.3});
    CHECK(ms[0].metric == "MLUPS");
    CHECK(ms[0].benchmark == "MLUPS3d.py 256 200");
    CHECK(ms[1].values == std::vector<double>{577.1, 576.9, 577.4});
    CHECK(ms[2].status == Status::failed);
    CHECK(ms[2].reason == "Traceback");
    CHECK(ms[2].values.empty());
    CHECK(ms[3].status == Status::failed);
    CHECK(ms[3].reason == "no value");
    // Column order is free; status alone is optional.
    auto two = parse_csv("value,label\n1.5,a\n", "x.csv", mlups());
    CHECK(two.at(0).label == "a");
    CHECK(two.at(0).values == std::vector<double>{1.5});
}

TEST_CASE("csv: malformed input names file and line", "[core][import]") {
    CHECK_THAT(error_of([] { parse_csv("label,speed\n", "h.csv", mlups()); }),
               Catch::Contains("h.csv:1") && Catch::Contains("speed"));
    CHECK_THAT(error_of([] { parse_csv("label,value\na,1\nb,x2\n", "h.csv", mlups()); }),
               Catch::Contains("h.csv:3") && Catch::Contains("x2"));
    CHECK_THAT(error_of([] { parse_csv("label,value\na,1,3\n", "h.csv", mlups()); }),
               Catch::Contains("h.csv:2") && Catch::Contains("3 fields"));
    CHECK_THAT(error_of([] { parse_csv("label,value,status\na,1,broken\n", "h.csv", mlups()); }),
               Catch::Contains("h.csv:2") && Catch::Contains("broken"));
    CHECK_THAT(error_of([] { parse_csv("label,value\na,nan\n", "h.csv", mlups()); }),
               Catch::Contains("h.csv:2"));
    CHECK_THAT(error_of([] { parse_csv("label,value\n,1\n", "h.csv", mlups()); }),
               Catch::Contains("h.csv:2") && Catch::Contains("empty label"));
    CHECK_THAT(error_of([] { parse_csv("value\n1\n", "h.csv", mlups()); }),
               Catch::Contains("h.csv:1") && Catch::Contains("'label'"));
}

TEST_CASE("grep output: labels, colour, failed lines, inferred metric", "[core][import]") {
    const std::string text = "OUT-08-23:MLUPS: 577.30\n"
                             "OUT-08-24:\x1b[32mMLUPS:\x1b[0m 537.10\n"
                             "OUT-08-25:MLUPS: Traceback (most recent call last)\n"
                             "OUT-08-26:  File \"MLUPS3d.py\", line 5\n"
                             "OUT-08-27:MLUPS:\n";
    ImportDefaults d;
    auto ms = parse_grep(text, "g.txt", d);
    REQUIRE(ms.size() == 5);
    CHECK(ms[0].label == "OUT-08-23");
    CHECK(ms[0].metric == "MLUPS");
    CHECK(ms[0].values == std::vector<double>{577.30});
    CHECK(ms[1].values == std::vector<double>{537.10});
    CHECK(ms[2].status == Status::failed);
    CHECK_THAT(ms[2].reason, Catch::Contains("Traceback"));
    CHECK(ms[3].status == Status::failed);
    CHECK(ms[3].label == "OUT-08-26");
    CHECK(ms[4].status == Status::failed);
    CHECK(ms[4].reason == "no number after MLUPS");
}

TEST_CASE("grep output: malformed lines name file and line", "[core][import]") {
    CHECK_THAT(error_of([] { parse_grep("a:MLUPS: 1\nno colon here\n", "g.txt", {}); }),
               Catch::Contains("g.txt:2"));
    CHECK_THAT(error_of([] { parse_grep("a:MLUPS: 1\nb:GFLOPS: 2\n", "g.txt", {}); }),
               Catch::Contains("g.txt:2") && Catch::Contains("MLUPS"));
    CHECK_THAT(error_of([] { parse_grep("\n\n", "g.txt", {}); }), Catch::Contains("g.txt"));
}

TEST_CASE("grep output: a blank file-name prefix is refused, not an empty label",
          "[core][import]") {
    // Found by fuzz_import_csv: only blanks before the first ':' imported a point labelled "".
    CHECK_THAT(error_of([] { parse_grep("       :MLUPS: 101.5\n", "g.txt", {}); }),
               Catch::Contains("g.txt:1") && Catch::Contains("blank"));
    CHECK_THAT(error_of([] { parse_grep("a:MLUPS: 1\n \t :MLUPS: 2\n", "g.txt", {}); }),
               Catch::Contains("g.txt:2") && Catch::Contains("blank"));
    ImportDefaults d;
    d.metric = "MLUPS";
    CHECK_THAT(error_of([&] { parse_grep("   : MLUPS 3\n", "g.txt", d); }),
               Catch::Contains("g.txt:1") && Catch::Contains("LABEL:MLUPS: NUMBER"));
}

TEST_CASE("format names and auto-detection", "[core][import]") {
    CHECK(parse_import_format("benchmark-action") == ImportFormat::benchmark_action);
    CHECK(parse_import_format("csv") == ImportFormat::csv);
    CHECK_FALSE(parse_import_format("xml"));
    CHECK(detect_import_format("label,value\n1,2\n", "f") == ImportFormat::csv);
    CHECK(detect_import_format("OUT-1:MLUPS: 2\n", "f") == ImportFormat::grep);
    CHECK(detect_import_format("window.BENCHMARK_DATA = {}", "f") ==
          ImportFormat::benchmark_action);
    CHECK(detect_import_format("{\n \"entries\": {}\n}", "f") == ImportFormat::benchmark_action);
    CHECK(detect_import_format("{\"metric\":\"m\",\"values\":[1]}\n", "f") == ImportFormat::jsonl);
    CHECK_THAT(error_of([] { detect_import_format("just words\n", "w.txt"); }),
               Catch::Contains("w.txt:1") && Catch::Contains("--format"));
    CHECK(error_of([] { detect_import_format("  \n", "e.txt"); }) ==
          "e.txt: the file is empty; expected csv, grep, benchmark-action or jsonl data");
}

TEST_CASE("direction from the github-action-benchmark tool and from units", "[core][import]") {
    for (const char* t : {"cargo", "go", "googlecpp", "catch2", "benchmarkdotnet", "julia",
                          "customSmallerIsBetter"})
        CHECK(direction_for_tool(t) == Direction::lower_is_better);
    for (const char* t : {"benchmarkjs", "pytest", "customBiggerIsBetter"})
        CHECK(direction_for_tool(t) == Direction::higher_is_better);
    CHECK_FALSE(direction_for_tool("something-else"));
    for (const char* u :
         {"ns/iter", "ms", "s", "bytes", "ns/op\t 0 B/op\t 0 allocs/op", "B/op", "MiB", "us"})
        CHECK(direction_for_unit(u) == Direction::lower_is_better);
    for (const char* u : {"ops/sec", "iter/sec", "MB/s", "MLUPS", "GFLOPS", "it/s"})
        CHECK(direction_for_unit(u) == Direction::higher_is_better);
    for (const char* u : {"", "%", "count"})
        CHECK_FALSE(direction_for_unit(u));
    // Without --direction, a CSV import in ns/iter is lower-is-better, not "higher" by default.
    ImportDefaults d;
    d.metric = "t";
    d.unit = "ns/iter";
    CHECK(parse_csv("label,value\na,1\n", "t.csv", d)[0].direction == Direction::lower_is_better);
    d.direction = Direction::higher_is_better; // --direction wins
    CHECK(parse_csv("label,value\na,1\n", "t.csv", d)[0].direction == Direction::higher_is_better);
}

TEST_CASE("labels that look like dates must be real dates", "[core][import]") {
    CHECK(label_problem("2023-08-05").empty());
    CHECK(label_problem("2023-08-05T03:00:00Z").empty());
    CHECK(label_problem("OUT-08-23").empty());
    CHECK(label_problem("nightly-2023-8-5").empty()); // free text
    CHECK_THAT(label_problem("2023-02-30"), Catch::Contains("not a calendar date"));
    CHECK_THAT(label_problem("2023-8-05"), Catch::Contains("YYYY-MM-DD"));
    CHECK_THAT(label_problem("2023-08-05 "), Catch::Contains("white space"));
    CHECK_THAT(
        error_of([] { parse_csv("label,value\n2023-08-01,1\n2023-02-30,2\n", "h.csv", mlups()); }),
        Catch::Contains("h.csv:3") && Catch::Contains("2023-02-30"));
    CHECK_THAT(error_of([] { parse_grep("2023-8-05:MLUPS: 1\n", "g.txt", {}); }),
               Catch::Contains("g.txt:1") && Catch::Contains("YYYY-MM-DD"));
}

TEST_CASE("csv: RFC 4180 quoting", "[core][import]") {
    auto ms = parse_csv("label,value,reason\n\"2023-08-07\",\"499\",\"a, b\"\n"
                        "2023-08-08,500,\"say \"\"hi\"\"\nthere\"\n2023-08-09,501,\n",
                        "q.csv", mlups());
    REQUIRE(ms.size() == 3);
    CHECK(ms[0].label == "2023-08-07"); // stored without the quotes
    CHECK(ms[0].values == std::vector<double>{499});
    CHECK(ms[0].reason == "a, b");
    CHECK(ms[1].reason == "say \"hi\"\nthere");
    CHECK(ms[2].label == "2023-08-09");
    CHECK(ms[2].values == std::vector<double>{501});
    CHECK_THAT(error_of([] { parse_csv("label,value\na,\"1\n", "q.csv", mlups()); }),
               Catch::Contains("q.csv:2") && Catch::Contains("never closes"));
    CHECK_THAT(error_of([] { parse_csv("label,value\na,1\"2\n", "q.csv", mlups()); }),
               Catch::Contains("q.csv:2"));
    // A NUL in a value does not cut the message short.
    const std::string nul = std::string("label,value\na,12") + '\0' + "x\n";
    CHECK_THAT(error_of([&] { parse_csv(nul, "q.csv", mlups()); }),
               Catch::Contains("12\\x00x") && Catch::Contains("expected a number"));
}
