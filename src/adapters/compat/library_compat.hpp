#pragma once
// Calls whose form depends on the library version, in one place so that the oldest supported
// libraries (Ubuntu 22.04: libcurl 7.81, libgit2 1.1) build and run the same code. Each function
// takes the newer call when the headers have it and the older one otherwise; the CMake option
// PERFSWEEP_OLDEST_DEPS forces the older calls on newer libraries (CI builds and tests both).

#include <curl/curl.h>
#include <git2.h>

#include <string>

namespace perfsweep::adapters::compat {

/// Restrict `curl` to http and https (CURLOPT_PROTOCOLS_STR on libcurl >= 7.85, else the
/// CURLOPT_PROTOCOLS bitmask). Returns libcurl's result; anything but CURLE_OK is an error.
CURLcode restrict_to_http(CURL* curl);

/// Whether `refname` (e.g. "refs/heads/x") is a well-formed reference name
/// (git_reference_name_is_valid on libgit2 >= 1.2, else git_reference_is_valid_name).
/// The caller has initialised libgit2.
bool reference_name_is_valid(const std::string& refname);

/// Forbid redirects to another host in a fetch (`follow_redirects` = none, libgit2 >= 1.4).
/// Returns false where libgit2 has no such setting: its transport then follows a redirect of the
/// first request, and the credentials callback (adapters/git/credentials) keeps the token home.
bool refuse_offsite_redirects(git_fetch_options& options);

/// The same for a push.
bool refuse_offsite_redirects(git_push_options& options);

/// Which calls this build uses, e.g. "libcurl CURLOPT_PROTOCOLS_STR, libgit2
/// git_reference_name_is_valid" (for test logs).
std::string describe();

} // namespace perfsweep::adapters::compat
