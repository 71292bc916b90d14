#include "adapters/system/local_files.hpp"
#include "support/temp_dir.hpp"
#include "util/error.hpp"
#include "util/version.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace perfsweep;

TEST_CASE("the binary reports its version and maps usage errors to exit 2", "[cli]") {
    auto v = test::run_perfsweep({"--version"});
    CHECK(v.exit_code == 0);
    CHECK(v.out.find("perfsweep") != std::string::npos);
    auto bad = test::run_perfsweep({"no-such-command"});
    CHECK(bad.exit_code == 2);
    auto none = test::run_perfsweep({});
    CHECK(none.exit_code == 2);
}

TEST_CASE("atomic writes replace whole files and errors name the path", "[adapters][files]") {
    test::TempDir dir;
    adapters::LocalFiles files;
    const auto p = dir.file("sub/dir/out.json");
    files.write_atomic(p, "first");
    files.write_atomic(p, "second");
    CHECK(files.read_text(p) == "second");
    try {
        files.read_text(dir.file("missing.txt"));
        FAIL("expected an error");
    } catch (const Error& e) {
        CHECK(std::string(e.what()).find("missing.txt") != std::string::npos);
        CHECK(e.kind() == ErrorKind::usage);
    }
}

TEST_CASE("the CLI speaks one language: help, suggestions, one error style", "[cli][options]") {
    using test::run_perfsweep;
    auto v = run_perfsweep({"--version"});
    CHECK(v.out == "perfsweep " + std::string(util::version()) + "\n");
    CHECK(run_perfsweep({"version"}).out == v.out);

    auto typo = run_perfsweep({"detcet", "--history", "h.jsonl"});
    CHECK(typo.exit_code == 2);
    CHECK(typo.err == "perfsweep: error: unknown command 'detcet'; did you mean 'detect'? (see "
                      "'perfsweep help')\n");
    auto flag = run_perfsweep({"detect", "--history", "h.jsonl", "--treshold", "2%"});
    CHECK(flag.exit_code == 2);
    CHECK(flag.err ==
          "perfsweep: error: unknown option --treshold for 'detect'; did you mean --threshold?\n");
    auto bad = run_perfsweep({"daily", "--from", "2023-08-01", "--to", "2023-08-03", "--test",
                              "true", "--repeats", "three"});
    CHECK(bad.exit_code == 2);
    CHECK(bad.err == "perfsweep: error: --repeats 'three': expected a whole number >= 1\n");
    auto missing = run_perfsweep({"daily", "--to", "2023-08-03", "--test", "true"});
    CHECK(missing.exit_code == 2);
    CHECK(missing.err.rfind("perfsweep: error: daily: --from START is required", 0) == 0);

    // perfsweep help, help COMMAND and COMMAND --help describe the same thing.
    auto list = run_perfsweep({"help"});
    CHECK(list.exit_code == 0);
    CHECK(list.out.find("  investigate") != std::string::npos);
    CHECK(list.out.find("demo-bench") == std::string::npos);
    CHECK(run_perfsweep({"--help"}).out == list.out);
    // Every command's help text is checked in-process (unit [options][help]); the binary is
    // spawned for three kinds of command (options only, bare words, no options) to check that
    // both spellings reach the same text through the parser.
    for (const char* cmd : {"detect", "import", "version"}) {
        INFO(cmd);
        auto h = run_perfsweep({"help", cmd});
        CHECK(h.exit_code == 0);
        CHECK(h.out.rfind(std::string("usage: perfsweep ") + cmd, 0) == 0);
        auto h2 = run_perfsweep({cmd, "--help"});
        CHECK(h2.exit_code == 0);
        CHECK(h2.out == h.out);
    }
    auto help_typo = run_perfsweep({"help", "investgate"});
    CHECK(help_typo.exit_code == 2);
    CHECK(help_typo.err.find("did you mean 'investigate'?") != std::string::npos);
    // --config belongs before the command; the error says so.
    auto cfg = run_perfsweep({"detect", "--config", "x.toml"});
    CHECK(cfg.exit_code == 2);
    CHECK(cfg.err.find("--config goes before the command") != std::string::npos);
}

