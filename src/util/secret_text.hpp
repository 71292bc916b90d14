#pragma once
// Text that came from a server (an API error message, a reply excerpt, a URL it returned) made
// safe to print, store or post: no secret, no token-shaped word, one line, bounded length.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace perfsweep::util {

/// Longest server-provided text kept in a message (bytes, before the note on what was cut).
inline constexpr std::size_t k_max_server_text = 512;

/// `text` with every value of `secrets` (those of 4+ bytes) replaced by "***", then every
/// token-shaped word (GitHub's `ghp_`/`gho_`/`ghu_`/`ghs_`/`ghr_`/`github_pat_` tokens, the
/// credential after `Bearer `, `Basic ` or `token `, the password of a URL's `user:password@`)
/// replaced by "***", invalid UTF-8 and control characters (CR, LF, tab included) by a space, and
/// everything after `max_bytes` cut at a character boundary with a note giving the full size.
std::string scrub_server_text(std::string_view text, const std::vector<std::string>& secrets,
                              std::size_t max_bytes = k_max_server_text);

} // namespace perfsweep::util
