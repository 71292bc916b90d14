// Server-provided text (util/secret_text scrub_server_text): whatever a server sends, with a
// secret planted in it, the scrubbed text never holds the secret, is one line of valid UTF-8
// without control characters, stays within its bound, and scrubbing it again changes nothing.

#include "fuzz_support.hpp"
#include "util/secret_text.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <cctype>

using namespace perfsweep;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string input = fuzz::text_of(data, size);
    // First line: the secret (its letters, digits, '_' and '-': what tokens are made of); the
    // rest: the server's text, with the secret planted in the middle as well.
    auto [secret, text] = fuzz::split_first_line(input);
    secret.erase(std::remove_if(secret.begin(), secret.end(),
                                [](char c) {
                                    return !(std::isalnum(static_cast<unsigned char>(c)) ||
                                             c == '_' || c == '-');
                                }),
                 secret.end());
    if (secret.size() >= 4)
        text.insert(text.size() / 2, secret);
    const std::size_t max = 1 + size % 600;
    const auto out = util::scrub_server_text(text, {secret}, max);
    if (secret.size() >= 4)
        fuzz::check(out.find(secret) == std::string::npos, "the secret survived", out);
    fuzz::check(
        std::none_of(out.begin(), out.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }),
        "a control character survived", out);
    fuzz::check(!util::first_invalid_utf8(out), "invalid UTF-8 in the scrubbed text", out);
    const std::string note = " ... (cut; " + std::to_string(text.size() * 3) + " bytes in all)";
    fuzz::check(out.size() <= max + note.size(), "the scrubbed text exceeds its bound", out);
    if (out.find(" ... (cut; ") == std::string::npos)
        fuzz::check(util::scrub_server_text(out, {secret}, max) == out,
                    "scrubbing twice changed the text", out);
    return 0;
}
