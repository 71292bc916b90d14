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

} // namespace perfsweep::adapters
