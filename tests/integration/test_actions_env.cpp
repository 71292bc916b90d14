#include "adapters/github/actions_env.hpp"
#include "support/temp_dir.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <functional>
#include <map>

using namespace perfsweep;
using namespace perfsweep::test;

namespace {

struct Env {
    std::map<std::string, std::string> vars;
    std::function<std::string(const std::string&)> fn() {
        return [this](const std::string& k) { return vars.count(k) ? vars.at(k) : std::string(); };
    }
};

std::string read_stream(std::FILE* f) {
    std::fflush(f);
    std::rewind(f);
    std::string s;
    char buf[256];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0)
        s.append(buf, n);
    return s;
}

} // namespace

TEST_CASE("workflow-command escaping follows the runner's rules", "[actions]") {
    CHECK(adapters::escape_command_data("50% slower\r\nnext") == "50%25 slower%0D%0Anext");
    CHECK(adapters::escape_command_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A");
}

TEST_CASE("GITHUB_OUTPUT uses name=value or a random heredoc delimiter", "[actions]") {
    CHECK(adapters::format_output("verdict", "regression", "ab12") == "verdict=regression\n");
    CHECK(adapters::format_output("report", "line1\nline2", "ab12") ==
          "report<<ghadelimiter_ab12\nline1\nline2\nghadelimiter_ab12\n");
    // A value that contains the delimiter cannot end the block early.
    const auto o = adapters::format_output("x", "a\nghadelimiter_ab12\nb", "ab12");
    CHECK(o == "x<<ghadelimiter_ab12_\na\nghadelimiter_ab12\nb\nghadelimiter_ab12_\n");
    CHECK_THROWS_AS(adapters::format_output("a=b", "v", "r"), Error);
}

TEST_CASE("the runner contract writes only inside Actions", "[actions]") {
    TempDir dir;
    Env env;
    env.vars["GITHUB_OUTPUT"] = dir.file("out");
    env.vars["GITHUB_STEP_SUMMARY"] = dir.file("summary.md");
    std::FILE* f = std::tmpfile();
    adapters::ActionsEnv runner(env.fn(), f);
    runner.set_outputs({{"a", "1"}});
    runner.append_summary("# report");
    runner.annotate("error", "t", "m");
    runner.add_mask("secret");
    CHECK(read_stream(f).empty());
    CHECK_FALSE(std::ifstream(dir.file("out")).good());

    env.vars["GITHUB_ACTIONS"] = "true";
    runner.set_outputs({{"verdict", "regression"}, {"report", "a\nb"}});
    runner.set_outputs({{"more", "x"}});
    runner.append_summary("# report 1");
    runner.append_summary("# report 2\n");
    runner.annotate("error", "MLUPS: fell, 7%", "MLUPS fell 7.0 %\nculprit: xla@3c66");
    runner.annotate("warning", "", "inconclusive");
    runner.add_mask("secret");
    runner.add_mask("secret");
    const auto out = read_file(dir.file("out"));
    CHECK(out.find("verdict=regression\n") != std::string::npos);
    CHECK(out.find("report<<ghadelimiter_") != std::string::npos);
    CHECK(out.find("more=x\n") != std::string::npos);
    CHECK(read_file(dir.file("summary.md")) == "# report 1\n# report 2\n");
    CHECK(read_stream(f) ==
          "::error title=MLUPS%3A fell%2C 7%25::MLUPS fell 7.0 %25%0Aculprit: xla@3c66\n"
          "::warning::inconclusive\n::add-mask::secret\n");
    CHECK_THROWS_AS(runner.annotate("fatal", "", "x"), Error);
    std::fclose(f);
}

TEST_CASE("event payloads name the PR or issue, or say why not", "[actions][events]") {
    const std::string dir = std::string(PERFSWEEP_SOURCE_DIR) + "/tests/data/events/";
    auto t = adapters::event_target_from_json("pull_request", read_file(dir + "pull_request.json"),
                                              "e.json");
    CHECK(t.number == 42);
    t = adapters::event_target_from_json("issues", read_file(dir + "issues.json"), "e.json");
    CHECK(t.number == 7);
    t = adapters::event_target_from_json("issue_comment", read_file(dir + "issue_comment.json"),
                                         "e.json");
    CHECK(t.number == 42);
    t = adapters::event_target_from_json("workflow_dispatch",
                                         read_file(dir + "workflow_dispatch.json"), "e.json");
    CHECK(t.number == 13);
    t = adapters::event_target_from_json("schedule", read_file(dir + "schedule.json"), "e.json");
    CHECK_FALSE(t.number);
    CHECK(t.why_none.find("schedule") != std::string::npos);
    CHECK_THROWS_WITH(adapters::event_target_from_json(
                          "workflow_dispatch", R"({"inputs":{"pr":"12; rm -rf /"}})", "e.json"),
                      Catch::Contains("e.json") && Catch::Contains("input 'pr'"));
    CHECK_THROWS_WITH(adapters::event_target_from_json("push", "[1]", "e.json"),
                      Catch::Contains("not a JSON object"));
}
