#include "adapters/process/secrets.hpp"

#include "util/strings.hpp"

#include <algorithm>
#include <cctype>
#include <mutex>

extern char** environ;

namespace perfsweep::adapters {

namespace {

std::mutex g_secret_mutex;
std::set<std::string> g_secret_env = {"GITHUB_TOKEN", "GH_TOKEN", "PERFSWEEP_GIT_TOKEN",
                                      "ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN"};

std::set<std::string> g_secret_values;

} // namespace

void protect_secret_env(const std::string& name) {
    std::lock_guard<std::mutex> lock(g_secret_mutex);
    if (!name.empty())
        g_secret_env.insert(name);
}

void protect_secret_value(const std::string& value) {
    std::lock_guard<std::mutex> lock(g_secret_mutex);
    if (value.size() >= 4)
        g_secret_values.insert(value);
}

std::set<std::string> protected_env_names() {
    std::lock_guard<std::mutex> lock(g_secret_mutex);
    return g_secret_env;
}

bool secret_like_name(std::string_view name) {
    std::string up(name);
    for (auto& c : up)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    auto ends = [&](std::string_view s) {
        return up.size() >= s.size() && up.compare(up.size() - s.size(), s.size(), s) == 0;
    };
    return ends("TOKEN") || ends("SECRET") || ends("PASSWORD") || ends("_KEY");
}

std::vector<std::string> secret_values() {
    std::set<std::string> out;
    const auto names = protected_env_names();
    for (char** e = environ; e && *e; ++e) {
        const std::string_view kv = *e;
        const auto eq = kv.find('=');
        if (eq == std::string_view::npos)
            continue;
        const auto name = kv.substr(0, eq);
        const auto value = kv.substr(eq + 1);
        // A name that only looks secret needs a value that could not be a word or a number a
        // benchmark prints (masking "1234" would corrupt a metric).
        if ((names.count(std::string(name)) && value.size() >= 4) ||
            (secret_like_name(name) && value.size() >= 8))
            out.emplace(value);
    }
    {
        std::lock_guard<std::mutex> lock(g_secret_mutex);
        out.insert(g_secret_values.begin(), g_secret_values.end());
    }
    // Longest first, so a secret that contains another is masked whole.
    std::vector<std::string> v(out.begin(), out.end());
    std::stable_sort(v.begin(), v.end(), [](const std::string& a, const std::string& b) {
        return a.size() > b.size();
    });
    return v;
}

std::string mask_secrets(std::string text) {
    for (const auto& v : secret_values())
        text = util::replace_all(std::move(text), v, "***");
    return text;
}

SecretStream::SecretStream(std::vector<std::string> secrets) {
    for (auto& s : secrets)
        if (!s.empty()) {
            m_first[static_cast<unsigned char>(s[0])] = true;
            m_secrets.push_back(std::move(s));
        }
    std::stable_sort(
        m_secrets.begin(), m_secrets.end(),
        [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
}

std::string SecretStream::feed(std::string_view chunk) {
    if (m_secrets.empty())
        return std::string(chunk);
    m_pending.append(chunk);
    return take(false);
}

std::string SecretStream::finish() {
    return take(true);
}

std::string SecretStream::take(bool at_end) {
    std::string out;
    out.reserve(m_pending.size());
    const std::size_t n = m_pending.size();
    std::size_t i = 0;
    while (i < n) {
        std::size_t j = i;
        while (j < n && !m_first[static_cast<unsigned char>(m_pending[j])])
            ++j;
        out.append(m_pending, i, j - i);
        i = j;
        if (i == n)
            break;
        // A longer secret that the next chunk may complete wins over a shorter one here.
        bool partial = false;
        for (const auto& s : m_secrets)
            if (!at_end && n - i < s.size() && m_pending.compare(i, n - i, s, 0, n - i) == 0)
                partial = true;
        if (partial)
            break;
        bool matched = false;
        for (const auto& s : m_secrets)
            if (n - i >= s.size() && m_pending.compare(i, s.size(), s) == 0) {
                out += "***";
                i += s.size();
                matched = true;
                break;
            }
        if (matched)
            continue;
        out += m_pending[i++];
    }
    m_pending.erase(0, i);
    return out;
}

} // namespace perfsweep::adapters
