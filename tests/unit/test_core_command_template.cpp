#include "core/command_template.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

using namespace perfsweep;
using Words = std::vector<std::string>;

TEST_CASE("templates split once with shell-like quoting and no expansion", "[core][template]") {
    CHECK(core::parse_command("python3  bench.py 256\t200", "--test").words ==
          Words{"python3", "bench.py", "256", "200"});
    CHECK(core::parse_command(R"(sh -c 'echo $HOME; ls "x"')", "--test").words ==
          Words{"sh", "-c", R"(echo $HOME; ls "x")"});
    CHECK(core::parse_command(R"(a "b \"c\" \$d \x" e\ f '')", "--test").words ==
          Words{"a", R"(b "c" $d \x)", "e f", ""});
    CHECK(core::parse_command("run --out=/tmp/{date}/x.txt", "--test").fields == Words{"date"});
}

TEST_CASE("template errors name the flag and what was expected", "[core][template]") {
    auto message = [](const std::string& text) {
        try {
            core::parse_command(text, "--test");
        } catch (const Error& e) {
            CHECK(e.kind() == ErrorKind::usage);
            return std::string(e.what());
        }
        return std::string("no error");
    };
    CHECK_THAT(message("echo 'open"), Catch::Contains("--test") && Catch::Contains("unclosed"));
    CHECK_THAT(message("echo \"open"), Catch::Contains("unclosed double quote"));
    CHECK_THAT(message("   "), Catch::Contains("--test is empty"));
    CHECK_THAT(message("run {dat}"), Catch::Contains("unknown placeholder {dat}"));
    CHECK_THAT(message("run x\\"), Catch::Contains("trailing backslash"));
}

TEST_CASE("placeholders are substituted inside words and never re-split", "[core][template]") {
    const auto cmd = core::parse_command(
        "bench --tag={date}-{commit:XLA} {path:src}/run.sh {yyyy}/{mm}/{dd} '{{literal}}' "
        "${HOME} {1:2}",
        "--test");
    std::map<std::string, std::string> values{
        {"date", "2023-08-24"}, {"commit:XLA", "abc 123; $(x)"}, {"path:src", "/a b/c"}};
    CHECK(core::substitute(cmd, values) == Words{"bench", "--tag=2023-08-24-abc 123; $(x)",
                                                 "/a b/c/run.sh", "2023/08/24", "{literal}",
                                                 "${HOME}", "{1:2}"});
    values.erase("commit:XLA");
    CHECK_THROWS_WITH(core::substitute(cmd, values), Catch::Contains("--commit NAME=SHA"));
    CHECK_THROWS_WITH(core::substitute_word("{yyyy}", {}, "--image"), Catch::Contains("--date"));
}

TEST_CASE("placeholder values are exported as PERFSWEEP_ variables", "[core][template]") {
    const auto env = core::placeholder_environment(
        {{"date", "2023-08-24"}, {"commit:xla-main", "abc"}, {"path:jax", "/src"}, {"gpu", "3"}});
    CHECK(env.at("PERFSWEEP_DATE") == "2023-08-24");
    CHECK(env.at("PERFSWEEP_COMMIT_XLA_MAIN") == "abc");
    CHECK(env.at("PERFSWEEP_PATH_JAX") == "/src");
    CHECK(env.at("PERFSWEEP_GPU") == "3");
}
