#pragma once
// Credentials a child process must never see or print: the protected environment variables, the
// values of every variable named like a secret, and values registered at run time.

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace perfsweep::adapters {

/// Also treat environment variable `name` as a credential (thread-safe). GITHUB_TOKEN, GH_TOKEN,
/// PERFSWEEP_GIT_TOKEN, ACTIONS_RUNTIME_TOKEN and ACTIONS_ID_TOKEN_REQUEST_TOKEN always are.
void protect_secret_env(const std::string& name);
/// Also treat `value` as a credential (e.g. a `--env NAME=VALUE` whose name looks secret).
void protect_secret_value(const std::string& value);
/// The protected variable names (children never inherit them).
std::set<std::string> protected_env_names();
/// Whether an environment variable name looks like a credential: it ends in TOKEN, SECRET,
/// PASSWORD or _KEY (any case).
bool secret_like_name(std::string_view name);
/// Every value to mask: the protected variables' values (4+ characters), the values (8+
/// characters) of every variable of this process with a secret-like name, and the protected
/// values; longest first.
std::vector<std::string> secret_values();
/// `text` with every secret value (secret_values) replaced by "***".
std::string mask_secrets(std::string text);

/// Masks secrets in output that arrives in chunks: a secret split across two chunks is still
/// masked. Holds back at most the longest secret's length minus one byte.
class SecretStream {
public:
    /// Mask `secrets` (empty ones are ignored).
    explicit SecretStream(std::vector<std::string> secrets);
    /// The masked text that is final after `chunk` (a possible secret's beginning waits).
    std::string feed(std::string_view chunk);
    /// The rest, at the end of the stream.
    std::string finish();

private:
    std::string take(bool at_end);
    std::vector<std::string> m_secrets; ///< longest first
    bool m_first[256] = {};             ///< bytes a secret starts with
    std::string m_pending;
};

} // namespace perfsweep::adapters