TEST_CASE("CLI validation: the refusals of issue 18.10 exit 2 with a clear message",
          "[cli][options]") {
    using test::run_perfsweep;
    test::TempDir dir;
    const auto h = dir.file("h.jsonl");
    struct Case {
        std::vector<std::string> args;
        std::string expect;
    };
    const std::vector<Case> cases = {
        {{"run", "--test", "echo x: 1", "--metric", ""}, "--metric '': expected a non-empty NAME"},
        {{"run", "--test", "echo {image} MLUPS: 1"}, "uses {image}, but no --image is given"},
        {{"hourly", "--repo", "a=" + dir.path().string(), "--from", "2023-08-24T00:00:00Z", "--to",
          "2023-08-24T03:00:00Z", "--plan", "--max-builds", "-2"},
         "--max-builds '-2': expected a whole number >= 0"},
        {{"daily", "--from", "2023-08-01", "--to", "2023-08-03", "--test", "true", "--repeats", "5",
          "--max-repeats", "3"},
         "--max-repeats 3: expected at least --repeats (5)"},
        {{"run", "--test", "true", "--gpus", "0,0"}, "--gpus '0,0': GPU 0 is listed twice"},
        {{"hourly", "--repo", "a=" + dir.path().string(), "--timeout", "soon", "--plan"},
         "--timeout 'soon': expected a duration"},
    };
    for (const auto& c : cases) {
        INFO(c.args[0] << " ... expecting " << c.expect);
        auto r = run_perfsweep(c.args);
        INFO(r.err);
        CHECK(r.exit_code == 2);
        CHECK(r.err.rfind("perfsweep: error: ", 0) == 0);
        CHECK(r.err.find(c.expect) != std::string::npos);
        CHECK_FALSE(std::filesystem::exists(h));
    }
}

TEST_CASE("detect: a missing history file is an error (exit 2), an empty one inconclusive (4)",
          "[cli][options]") {
    using test::run_perfsweep;
    test::TempDir dir;
    const auto h = dir.file("h.jsonl");
    auto r = run_perfsweep({"detect", "--history", h});
    CHECK(r.exit_code == 2); // a mistyped path, far more often than a first night
    CHECK(r.err.find("h.jsonl' does not exist") != std::string::npos);
    test::write_file(h, "");
    r = run_perfsweep({"detect", "--history", h});
    CHECK(r.exit_code == 4);
    CHECK(r.out.find("no measurements yet") != std::string::npos);
    r = run_perfsweep({"detect", "--history", h, "--json"});
    CHECK(r.exit_code == 4);
    CHECK(r.out.find("\"inconclusive\"") != std::string::npos);
    // A selection that matches nothing in a real history is still a usage error.
    REQUIRE(
        run_perfsweep({"record", "--history", h, "--metric", "MLUPS", "--value", "1"}).exit_code ==
        0);
    CHECK(run_perfsweep({"detect", "--history", h, "--metric", "TFLOPS"}).exit_code == 2);
}

TEST_CASE("record and import print JSON with --json", "[cli][options]") {
    using test::run_perfsweep;
    test::TempDir dir;
    const auto h = dir.file("h.jsonl");
    auto r = run_perfsweep({"record", "--history", h, "--metric", "MLUPS", "--value", "540.5",
                            "--label", "2023-08-24", "--json"});
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.rfind("{", 0) == 0);
    CHECK(r.out.find("\"label\":\"2023-08-24\"") != std::string::npos);
    CHECK(r.out.find("540.5") != std::string::npos);
    test::write_file(dir.file("a.csv"), "label,value\n2023-08-25,541\n2023-08-26,542\n");
    r = run_perfsweep({"import", "--history", h, "--metric", "MLUPS", dir.file("a.csv"), "--json"});
    REQUIRE(r.exit_code == 0);
    CHECK(r.out == "{\"imported\":2,\"already\":0,\"history\":\"" + h + "\"}\n");
    // A re-import appends nothing and says so.
    r = run_perfsweep({"import", "--history", h, "--metric", "MLUPS", dir.file("a.csv"), "--json"});
    REQUIRE(r.exit_code == 0);
    CHECK(r.out == "{\"imported\":0,\"already\":2,\"history\":\"" + h + "\"}\n");
}

TEST_CASE("report prints markdown, writes --output silently, warns on stderr, bad input exits 2",
          "[cli][report]") {
    using test::run_perfsweep;
    test::TempDir dir;
    const std::string results = std::string(PERFSWEEP_SOURCE_DIR) + "/tests/data/results/";
    auto r = run_perfsweep({"report", "--input", results + "daily.json", "--key", "ci/nightly"});
    REQUIRE(r.exit_code == 0);
    CHECK(r.out ==
          test::read_file(std::string(PERFSWEEP_SOURCE_DIR) + "/tests/data/golden/daily.md"));
    // The document goes to --output only; the old option name's warning goes to stderr.
    r = run_perfsweep({"report", "--input", results + "daily.json", "--format", "json", "--output",
                       dir.file("r.json")});
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.empty());
    CHECK(r.err.rfind("perfsweep: warning: --format is an old name; use --json", 0) == 0);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(test::read_file(dir.file("r.json")).find("\"kind\": \"daily\"") != std::string::npos);
    test::write_file(dir.file("bad.json"), R"({"something": 1})");
    r = run_perfsweep({"report", "--input", dir.file("bad.json")});
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("expected a result document") != std::string::npos);
}
