#include "core/build_store.hpp"

#include "core/journal.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <cstdint>

namespace perfsweep::core {

namespace {

constexpr std::string_view k_header = "perfsweep-builds\t1";

} // namespace

std::string build_key(std::string_view recipe, const std::map<std::string, std::string>& commits) {
    std::string k = "recipe " + std::string(recipe);
    for (const auto& [repo, sha] : commits)
        k += "\ncommit " + repo + " " + sha;
    return k;
}

std::string build_entry(std::string_view key) {
    // Two 64-bit FNV-1a hashes from different bases: 16 hex digits.
    static const char* const k_hex = "0123456789abcdef";
    std::string out;
    for (const std::uint64_t h : {util::fnv1a64(key), util::fnv1a64(key, 0x84222325cbf29ce4ull)})
        for (int i = 0; i < 8; ++i)
            out += k_hex[(h >> (60 - 4 * i)) & 0xf];
    return out;
}

const KeptBuild* BuildIndex::find(std::string_view key) const {
    for (const auto& b : builds)
        if (b.key == key)
            return &b;
    return nullptr;
}

void BuildIndex::forget(std::string_view key) {
    const auto entry = build_entry(key);
    std::erase_if(builds, [&](const KeptBuild& b) { return b.entry == entry || b.key == key; });
}

void BuildIndex::touch(std::string_view key) {
    long latest = 0;
    for (const auto& b : builds)
        latest = std::max(latest, b.used);
    forget(key);
    builds.push_back({build_entry(key), latest + 1, std::string(key)});
}

std::vector<std::string> BuildIndex::evict(std::size_t keep) {
    std::vector<std::string> gone;
    std::sort(builds.begin(), builds.end(),
              [](const KeptBuild& a, const KeptBuild& b) { return a.used > b.used; });
    while (builds.size() > keep) {
        gone.push_back(builds.back().entry);
        builds.pop_back();
    }
    return gone;
}

std::string format_build_index(const BuildIndex& index) {
    std::string out = std::string(k_header) + "\n";
    for (const auto& b : index.builds)
        out += b.entry + "\t" + std::to_string(b.used) + "\t" + journal_escape(b.key) + "\n";
    return out;
}

BuildIndex parse_build_index(std::string_view text, const std::string& where) {
    BuildIndex index;
    const auto lines = util::split(std::string(text), '\n');
    for (std::size_t n = 0; n < lines.size(); ++n) {
        const auto& line = lines[n];
        const auto at = where + ":" + std::to_string(n + 1) + ": ";
        if (n == 0) {
            if (line != k_header)
                throw_usage(at + "expected the header 'perfsweep-builds<TAB>1'");
            continue;
        }
        if (line.empty() && n + 1 == lines.size())
            break;
        const auto f = util::split(line, '\t');
        KeptBuild b;
        if (f.size() != 3 || f[0].size() != 16 ||
            f[0].find_first_not_of("0123456789abcdef") != std::string::npos)
            throw_usage(at + "expected ENTRY<TAB>USED<TAB>KEY with a 16-hex-digit entry");
        const auto used = util::parse_int(f[1]);
        if (!used || *used < 0)
            throw_usage(at + "field 2 (used): expected a non-negative number, found '" + f[1] +
                        "'");
        std::string bad;
        if (!journal_unescape(f[2], b.key, bad) || build_entry(b.key) != f[0])
            throw_usage(at + "field 3 (key): it does not match its entry " + f[0]);
        b.entry = f[0];
        b.used = *used;
        index.builds.push_back(std::move(b));
    }
    return index;
}

} // namespace perfsweep::core
