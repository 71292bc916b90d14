#include "core/metric_extract.hpp"
#include "core/metric_set.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

#include <regex>

using namespace perfsweep::core;

TEST_CASE("metric extraction: colour, repeats, scientific notation", "[core][metric]") {
    const auto re = default_metric_regex("MLUPS");
    auto ex = extract_metric("warmup\n\x1b[1;32mMLUPS:\x1b[0m 577.30\nMLUPS: 5.771e2\n", re);
    REQUIRE(ex.reason.empty());
    CHECK(ex.values == std::vector<double>{577.30, 577.1});
}

TEST_CASE("metric extraction failures are reasons, not values", "[core][metric]") {
    const auto re = default_metric_regex("MLUPS");
    CHECK(extract_metric("nothing here\n", re).values.empty());
    auto nan = extract_metric("MLUPS: nan\n", re);
    CHECK(nan.values.empty());
    CHECK(nan.reason.find("line 1") != std::string::npos);
    CHECK(extract_metric("MLUPS: inf\n", re).values.empty());
    CHECK(extract_metric("MLUPS: Traceback\n", re).values.empty());
    CHECK_THROWS_AS(extract_metric("x", "no group"), perfsweep::Error);
    CHECK_THROWS_AS(extract_metric("x", "(unclosed"), perfsweep::Error);
}

TEST_CASE("a custom regex with one group", "[core][metric]") {
    auto ex = extract_metric("throughput=12.5 it/s\n", R"(throughput=([0-9.]+))");
    CHECK(ex.values == std::vector<double>{12.5});
}

TEST_CASE("metric stream: any chunking gives the whole-text result", "[core][metric][stream]") {
    const auto re = default_metric_regex("MLUPS");
    const std::string out =
        "warmup\r\n\x1b[1;32mMLUPS:\x1b[0m 577.30\n10%|###\r100%|###\rMLUPS: 5.771e2"
        "\nnoise MLUPS:3\nlast MLUPS: 9";
    const auto whole = extract_metric(out, re);
    REQUIRE(whole.values == std::vector<double>{577.30, 577.1, 3, 9});
    for (std::size_t step : {1u, 2u, 3u, 7u, 64u}) {
        MetricStream s(re);
        for (std::size_t i = 0; i < out.size(); i += step)
            s.feed(std::string_view(out).substr(i, step));
        const auto ex = s.finish();
        CHECK(ex.values == whole.values);
        CHECK(ex.reason == whole.reason);
    }
    // A failure names the same line however the text arrives.
    MetricStream bad(re);
    bad.feed("a\nb\nMLU");
    bad.feed("PS: nan\n");
    const auto ex = bad.finish();
    CHECK(ex.values.empty());
    CHECK(ex.reason.find("line 3") != std::string::npos);
}

TEST_CASE("metric stream: a huge line costs bounded memory and the next line is still read",
          "[core][metric][stream]") {
    MetricStream s(default_metric_regex("MLUPS"));
    const std::string chunk(1 << 20, 'x');
    for (int i = 0; i < 64; ++i) // 64 MiB without a line break
        s.feed(chunk);
    s.feed("\nMLUPS: 42\n");
    const auto ex = s.finish();
    CHECK(ex.values == std::vector<double>{42});
}

TEST_CASE("metric stream: an unterminated colour code hides no later line",
          "[core][metric][stream]") {
    // strip_ansi skips an OSC sequence up to its BEL: per segment, it cannot swallow the rest.
    const auto ex =
        extract_metric("\x1b]0;title without bell\nMLUPS: 7\n", default_metric_regex("MLUPS"));
    CHECK(ex.values == std::vector<double>{7});
}

