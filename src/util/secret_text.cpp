#include "util/secret_text.hpp"

#include "util/strings.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace perfsweep::util {
namespace {

/// A byte that may be part of a credential (tokens, base64, URL-safe base64).
bool credential_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' ||
           c == '~' || c == '+' || c == '/' || c == '=';
}

/// End of the run of credential bytes starting at `i`.
std::size_t credential_end(std::string_view s, std::size_t i) {
    while (i < s.size() && credential_char(s[i]))
        ++i;
    return i;
}

bool starts_with_nocase(std::string_view s, std::size_t i, std::string_view word) {
    if (s.size() - i < word.size())
        return false;
    for (std::size_t k = 0; k < word.size(); ++k)
        if (std::tolower(static_cast<unsigned char>(s[i + k])) != word[k])
            return false;
    return true;
}

/// Length of a token-shaped word at `i` (0 if none): a GitHub token by its prefix, or the
/// credential after an authorization scheme ("Bearer X", "Basic X", "token X").
std::pair<std::size_t, std::size_t> token_at(std::string_view s, std::size_t i) {
    static constexpr std::array<std::string_view, 6> prefixes = {"ghp_", "gho_", "ghu_",
                                                                 "ghs_", "ghr_", "github_pat_"};
    for (auto p : prefixes)
        if (s.compare(i, p.size(), p) == 0) {
            const auto end = credential_end(s, i);
            if (end - i >= p.size() + 16)
                return {i, end};
        }
    for (std::string_view scheme : {"bearer ", "basic ", "token "}) {
        if (!starts_with_nocase(s, i, scheme))
            continue;
        std::size_t k = i + scheme.size();
        while (k < s.size() && s[k] == ' ')
            ++k;
        const auto end = credential_end(s, k);
        const bool digit =
            std::any_of(s.begin() + static_cast<long>(k), s.begin() + static_cast<long>(end),
                        [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
        if (end - k >= 12 && digit)
            return {k, end};
    }
    return {0, 0};
}

/// `s` with token-shaped words and URL passwords replaced by "***".
std::string mask_token_words(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
        const bool word_start = i == 0 || !credential_char(s[i - 1]);
        if (word_start) {
            if (const auto [b, e] = token_at(s, i); e > b) {
                out.append(s.substr(i, b - i));
                out += "***";
                i = e;
                continue;
            }
        }
        if (s.compare(i, 3, "://") == 0) {
            // scheme://user:password@host: the password goes.
            std::size_t at = i + 3;
            while (at < s.size() && s[at] != '@' && s[at] != '/' && s[at] != ' ')
                ++at;
            const auto colon = s.find(':', i + 3);
            if (at < s.size() && s[at] == '@' && colon < at) {
                out.append(s.substr(i, colon + 1 - i));
                out += "***";
                i = at;
                continue;
            }
        }
        out += s[i++];
    }
    return out;
}

} // namespace

std::string scrub_server_text(std::string_view text, const std::vector<std::string>& secrets,
                              std::size_t max_bytes) {
    std::string s(text);
    std::vector<std::string> sorted;
    for (const auto& v : secrets)
        if (v.size() >= 4)
            sorted.push_back(v);
    // Longest first, so a secret that contains another is masked whole.
    std::stable_sort(sorted.begin(), sorted.end(), [](const std::string& a, const std::string& b) {
        return a.size() > b.size();
    });
    for (const auto& v : sorted)
        s = replace_all(std::move(s), v, "***");
    s = sanitize_utf8(s);
    for (auto& c : s)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            c = ' ';
    s = mask_token_words(s);
    if (s.size() <= max_bytes)
        return s;
    std::size_t cut = max_bytes;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80)
        --cut; // never inside a UTF-8 sequence
    return s.substr(0, cut) + " ... (cut; " + std::to_string(s.size()) + " bytes in all)";
}

} // namespace perfsweep::util
