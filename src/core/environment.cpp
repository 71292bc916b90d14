#include "core/environment.hpp"

#include "util/strings.hpp"

#include <algorithm>
#include <cctype>
#include <set>

namespace perfsweep::core {

namespace {

constexpr util::EnumName<Cause> k_cause_names[] = {
    {Cause::environment, "environment"}, {Cause::source, "source"}, {Cause::both, "both"},
    {Cause::unknown, "unknown"},         {Cause::none, "none"},
};

bool key_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '_' || c == '-' ||
           c == '/';
}

bool image_metadata(std::string_view key) {
    return key.starts_with("image.") || key.starts_with("label.");
}

bool same_sha(const std::string& a, const std::string& b) {
    if (a == b)
        return true;
    const auto n = std::min(a.size(), b.size());
    return n >= 7 && a.compare(0, n, b, 0, n) == 0;
}

std::string value_text(const std::string& v) {
    return v.empty() ? "absent" : v;
}

} // namespace

std::string check_environment_entry(std::string_view key, std::string_view value) {
    if (key.empty())
        return "empty key";
    if (key.size() > k_env_key_max)
        return "key longer than " + std::to_string(k_env_key_max) + " characters";
    if (std::isalnum(static_cast<unsigned char>(key[0])) == 0)
        return "key does not start with a letter or digit";
    for (char c : key)
        if (!key_char(c))
            return "key has characters outside [A-Za-z0-9._/-]";
    if (value.size() > k_env_value_max)
        return "value longer than " + std::to_string(k_env_value_max) + " bytes";
    for (char c : value) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u > 0x7e)
            return "value has control or non-ASCII characters";
    }
    return {};
}

EnvironmentProbe parse_environment_probe(std::string_view text, std::string_view where) {
    EnvironmentProbe out;
    std::size_t line_no = 0;
    std::size_t pos = 0;
    // Skip what precedes the probe's own start line (line numbers stay those of the log).
    for (std::size_t at = 0, n = 1; at < text.size(); ++n) {
        std::size_t nl = text.find('\n', at);
        if (nl == std::string_view::npos)
            nl = text.size();
        if (util::trim(text.substr(at, nl - at)) == k_env_probe_start) {
            pos = nl + 1;
            line_no = n;
        }
        at = nl + 1;
    }
    while (pos < text.size()) {
        std::size_t nl = text.find('\n', pos);
        if (nl == std::string_view::npos)
            nl = text.size();
        std::string_view line = text.substr(pos, nl - pos);
        pos = nl + 1;
        ++line_no;
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        const std::string_view t = util::trim(line);
        if (t.empty() || t[0] == '#')
            continue;
        auto reject = [&](const std::string& why) {
            out.warnings.push_back(std::string(where) + ":" + std::to_string(line_no) +
                                   ": rejected (" + why + ")");
        };
        const auto eq = t.find('=');
        if (eq == std::string_view::npos) {
            reject("expected key=value");
            continue;
        }
        const std::string_view key = util::trim(t.substr(0, eq));
        const std::string_view value = util::trim(t.substr(eq + 1));
        if (auto why = check_environment_entry(key, value); !why.empty()) {
            reject(why);
            continue;
        }
        if (out.entries.count(std::string(key))) {
            reject("repeated key");
            continue;
        }
        if (out.entries.size() >= k_env_entries_max) {
            reject("more than " + std::to_string(k_env_entries_max) + " entries");
            continue;
        }
        out.entries.emplace(std::string(key), std::string(value));
    }
    return out;
}

std::string environment_component_name(std::string_view key) {
    static const std::map<std::string, std::string, std::less<>> names = {
        {"cuda", "CUDA runtime"},
        {"cudart", "CUDA runtime library"},
        {"cudnn", "cuDNN"},
        {"nccl", "NCCL"},
        {"cublas", "cuBLAS"},
        {"driver", "driver"},
        {"gpu", "GPU model"},
        {"python", "Python"},
        {"jax", "jax"},
        {"jaxlib", "jaxlib"},
        {"image.digest", "image digest"},
    };
    auto it = names.find(key);
    return it == names.end() ? std::string(key) : it->second;
}

std::vector<EnvironmentChange> environment_diff(const std::map<std::string, std::string>& good,
                                                const std::map<std::string, std::string>& bad) {
    std::set<std::string> keys;
    for (const auto& [k, v] : good)
        keys.insert(k);
    for (const auto& [k, v] : bad)
        keys.insert(k);
    std::vector<EnvironmentChange> out;
    for (const auto& k : keys) {
        if (k.starts_with("commit."))
            continue;
        const auto g = good.find(k);
        const auto b = bad.find(k);
        const std::string before = g == good.end() ? std::string() : g->second;
        const std::string after = b == bad.end() ? std::string() : b->second;
        if (before != after)
            out.push_back({k, before, after});
    }
    return out;
}

