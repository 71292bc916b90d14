// Suite "number parsing": what a benchmark prints after `MLUPS:` and what gets recorded. Before,
// the default pattern read the leading digits of whatever followed: `MLUPS: 1,234.5` was recorded
// as ok with the value 1, `0x1F` as 0, `1_000` as 1, `1.2.3` as 1.2. A number must now end at a
// boundary (space, end of line, punctuation not followed by a digit, or a unit such as `ms`), else
// the point fails with the output line named. The real binary reads each output from stdin
// (`record --benchmark-output -`, the same reader as every sweep's runs).
// Figure: outputs, wrong values recorded (goal 0), refused with the line named, read correctly.

#include "support/figures.hpp"
#include "support/temp_dir.hpp"

#include <catch2/catch.hpp>

#include <optional>
#include <string>
#include <vector>

using namespace perfsweep::test;

TEST_CASE("number parsing: a metric value is read whole or refused naming its line",
          "[suites][number-parsing]") {
    struct Case {
        std::string printed;
        std::optional<std::string> value; ///< the stored value's JSON text; none = refused
    };
    const std::vector<Case> cases = {
        {"MLUPS: 1,234.5", std::nullopt},  {"MLUPS: 0x1F", std::nullopt},
        {"MLUPS: 1_000", std::nullopt},    {"MLUPS: 1.2.3", std::nullopt},
        {"MLUPS: 12a4", std::nullopt},     {"MLUPS: 1234.5", "1234.5"},
        {"MLUPS: 1.5e3 (best)", "1500.0"}, {"MLUPS: 12.5ms", "12.5"},
        {"MLUPS: 7, then more", "7.0"},    {"MLUPS: 3.25.", "3.25"},
    };
    TempDir dir("perfsweep-number-parsing");
    const auto history = dir.file("h.jsonl");
    int wrong = 0, refused = 0, read = 0, n = 0;
    for (const auto& c : cases) {
        ++n;
        const std::string label = "2024-01-" + std::string(n < 10 ? "0" : "") + std::to_string(n);
        const auto r = run_perfsweep({"record", "--history", history, "--metric", "MLUPS",
                                      "--label", label, "--benchmark-output", "-"},
                                     {}, "warmup\n" + c.printed + "\n");
        INFO(c.printed << ": " << r.out << r.err);
        // A refused value is recorded as a failed point, and record exits 4 (no value, issue 25).
        REQUIRE(r.exit_code == (c.value ? 0 : 4));
        const auto text = read_file(history);
        const auto at = text.find("\"label\":\"" + label + "\"");
        REQUIRE(at != std::string::npos);
        const auto line =
            text.substr(text.rfind('\n', at) + 1, text.find('\n', at) - text.rfind('\n', at) - 1);
        const bool ok = line.find("\"status\":\"ok\"") != std::string::npos;
        if (c.value) {
            const bool right =
                ok && line.find("\"values\":[" + *c.value + "]") != std::string::npos;
            CHECK(right);
            read += right ? 1 : 0;
            wrong += right ? 0 : 1;
        } else {
            const bool named = !ok && line.find("line 2: metric value") != std::string::npos &&
                               line.find("not the whole number") != std::string::npos;
            CHECK(named);
            refused += named ? 1 : 0;
            wrong += ok ? 1 : 0;
        }
    }
    report_figure("number-parsing", {{"outputs", std::to_string(cases.size())},
                                     {"wrong_values", std::to_string(wrong)},
                                     {"refused_naming_the_line", std::to_string(refused)},
                                     {"read", std::to_string(read)}});
    CHECK(wrong == 0);
}
