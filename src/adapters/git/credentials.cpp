#include "adapters/git/credentials.hpp"

#include "util/strings.hpp"

namespace perfsweep::adapters {

std::string url_origin(std::string_view url) {
    const auto colon = url.find("://");
    if (colon == std::string_view::npos)
        return "";
    const std::string scheme = util::to_lower(std::string(url.substr(0, colon)));
    if (scheme != "http" && scheme != "https")
        return "";
    std::string_view rest = url.substr(colon + 3);
    rest = rest.substr(0, rest.find_first_of("/?#"));
    if (const auto at = rest.rfind('@'); at != std::string_view::npos)
        rest = rest.substr(at + 1); // user info
    std::string host(rest), port;
    if (!host.empty() && host.front() == '[') { // [IPv6]:port
        const auto close = host.find(']');
        if (close == std::string::npos)
            return "";
        if (close + 1 < host.size() && host[close + 1] == ':')
            port = host.substr(close + 2);
        host = host.substr(0, close + 1);
    } else if (const auto c = host.rfind(':'); c != std::string::npos) {
        port = host.substr(c + 1);
        host = host.substr(0, c);
    }
    if (host.empty())
        return "";
    if (port.empty())
        port = scheme == "https" ? "443" : "80";
    return scheme + "://" + util::to_lower(host) + ":" + port;
}

int token_credentials(git_credential** out, const char* url, const char* /*username_from_url*/,
                      unsigned int allowed_types, void* payload) {
    auto* c = static_cast<TokenCredentials*>(payload);
    if (!c || c->token.empty() || !(allowed_types & GIT_CREDENTIAL_USERPASS_PLAINTEXT))
        return GIT_PASSTHROUGH;
    const std::string asking = url_origin(url ? url : "");
    if (asking.empty() || asking != c->origin) {
        c->refused = "the server sent the request on to " +
                     (asking.empty() ? std::string("another place") : asking) +
                     "; the token is only sent to " + c->origin;
        git_error_set_str(GIT_ERROR_NET, c->refused.c_str());
        return GIT_EUSER;
    }
    if (c->asked++ > 0) { // the token was refused once: sending it again changes nothing
        c->refused = "the token was refused by " + c->origin;
        git_error_set_str(GIT_ERROR_NET, c->refused.c_str());
        return GIT_EUSER;
    }
    return git_credential_userpass_plaintext_new(out, "x-access-token", c->token.c_str());
}

} // namespace perfsweep::adapters