BuildFingerprint build_fingerprint(const std::vector<Measurement>& records) {
    BuildFingerprint fp;
    std::string digest;
    for (auto it = records.rbegin(); it != records.rend(); ++it) {
        if (fp.commits.empty() && !it->commits.empty())
            fp.commits = it->commits;
        if (fp.environment.empty() && !it->environment.empty())
            fp.environment = it->environment;
        if (digest.empty())
            digest = it->digest;
    }
    if (fp.commits.empty())
        for (const auto& [k, v] : fp.environment)
            if (k.starts_with("commit.") && k.size() > 7)
                fp.commits[k.substr(7)] = v;
    if (!digest.empty() && !fp.environment.empty())
        fp.environment.emplace("image.digest", digest);
    return fp;
}

std::string_view to_string(Cause c) {
    return util::enum_name(k_cause_names, c, "unknown");
}

bool built_from_repo(std::string_view key, std::string_view repo) {
    if (repo.empty() || !key.starts_with(repo))
        return false;
    const auto rest = key.substr(repo.size());
    return rest.empty() || rest == "lib" || rest.starts_with("_");
}

Attribution attribute_change(const BuildFingerprint& good, const BuildFingerprint& bad) {
    Attribution a;
    a.commits_known = !good.commits.empty() && !bad.commits.empty();
    a.environment_known = !good.environment.empty() && !bad.environment.empty();
    if (a.environment_known)
        for (auto& c : environment_diff(good.environment, bad.environment)) {
            bool built = false;
            for (const auto* side : {&good.commits, &bad.commits})
                for (const auto& [repo, sha] : *side)
                    built = built || built_from_repo(c.component, repo);
            (built ? a.built_from_sources : a.diff).push_back(std::move(c));
        }
    if (a.commits_known) {
        std::set<std::string> repos;
        for (const auto& [r, s] : good.commits)
            repos.insert(r);
        for (const auto& [r, s] : bad.commits)
            repos.insert(r);
        for (const auto& r : repos) {
            const auto g = good.commits.find(r);
            const auto b = bad.commits.find(r);
            if (g == good.commits.end() || b == bad.commits.end() ||
                !same_sha(g->second, b->second))
                a.changed_repos.push_back(r);
        }
    }
    bool image_only = false;
    for (const auto& c : a.diff) {
        if (image_metadata(c.component))
            image_only = true;
        else
            a.components.push_back(c.component);
    }
    // A new image is what new sources make: its digest and labels explain a change only where
    // the sources did not change.
    if (a.components.empty() && image_only && a.changed_repos.empty())
        a.components.push_back("image");
    const bool env_changed = !a.components.empty();
    if (!a.commits_known)
        a.cause = Cause::unknown;
    else if (a.changed_repos.empty())
        a.cause = env_changed ? Cause::environment : Cause::none;
    else
        a.cause = env_changed ? Cause::both : Cause::source;
    return a;
}

Attribution attribute_boundary(const DailyResult& r, const Boundary& b) {
    static const std::vector<Measurement> none;
    auto records = [&](std::size_t i) -> const std::vector<Measurement>& {
        return i < r.measurements.size() ? r.measurements[i] : none;
    };
    return attribute_change(build_fingerprint(records(b.last_before)),
                            build_fingerprint(records(b.first_after)));
}

std::string describe_attribution(const Attribution& a) {
    // Probed components first; image metadata (digest, labels) only when nothing else differs.
    const bool image_only = a.components.size() == 1 && a.components[0] == "image";
    std::vector<std::string> parts;
    for (const auto& c : a.diff)
        if (image_only || !image_metadata(c.component))
            parts.push_back(environment_component_name(c.component) + " " + value_text(c.before) +
                            " → " + value_text(c.after));
    const std::string changed = parts.empty() ? std::string() : util::join(parts, ", ");
    switch (a.cause) {
    case Cause::environment:
        return "environmental: the source commits are identical and the environment changed (" +
               changed + ")";
    case Cause::both:
        return "sources (" + util::join(a.changed_repos, ", ") +
               ") and environment both changed (" + changed +
               "); the sources are narrowed inside the last good build's environment";
    case Cause::source:
        return a.environment_known ? "sources changed (" + util::join(a.changed_repos, ", ") +
                                         "); the recorded environment is identical" +
                                         (a.diff.empty() ? ""
                                                         : " apart from the image, which "
                                                           "follows its sources")
                                   : "sources changed (" + util::join(a.changed_repos, ", ") +
                                         "); the environment was not recorded on both sides";
    case Cause::unknown:
        if (!changed.empty())
            return "the environment changed (" + changed +
                   "); the source commits are unknown, so the cause is not attributed";
        return a.environment_known
                   ? "the recorded environment is identical; the source commits are unknown"
                   : "the source commits and the environment are unknown";
    case Cause::none:
        return a.environment_known
                   ? "neither the source commits nor the recorded environment differ"
                   : "the source commits are identical; the environment was not recorded";
    }
    return {};
}

} // namespace perfsweep::core
