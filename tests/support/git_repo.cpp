#include "support/git_repo.hpp"

#include "support/temp_dir.hpp"
#include "util/strings.hpp"

#include <catch2/catch.hpp>

namespace perfsweep::test {

std::string git_at(const std::string& dir, const std::vector<std::string>& args, long long when) {
    std::vector<std::string> argv{
        "git", "-C", dir, "-c", "user.name=Dev", "-c", "user.email=dev@example.com"};
    argv.insert(argv.end(), args.begin(), args.end());
    const auto date = "@" + std::to_string(when) + " +0000";
    auto r = run_command(argv, {"GIT_AUTHOR_DATE=" + date, "GIT_COMMITTER_DATE=" + date});
    if (r.exit_code != 0)
        FAIL("git " + util::join(args, " ") + " failed: " + r.err);
    return std::string(util::trim(r.out));
}

} // namespace perfsweep::test