TEST_CASE("escape_regex: a metric name with metacharacters is matched as written",
          "[core][metric]") {
    const std::string name = R"(a.b*c+d?(e)[f]{2}|g^h$i\j/k)";
    const std::regex re(escape_regex(name));
    CHECK(std::regex_match(name, re));
    CHECK_FALSE(std::regex_match(std::string(R"(aXb*c+d?(e)[f]{2}|g^h$i\j/k)"), re));
    const auto one = regex_for_name(R"((?<name>\S+):\s*([0-9.]+))", "GB/s.(x)");
    CHECK(one == R"((?:GB/s\.\(x\)):\s*([0-9.]+))");
    CHECK(extract_metric("GB/s.(x): 12.5\nGB/s-(x): 9\n", one).values == std::vector<double>{12.5});
}

TEST_CASE("required literal of a regex: only what every match must contain",
          "[core][metric][stream]") {
    CHECK(required_literal(default_metric_regex("MLUPS")) == "MLUPS:");
    CHECK(required_literal(default_metric_regex("a.b")) == "a.b:");
    CHECK(required_literal(R"(throughput=([0-9.]+))") == "throughput=");
    CHECK(required_literal(R"(steps?/s: ([0-9.]+))") == "step");
    CHECK(required_literal(R"(ab*c([0-9]))") == "a");
    CHECK(required_literal(R"(x|y([0-9]))").empty());
    CHECK(required_literal(R"(ab[|]c([0-9]))") == "ab");  // a '|' in a class or group is no
    CHECK(required_literal(R"(t=(a|b)([0-9]))") == "t="); // alternation of the whole pattern
    CHECK(required_literal(R"(t\|u([0-9]))") == "t|u");
    CHECK(required_literal(R"(\d+ ms([0-9]))").empty());
    CHECK(required_literal(R"((?:a|b)([0-9]))").empty());
    CHECK(required_literal(R"(^MLUPS: ([0-9]))").empty());
    // The literal filter never changes what a regex finds.
    const std::string out = "steps/s: 12\nstep/s: 13\nstep: 1\n";
    CHECK(extract_metric(out, R"(steps?/s: ([0-9.]+))").values == std::vector<double>{12, 13});
}

TEST_CASE("a metric value must end at a boundary: separators, radix prefixes and run-on digits "
          "fail naming the line",
          "[core][metric]") {
    const auto re = default_metric_regex("MLUPS");
    for (const char* text : {"MLUPS: 1,234.5", "MLUPS: 0x1F", "MLUPS: 1_000", "MLUPS: 1.2.3",
                             "MLUPS: 12a3", "MLUPS: -0x10", "MLUPS: 0b101"}) {
        INFO(text);
        const auto ex = extract_metric(std::string("start\n") + text + "\n", re);
        CHECK(ex.values.empty());
        CHECK(ex.reason.find("line 2: metric value") != std::string::npos);
        CHECK(ex.reason.find("not the whole number") != std::string::npos);
    }
    // What ends at a boundary still reads: a unit glued on, punctuation, the end of a sentence.
    const auto ok = extract_metric(
        "MLUPS: 12.5ms\nMLUPS: 7, next\nMLUPS: 8.\nMLUPS: 9 (best)\nMLUPS: 2x faster\n", re);
    CHECK(ok.reason.empty());
    CHECK(ok.values == std::vector<double>{12.5, 7, 8, 9, 2});
    // A custom regex gets the same check.
    CHECK(extract_metric("t=1,500\n", R"(t=([0-9]+))").values.empty());
}

TEST_CASE("one run's values are bounded: a metric printed a million times fails the run",
          "[core][metric]") {
    MetricStream s(default_metric_regex("MLUPS"));
    std::string block;
    for (int i = 0; i < 1000; ++i)
        block += "MLUPS: 500\n";
    for (int i = 0; i < 1000; ++i)
        s.feed(block);
    const auto ex = s.finish();
    CHECK(ex.values.empty());
    CHECK(ex.reason.find("more than 10000 values") != std::string::npos);
    MetricStream fine(default_metric_regex("MLUPS"));
    for (int i = 0; i < 10; ++i)
        fine.feed(block);
    CHECK(fine.finish().values.size() == 10000);
}
