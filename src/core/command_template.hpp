#pragma once
// The user's benchmark command as a template: split into argv once, then placeholders are filled
// inside each word. No shell is involved; substituted values are never re-split (pure).

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace perfsweep::core {

/// A command split into words. Words may contain placeholders such as {date} or {commit:XLA}.
struct CommandTemplate {
    std::string source;              ///< the text as the user wrote it
    std::vector<std::string> words;  ///< argv words before substitution
    std::vector<std::string> fields; ///< every placeholder used, e.g. "date", "commit:XLA"
};

/// Split `text` into words with POSIX-shell-like quoting for the template itself: blanks separate
/// words, '...' is literal, "..." allows \" \\ \$ \` escapes, a backslash outside quotes escapes
/// the next character. No expansion of any kind happens. `where` names the flag for messages.
/// Throws a usage error for an empty command, an unclosed quote or an unknown placeholder.
CommandTemplate parse_command(std::string_view text, std::string_view where);

/// True when `name` is a placeholder perfsweep knows: date, image, time, gpu, repeat, workdir,
/// label, yyyy, mm, dd, output_dir (hourly: the state's output directory), build_dir and
/// build_mode (hourly: the state's kept-build directory, "build" or "restore"), commit:NAME,
/// path:NAME.
bool is_known_placeholder(std::string_view name);

/// Fill the placeholders of `text` (one word) from `values` (name → value). "{{" and "}}" are
/// literal braces; "${...}" is left alone for shells the user writes; other text is copied.
/// {yyyy} {mm} {dd} come from values["date"]. Throws a usage error naming `where` when a
/// placeholder is unknown or has no value for this point.
std::string substitute_word(std::string_view text, const std::map<std::string, std::string>& values,
                            std::string_view where);

/// The image of nightly `date` (YYYY-MM-DD): `image` with {date}, {yyyy}, {mm} and {dd} filled.
/// Throws a usage error naming --image for another placeholder.
std::string expand_image(std::string_view image, const std::string& date);

/// Substitute every word of `cmd`; the result has exactly as many words as the template.
std::vector<std::string> substitute(const CommandTemplate& cmd,
                                    const std::map<std::string, std::string>& values);

/// The environment a run exports for `values`: PERFSWEEP_DATE, PERFSWEEP_IMAGE,
/// PERFSWEEP_COMMIT_<NAME>, PERFSWEEP_PATH_<NAME>, ... (NAME upper-cased, other characters '_').
std::map<std::string, std::string>
placeholder_environment(const std::map<std::string, std::string>& values);

} // namespace perfsweep::core
