#pragma once
// The one libgit2 credentials callback of perfsweep: a token goes only to the host it is for.
// libgit2 follows a redirect of a fetch's first request (1.5: to any host) and asks the callback
// for credentials for wherever it ended up; the callback compares that URL with the configured
// remote's origin (scheme, host, port) and refuses any other, and answers once (a refused token
// is not sent again and again).

#include <git2.h>

#include <string>
#include <string_view>

namespace perfsweep::adapters {

/// "scheme://host:port" of an http(s) URL (host lower-cased, the default port filled in, any
/// user info dropped); "" for a URL that is not http(s).
std::string url_origin(std::string_view url);

/// The payload of token_credentials.
struct TokenCredentials {
    std::string token;   ///< sent as x-access-token:TOKEN; "" = no credentials
    std::string origin;  ///< url_origin of the configured remote: the only place it goes
    int asked = 0;       ///< times libgit2 asked
    std::string refused; ///< why the callback refused (a redirect elsewhere), for the message
};

/// git_credential_acquire_cb: the token for its own origin, once; GIT_EUSER (the transfer stops)
/// for a URL of another origin, with the reason in `refused`; GIT_PASSTHROUGH without a token.
int token_credentials(git_credential** out, const char* url, const char* username_from_url,
                      unsigned int allowed_types, void* payload);

} // namespace perfsweep::adapters
