#pragma once
// The one way src/adapters parses JSON text: RapidJSON with a nesting limit. RapidJSON's reader
// recurses once per level of arrays and objects (and so would any walk over the DOM): without a
// limit, 150,000 '[' overflow the stack. Every parse of src/ goes through parse_json
// (src/layering/check_layering.cmake fails the build on a direct Parse call elsewhere).

#include <rapidjson/document.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfsweep::adapters {

/// Deepest nesting of arrays and objects accepted; perfsweep's files and GitHub's replies need
/// fewer than 10 levels.
inline constexpr unsigned k_max_json_depth = 128;

/// Why a text was not accepted as JSON.
struct JsonParseError {
    std::string message;    ///< RapidJSON's description, or the nesting limit with line/column
    std::size_t offset = 0; ///< byte offset of the problem in the parsed text
    std::size_t line = 1;   ///< 1-based line of `offset`
    bool too_deep = false;  ///< nesting beyond k_max_json_depth (not a cut-short document)
};

/// Whether parse_json checks that strings are valid UTF-8.
enum class JsonUtf8 { trust, validate };

/// How parse_json converts numbers: RapidJSON's own conversion (may be an ulp off), or from the
/// text with std::from_chars (correctly rounded: a double written in its shortest form reads back
/// bit for bit; an integer that fits is an Int64; beyond a double's range is +-infinity).
enum class JsonNumbers { rapidjson, exact };

/// Parses `text` into `doc` (which is reset first); nullopt on success. Nesting deeper than
/// k_max_json_depth stops the parser at that level and is an error (too_deep).
std::optional<JsonParseError> parse_json(rapidjson::Document& doc, std::string_view text,
                                         JsonUtf8 utf8 = JsonUtf8::trust,
                                         JsonNumbers numbers = JsonNumbers::rapidjson);

/// A few string members of one JSON object, read without building a document (a quick look at a
/// record's identity): for each of `fields`, a top-level member ("name") or a member of a
/// top-level object ("outer.inner"), its value, or nullopt when absent (or its object is null).
/// nullopt overall when `text` is anything but one well-formed object (UTF-8 checked, nesting
/// within k_max_json_depth), or a named member is there twice or is not a string, or the outer
/// member of a named one is neither an object nor null: parse_json then tells the whole story.
std::optional<std::vector<std::optional<std::string>>>
read_string_fields(std::string_view text, const std::vector<std::string_view>& fields);

} // namespace perfsweep::adapters
