#include "adapters/system/local_files.hpp"
#include "support/temp_dir.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

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
