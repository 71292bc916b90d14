#include "adapters/demo/demo_world.hpp"
#include "core/demo/script.hpp"
#include "support/temp_dir.hpp"
#include "util/strings.hpp"

#include <catch2/catch.hpp>

#include <filesystem>

using namespace perfsweep;

namespace {
std::string git(const std::string& repo, std::vector<std::string> args) {
    std::vector<std::string> argv{"git", "-C", repo};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = test::run_command(argv);
    REQUIRE(r.exit_code == 0);
    return std::string(util::trim(r.out));
}
} // namespace

TEST_CASE("the demo world has real repos whose nightlies match git's first-parent view",
          "[demo][git]") {
    test::TempDir dir;
    adapters::GitDemoWorldMaker maker;
    auto world = maker.create(dir.file("world"));
    REQUIRE(world.repos.size() == 2);
    const auto& compiler = world.repos.at("compiler");
    // PR merges exist and the culprit PR commit predates its merge by hours.
    const auto merges = git(compiler, {"log", "--merges", "--format=%s", "origin/main"});
    CHECK(merges.find("#4711") != std::string::npos);
    const auto merge = git(compiler, {"log", "--merges", "--grep=#4711", "--format=%H", "main"});
    CHECK(git(compiler, {"log", "-1", "--format=%s", merge + "^2"}) ==
          "codegen: halve vector width to cut register pressure");
    const auto pr_time = std::stoll(git(compiler, {"log", "-1", "--format=%ct", merge + "^2"}));
    const auto merge_time = std::stoll(git(compiler, {"log", "-1", "--format=%ct", merge}));
    CHECK(merge_time - pr_time == 5 * 3600 + 30 * 60);
    // Each nightly's manifest is the first-parent state at its build time.
    for (const auto& date : world.nightly_dates) {
        const auto manifest = test::read_file(world.nightlies + "/" + date + "/manifest.txt");
        for (const auto& line : util::split(manifest, '\n')) {
            if (line.empty())
                continue;
            auto parts = util::split(line, ' ');
            const auto expect =
                git(world.repos.at(parts[0]), {"rev-list", "-1", "--first-parent",
                                               "--before=" + date + "T04:00:00Z", "origin/main"});
            CHECK(parts[1] == expect);
        }
    }
    CHECK(std::filesystem::exists(world.nightlies + "/2023-08-19/CRASH"));
    // Worktrees are checked out at main.
    CHECK(test::read_file(compiler + "/vector.cfg") == "vector_width = 4\n");
    CHECK_THROWS(maker.create(dir.file("world")));
}

TEST_CASE("demo MLUPS model: 2 % layout and 7 % vector-width factors", "[demo]") {
    std::map<std::string, std::string> fw{{"layout.cfg", "layout = soa\n"}};
    std::map<std::string, std::string> cc{{"vector.cfg", "vector_width = 8\n"}};
    const double good = core::demo_mlups(fw, cc, "x", 0);
    CHECK(good == Approx(577.3).epsilon(0.01));
    fw["layout.cfg"] = "layout = aos\n";
    CHECK(core::demo_mlups(fw, cc, "x", 0) / good == Approx(0.98).epsilon(1e-9));
    cc["vector.cfg"] = "vector_width = 4\n";
    CHECK(core::demo_mlups(fw, cc, "x", 0) / good == Approx(0.98 * 0.93).epsilon(1e-9));
    CHECK(core::demo_mlups(fw, cc, "x", 1) != core::demo_mlups(fw, cc, "x", 0));
    CHECK(core::demo_mlups({}, cc, "x", 0) < 0);
}
