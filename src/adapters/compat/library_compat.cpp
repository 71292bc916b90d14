#include "adapters/compat/library_compat.hpp"

#include <git2.h>

// LIBCURL_VERSION_NUM is 0xXXYYZZ; CURLOPT_PROTOCOLS_STR appeared in 7.85.0.
#if LIBCURL_VERSION_NUM >= 0x075500 && !defined(PERFSWEEP_OLDEST_DEPS)
#define PERFSWEEP_CURL_PROTOCOLS_STR 1
#else
#define PERFSWEEP_CURL_PROTOCOLS_STR 0
#endif
// git_reference_name_is_valid appeared in libgit2 1.2; 1.1 has git_reference_is_valid_name
// (kept, deprecated, in every later 1.x).
#if (LIBGIT2_VER_MAJOR > 1 || (LIBGIT2_VER_MAJOR == 1 && LIBGIT2_VER_MINOR >= 2)) &&               \
    !defined(PERFSWEEP_OLDEST_DEPS)
#define PERFSWEEP_GIT_NAME_IS_VALID 1
#else
#define PERFSWEEP_GIT_NAME_IS_VALID 0
#endif

// git_remote_redirect_t (fetch and push options' follow_redirects) appeared in libgit2 1.4.
#if (LIBGIT2_VER_MAJOR > 1 || (LIBGIT2_VER_MAJOR == 1 && LIBGIT2_VER_MINOR >= 4)) &&               \
    !defined(PERFSWEEP_OLDEST_DEPS)
#define PERFSWEEP_GIT_REDIRECTS 1
#else
#define PERFSWEEP_GIT_REDIRECTS 0
#endif

namespace perfsweep::adapters::compat {

namespace {

CURLcode protocols_bitmask(CURL* curl) {
    // Deprecated since 7.85 in favour of CURLOPT_PROTOCOLS_STR; newer headers warn about it.
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
    return curl_easy_setopt(curl, CURLOPT_PROTOCOLS,
                            static_cast<long>(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
}

// Fetch and push options both carry `follow_redirects` (libgit2 >= 1.4).
template <typename GitOptions> bool refuse_redirects([[maybe_unused]] GitOptions& options) {
#if PERFSWEEP_GIT_REDIRECTS
    options.follow_redirects = GIT_REMOTE_REDIRECT_NONE;
    return true;
#else
    return false;
#endif
}

} // namespace

CURLcode restrict_to_http(CURL* curl) {
#if PERFSWEEP_CURL_PROTOCOLS_STR
    const CURLcode rc = curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    // Built against >= 7.85 headers but running on an older libcurl: the option is unknown there.
    return rc == CURLE_UNKNOWN_OPTION ? protocols_bitmask(curl) : rc;
#else
    return protocols_bitmask(curl);
#endif
}

bool reference_name_is_valid(const std::string& refname) {
#if PERFSWEEP_GIT_NAME_IS_VALID
    int valid = 0;
    return git_reference_name_is_valid(&valid, refname.c_str()) == 0 && valid != 0;
#else
    return git_reference_is_valid_name(refname.c_str()) != 0;
#endif
}

bool refuse_offsite_redirects(git_fetch_options& options) {
    return refuse_redirects(options);
}

bool refuse_offsite_redirects(git_push_options& options) {
    return refuse_redirects(options);
}

std::string describe() {
    return std::string("libcurl ") + LIBCURL_VERSION +
           (PERFSWEEP_CURL_PROTOCOLS_STR ? " CURLOPT_PROTOCOLS_STR" : " CURLOPT_PROTOCOLS") +
           ", libgit2 " + LIBGIT2_VERSION +
           (PERFSWEEP_GIT_NAME_IS_VALID ? " git_reference_name_is_valid"
                                        : " git_reference_is_valid_name") +
           (PERFSWEEP_GIT_REDIRECTS ? " follow_redirects" : " (no follow_redirects)");
}

} // namespace perfsweep::adapters::compat
