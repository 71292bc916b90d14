// The version-dependent library calls of src/adapters/compat. integration_tests runs these with
// the calls the installed libraries select; oldest_deps_tests links the PERFSWEEP_OLDEST_DEPS
// build of that file ahead of the library's (tests/CMakeLists.txt), so the libcurl < 7.85 and
// libgit2 < 1.2 paths are compiled and tested on every test build.
#include "adapters/compat/library_compat.hpp"
#include "adapters/github/github_client.hpp"
#include "adapters/system/local_files.hpp"
#include "support/temp_dir.hpp"

#include <catch2/catch.hpp>
#include <curl/curl.h>
#include <git2.h>

#include <cstdlib>
#include <memory>
#include <string>

using namespace perfsweep;

namespace {

// oldest_deps_tests sets PERFSWEEP_EXPECT_OLDEST_DEPS=1: its calls must be the oldest ones (so a
// link order that picked the library's own build of the file would fail here).
void check_expected_path() {
    const char* want = std::getenv("PERFSWEEP_EXPECT_OLDEST_DEPS");
    if (want && std::string(want) == "1") {
        CHECK(adapters::compat::describe().find(" CURLOPT_PROTOCOLS,") != std::string::npos);
        CHECK(adapters::compat::describe().find("git_reference_is_valid_name") !=
              std::string::npos);
    }
}

std::size_t collect(char* data, std::size_t size, std::size_t n, void* user) {
    static_cast<std::string*>(user)->append(data, size * n);
    return size * n;
}

/// Fetch `url` with libcurl, restricted to http(s) or not; returns (curl code, body).
std::pair<CURLcode, std::string> fetch(const std::string& url, bool restricted) {
    std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> c(curl_easy_init(), curl_easy_cleanup);
    REQUIRE(c);
    std::string body;
    curl_easy_setopt(c.get(), CURLOPT_URL, url.c_str());
    curl_easy_setopt(c.get(), CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(c.get(), CURLOPT_WRITEDATA, &body);
    if (restricted)
        REQUIRE(adapters::compat::restrict_to_http(c.get()) == CURLE_OK);
    const CURLcode rc = curl_easy_perform(c.get());
    return {rc, body};
}

} // namespace

TEST_CASE("libcurl is restricted to http and https on this build's code path", "[github][compat]") {
    INFO(adapters::compat::describe());
    check_expected_path();
    test::TempDir dir;
    const std::string secret = dir.file("secret.txt");
    test::write_file(secret, "not for the network\n");
    const std::string url = "file://" + secret;
    // Control: unrestricted, libcurl reads the file (so the check below can fail).
    const auto open = fetch(url, false);
    REQUIRE(open.first == CURLE_OK);
    REQUIRE(open.second == "not for the network\n");
    const auto shut = fetch(url, true);
    CHECK(shut.first == CURLE_UNSUPPORTED_PROTOCOL);
    CHECK(shut.second.empty());
}

TEST_CASE("the GitHub client never follows a file URL, on this build's code path",
          "[github][compat]") {
    INFO(adapters::compat::describe());
    test::TempDir dir;
    const std::string secret = dir.file("secret.txt");
    test::write_file(secret, "not for the network\n");
    adapters::SystemClock clock;
    adapters::GitHubOptions opt;
    opt.token = "t";
    adapters::GitHubClient client(opt, clock);
    const auto r = client.perform("GET", "file://" + secret, "");
    CHECK(r.status == 0);
    CHECK(r.body.empty());
    CHECK_FALSE(r.transport_error.empty());
}

TEST_CASE("reference names are checked like git check-ref-format, on this build's code path",
          "[github][compat][history]") {
    INFO(adapters::compat::describe());
    check_expected_path();
    git_libgit2_init();
    for (const std::string ok : {"refs/heads/perfsweep-data", "refs/heads/a/b", "refs/heads/x.y"})
        CHECK(adapters::compat::reference_name_is_valid(ok));
    for (const std::string bad : {"refs/heads/a..b", "refs/heads/x.lock", "refs/heads/a b",
                                  "refs/heads/a~1", "refs/heads/", "refs/heads/a:b"})
        CHECK_FALSE(adapters::compat::reference_name_is_valid(bad));
    git_libgit2_shutdown();
}
