#include "util/workflow_text.hpp"

#include <catch2/catch.hpp>

using namespace perfsweep::util;

TEST_CASE("inert_line: nothing the Actions runner reads as a command survives",
          "[util][workflow_text]") {
    CHECK(inert_line("2023-08-24  run 1/5  500 MLUPS") == "2023-08-24  run 1/5  500 MLUPS");
    CHECK(inert_line("::set-output name=x::y") == "> ::set-output name=x::y");
    CHECK(inert_line("   ::error::x") == ">    ::error::x");
    CHECK(inert_line("\xe2\x80\x83::notice::x").rfind("> ", 0) == 0); // U+2003 EM SPACE
    CHECK(inert_line("label x ##[set-output name=x;]y") == "label x ## [set-output name=x;]y");
    CHECK(inert_line("a\n::add-mask::b\rc") == "a ::add-mask::b c");
    CHECK(inert_line("time: 10:00::00") == "time: 10:00::00"); // "::" after text is harmless
    CHECK(inert_lines("ok\n::error::x\r\n##[debug]y\rz") == "ok\n> ::error::x\n## [debug]y\nz");
}
