// The --config file is TOML, read by toml++ (issue 25): every string form reads as written
// (metric = """MLUPS""" is MLUPS, not ""MLUPS""), numbers, booleans, dates and arrays map to the
// option's text exactly, and what cannot be an option value is an error naming the file, the line
// and the key, never a silent change.
#include "cli/parse.hpp"
#include "support/temp_dir.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace perfsweep;

namespace {

cli::CommandLine parse(const std::string& config, std::vector<std::string> args) {
    std::vector<std::string> words = {"perfsweep", "--config", config};
    words.insert(words.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& w : words)
        argv.push_back(w.data());
    return cli::parse_command_line(static_cast<int>(argv.size()), argv.data());
}

} // namespace

TEST_CASE("config: TOML strings, numbers, booleans and arrays read as written", "[cli][config]") {
    test::TempDir dir;
    const auto f = dir.file("p.toml");
    test::write_file(f, "[detect]\n"
                        "metric = \"\"\"MLUPS\"\"\"\n"
                        "benchmark = 'lbm \\ 256'\n"
                        "threshold = 0.025\n"
                        "json = true\n"
                        "[record]\n"
                        "metric = [\"MLUPS\", '''GFLOPS''']\n"
                        "history = \"h.jsonl\"\n"
                        "label = 2024-05-16\n");
    const auto d = parse(f, {"detect", "--history", "h.jsonl"});
    REQUIRE(d.values);
    CHECK(d.values->text("metric") == "MLUPS");
    CHECK(d.values->text("benchmark") == "lbm \\ 256");
    CHECK(d.values->text("threshold") == "0.025");
    CHECK(d.values->flag("json"));
    const auto r = parse(f, {"record", "--value", "1"});
    REQUIRE(r.values);
    CHECK(r.values->list("metric") == std::vector<std::string>{"MLUPS", "GFLOPS"});
    CHECK(r.values->text("label") == "2024-05-16");
}

TEST_CASE("config: what cannot be an option value names the file, line and key", "[cli][config]") {
    test::TempDir dir;
    const auto bad = [&](const std::string& text, const std::string& expected) {
        const auto f = dir.file("bad.toml");
        test::write_file(f, text);
        CHECK_THROWS_WITH(parse(f, {"detect", "--history", "h"}), Catch::Contains(expected));
    };
    bad("[detect]\nmetric = MLUPS\n", "bad.toml:2:");                     // not TOML
    bad("[detect]\n\nmetric = {a = 1}\n", "bad.toml:3: [detect.metric]"); // inline table
    bad("[detect.more]\nmetric = \"x\"\n", "[detect.more]");              // two levels
    bad("metric = \"x\"\n", "bad.toml:1: key 'metric' is outside a [command] section");
    bad("[detect]\nmetric = [[1], [2]]\n", "bad.toml:2: [detect] metric"); // nested array
    bad("[detect]\nmetirc = \"x\"\n", "bad.toml:2: [detect] has no key 'metirc'; did you mean "
                                      "'metric'?");
    bad("[detect]\nmetric = \"a\"\nmetric = \"b\"\n", "bad.toml:3"); // twice
}
