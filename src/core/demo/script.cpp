#include "core/demo/script.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace perfsweep::core {

namespace {

util::UnixSeconds at(const char* iso) {
    return *util::parse_iso8601(iso);
}

// A stateless 64-bit mix (splitmix64) for deterministic noise.
std::uint64_t mix(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

std::uint64_t hash_text(const std::string& s) {
    std::uint64_t h = 1469598103934665603ULL;
    for (unsigned char c : s)
        h = (h ^ c) * 1099511628211ULL;
    return h;
}

double normal_from(std::uint64_t seed) {
    const double u1 = (static_cast<double>(mix(seed) >> 11) + 0.5) / 9007199254740992.0;
    const double u2 = (static_cast<double>(mix(seed ^ 0x5555) >> 11) + 0.5) / 9007199254740992.0;
    return std::sqrt(-2 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

std::string value_of(const std::map<std::string, std::string>& files, const std::string& file,
                     const std::string& key) {
    auto it = files.find(file);
    if (it == files.end())
        return {};
    const std::string& text = it->second;
    auto pos = text.find(key + " = ");
    if (pos == std::string::npos)
        return {};
    auto end = text.find('\n', pos);
    return text.substr(pos + key.size() + 3,
                       end == std::string::npos ? std::string::npos : end - pos - key.size() - 3);
}

} // namespace

DemoScript demo_script() {
    DemoScript s;
    const std::string dev_a = "Ada Lovelace <ada@example.com>";
    const std::string dev_b = "Grace Hopper <grace@example.com>";
    const std::string dev_c = "Alan Turing <alan@example.com>";
    s.initial_files["framework"] = {{"layout.cfg", "layout = soa\n"},
                                    {"api.txt", "lattice api v1\n"}};
    s.initial_files["compiler"] = {{"vector.cfg", "vector_width = 8\n"},
                                   {"build.cfg", "status = ok\n"},
                                   {"passes.txt", "pass list v1\n"}};

    // Background commits: framework every 5 h, compiler every 4 h, over 2023-08-14 .. 08-24.
    const auto start = at("2023-08-14T01:10:00Z");
    const auto end = at("2023-08-24T03:00:00Z");
    std::vector<DemoCommit> all;
    int n = 0;
    for (auto t = start; t < end; t += 5 * 3600 + 7 * 60, ++n) {
        DemoCommit c{"framework",
                     t,
                     DemoCommit::Kind::direct,
                     "",
                     n % 2 ? dev_a : dev_c,
                     "api: tidy lattice helpers (" + std::to_string(n) + ")",
                     {{"api.txt", "lattice api v1 rev " + std::to_string(n) + "\n"}}};
        all.push_back(c);
    }
    n = 0;
    for (auto t = start + 80 * 60; t < end; t += 4 * 3600 + 3 * 60, ++n) {
        DemoCommit c{"compiler",
                     t,
                     DemoCommit::Kind::direct,
                     "",
                     n % 3 ? dev_b : dev_c,
                     "passes: update pass pipeline (" + std::to_string(n) + ")",
                     {{"passes.txt", "pass list v1 rev " + std::to_string(n) + "\n"}}};
        all.push_back(c);
    }
    // The 2 % framework regression.
    all.push_back({"framework",
                   at("2023-08-17T10:20:00Z"),
                   DemoCommit::Kind::direct,
                   "",
                   dev_a,
                   "lbm: store populations as array-of-structs",
                   {{"layout.cfg", "layout = aos\n"}}});
    // A harmless framework PR, committed hours before its merge.
    all.push_back({"framework",
                   at("2023-08-20T07:00:00Z"),
                   DemoCommit::Kind::pr_commit,
                   "pr/boundary-docs",
                   dev_c,
                   "docs: explain periodic boundaries",
                   {{"docs.txt", "periodic boundaries wrap around\n"}}});
    all.push_back({"framework",
                   at("2023-08-20T13:30:00Z"),
                   DemoCommit::Kind::merge,
                   "pr/boundary-docs",
                   dev_c,
                   "Merge pull request #812 from dev/boundary-docs",
                   {}});
    // Two commits whose build fails, then the fix.
    all.push_back({"compiler",
                   at("2023-08-21T06:00:00Z"),
                   DemoCommit::Kind::direct,
                   "",
                   dev_b,
                   "codegen: start scheduler refactor (WIP)",
                   {{"build.cfg", "status = BROKEN\n"}}});
    all.push_back({"compiler",
                   at("2023-08-21T10:05:00Z"),
                   DemoCommit::Kind::direct,
                   "",
                   dev_b,
                   "codegen: finish scheduler refactor",
                   {{"build.cfg", "status = ok\n"}}});
    // The 7 % culprit: a PR commit at 09:10 merged at 14:40.
    all.push_back({"compiler",
                   at("2023-08-22T09:10:00Z"),
                   DemoCommit::Kind::pr_commit,
                   "pr/vector-width",
                   dev_b,
                   "codegen: halve vector width to cut register pressure",
                   {{"vector.cfg", "vector_width = 4\n"}}});
    all.push_back({"compiler",
                   at("2023-08-22T14:40:00Z"),
                   DemoCommit::Kind::merge,
                   "pr/vector-width",
                   dev_b,
                   "Merge pull request #4711 from dev/vector-width",
                   {}});

    // Creation order: by time, so each repo's branches grow in time order.
    std::stable_sort(all.begin(), all.end(),
                     [](const DemoCommit& a, const DemoCommit& b) { return a.time < b.time; });
    // Background commits must not collide with the scripted ones in the same minute.
    s.commits = std::move(all);
    for (int d = 15; d <= 24; ++d)
        s.nightly_dates.push_back("2023-08-" + std::to_string(d));
    s.nightly_build_offset = 4 * 3600; // nightly D holds main as of D 04:00Z
    s.broken_nightly = "2023-08-19";
    return s;
}

double demo_mlups(const std::map<std::string, std::string>& framework,
                  const std::map<std::string, std::string>& compiler, const std::string& label,
                  int repeat) {
    const std::string layout = value_of(framework, "layout.cfg", "layout");
    const std::string width = value_of(compiler, "vector.cfg", "vector_width");
    if (layout.empty() || width.empty())
        return -1;
    double v = 577.3;
    if (layout == "aos")
        v *= 0.98;
    if (width == "4")
        v *= 0.93;
    const std::uint64_t seed = hash_text(label) ^ mix(static_cast<std::uint64_t>(repeat) + 17);
    return v * (1 + 0.0015 * normal_from(seed));
}

bool demo_build_fails(const std::map<std::string, std::string>& compiler) {
    return value_of(compiler, "build.cfg", "status") == "BROKEN";
}

} // namespace perfsweep::core
