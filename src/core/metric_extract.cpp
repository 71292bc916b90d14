#include "core/metric_extract.hpp"

#include "core/model.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <cctype>
#include <regex>

namespace perfsweep::core {

namespace {
constexpr std::size_t k_max_searched = 1024; ///< characters of a line segment the regex sees
constexpr std::size_t k_max_values = 10000;  ///< values of one run kept (and stored)
constexpr std::string_view k_regex_special = "\\^$.|?*+()[]{}"; ///< ECMAScript metacharacters

/// Whether `regex` has a '|' outside every group and bracket expression (an alternation of the
/// whole pattern).
bool top_level_alternation(std::string_view regex) {
    int depth = 0;
    bool in_class = false;
    for (std::size_t i = 0; i < regex.size(); ++i) {
        const char c = regex[i];
        if (c == '\\')
            ++i; // an escaped character is never syntax
        else if (in_class)
            in_class = c != ']';
        else if (c == '[')
            in_class = true; // ECMAScript: "[]" is empty, a ']' always ends the class
        else if (c == '(')
            ++depth;
        else if (c == ')')
            depth = depth > 0 ? depth - 1 : 0;
        else if (c == '|' && depth == 0)
            return true;
    }
    return false;
}
/// Why the number `value` does not end where the match ends (`rest` is the text after it), ""
/// when it does: a digit group separator (1,234.5  1_000), a radix prefix (0x1F 0b101), a second
/// decimal point (1.2.3) or hex digits glued on (12a3) mean the number is not what the benchmark
/// printed. A unit glued to the number (12.5ms, 3GHz) ends at a boundary.
std::string run_on_problem(const std::string& value, std::string_view rest) {
    if (rest.empty())
        return "";
    auto digit = [](char c) { return c >= '0' && c <= '9'; };
    auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
    const char c = rest[0];
    bool bad =
        digit(c) || c == '_' || ((c == ',' || c == '.') && rest.size() > 1 && digit(rest[1]));
    if (!bad && alpha(c)) {
        std::size_t n = 0;
        while (n < rest.size() && (alpha(rest[n]) || digit(rest[n]) || rest[n] == '_'))
            ++n;
        const std::string_view word = rest.substr(0, n);
        std::string_view digits = value;
        if (!digits.empty() && (digits[0] == '+' || digits[0] == '-'))
            digits.remove_prefix(1);
        const bool radix =
            digits == "0" && std::string_view("xXbBoO").find(c) != std::string_view::npos;
        // Hex digits with a digit among them go on with the number (12a3); letters that cannot
        // be digits make a word of their own (12.5ms, 3GHz, 25F).
        const bool hexish =
            word.find_first_not_of("0123456789abcdefABCDEF_") == std::string_view::npos &&
            word.find_first_of("0123456789_") != std::string_view::npos;
        bad = radix || hexish;
    }
    if (!bad)
        return "";
    std::size_t n = 0;
    while (n < rest.size() && n < 40 && rest[n] != ' ' && rest[n] != '\t')
        ++n;
    return "not the whole number: the output goes on with '" + std::string(rest.substr(0, n)) +
           "' (digit group separators, hexadecimal and other forms are not read; print a plain "
           "decimal number such as 1234.5, or set --metric-regex)";
}
} // namespace

std::string escape_regex(std::string_view text) {
    std::string out;
    for (char c : text) {
        if (k_regex_special.find(c) != std::string_view::npos)
            out += '\\';
        out += c;
    }
    return out;
}

std::string default_metric_regex(std::string_view metric) {
    return escape_regex(metric) +
           R"(:\s*([-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?|[-+]?(?:nan|NaN|inf|Inf|INF|NAN)\b|\S*))";
}

std::string required_literal(std::string_view regex) {
    if (top_level_alternation(regex))
        return {}; // either side may match: no single text is required
    std::string lit;
    std::size_t i = 0;
    while (i < regex.size()) {
        const char c = regex[i];
        if (c == '\\') {
            // An escaped punctuation character is that character; \d \s \w \b ... are classes.
            if (i + 1 >= regex.size() ||
                std::isalnum(static_cast<unsigned char>(regex[i + 1])) != 0)
                break;
            lit += regex[i + 1];
            i += 2;
        } else if (k_regex_special.find(c) == std::string_view::npos &&
                   static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f) {
            lit += c;
            ++i;
        } else
            break;
    }
    // A quantifier that allows zero repeats makes the last character optional.
    if (!lit.empty() && i < regex.size() && (regex[i] == '?' || regex[i] == '*' || regex[i] == '{'))
        lit.pop_back();
    return lit;
}

struct MetricStream::State {
    static constexpr std::size_t k_keep = 64 * 1024; ///< bytes kept of one segment

    std::regex re;
    std::string regex;
    std::string literal;
    std::string segment;     ///< the current segment's first k_keep bytes
    std::size_t line_no = 1; ///< 1-based line of the current segment
    Extraction ex;
    bool failed = false;

    void end_segment() {
        if (!failed)
            search();
        segment.clear();
    }

    void search() {
        std::string clean;
        std::string_view text = segment;
        if (segment.find('\x1b') != std::string::npos) {
            clean = util::strip_ansi(segment);
            text = clean;
        }
        text = text.substr(0, k_max_searched);
        if (!literal.empty() && text.find(literal) == std::string_view::npos)
            return;
        const std::string line(text);
        for (auto it = std::sregex_iterator(line.begin(), line.end(), re);
             it != std::sregex_iterator(); ++it) {
            const std::string value = (*it)[1].str();
            auto v = util::parse_double(value);
            std::string problem = v ? core::metric_value_problem(*v) : "not a finite number";
            const auto rest = std::string_view(line).substr(
                static_cast<std::size_t>((*it)[1].second - line.begin()));
            if (problem.empty())
                problem = run_on_problem(value, rest);
            if (!problem.empty()) {
                ex.values.clear();
                ex.reason = "line " + std::to_string(line_no) + ": metric value '" +
                            value.substr(0, 40) + "' is " + problem;
                failed = true;
                return;
            }
            if (ex.values.size() >= k_max_values) {
                ex.values.clear();
                ex.reason = "line " + std::to_string(line_no) + ": more than " +
                            std::to_string(k_max_values) +
                            " values of the metric in one run; print it once per run (or a few "
                            "times), or narrow --metric-regex to the line that counts";
                failed = true;
                return;
            }
            ex.values.push_back(*v);
        }
    }
};

MetricStream::MetricStream(const std::string& regex) : m_state(std::make_unique<State>()) {
    try {
        m_state->re = std::regex(regex, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
        throw_usage("--metric-regex '" + regex + "' is not a valid regular expression (" +
                    e.what() + ")");
    }
    if (m_state->re.mark_count() != 1)
        throw_usage("--metric-regex '" + regex + "' must have exactly one capture group, it has " +
                    std::to_string(m_state->re.mark_count()));
    m_state->regex = regex;
    m_state->literal = required_literal(regex);
}

MetricStream::~MetricStream() = default;
MetricStream::MetricStream(MetricStream&&) noexcept = default;
MetricStream& MetricStream::operator=(MetricStream&&) noexcept = default;

void MetricStream::feed(std::string_view chunk) {
    auto& st = *m_state;
    // Positions of the next '\n' and '\r', each searched once per occurrence (a chunk of many
    // short lines must not be rescanned for a '\r' it does not hold).
    std::size_t pos = 0, nl = chunk.find('\n'), cr = chunk.find('\r');
    while (pos < chunk.size()) {
        if (nl != std::string_view::npos && nl < pos)
            nl = chunk.find('\n', pos);
        if (cr != std::string_view::npos && cr < pos)
            cr = chunk.find('\r', pos);
        const std::size_t end = std::min(std::min(nl, cr), chunk.size());
        if (st.segment.size() < State::k_keep)
            st.segment.append(
                chunk.substr(pos, std::min(end - pos, State::k_keep - st.segment.size())));
        if (end == chunk.size())
            return;
        st.end_segment();
        if (chunk[end] == '\n')
            ++st.line_no;
        pos = end + 1;
    }
}

Extraction MetricStream::finish() {
    auto& st = *m_state;
    st.end_segment();
    Extraction out = std::move(st.ex);
    if (out.values.empty() && out.reason.empty())
        out.reason = "no line of the output matches " + st.regex;
    st.ex = {};
    st.failed = false;
    st.line_no = 1;
    return out;
}

Extraction extract_metric(std::string_view output, const std::string& regex) {
    MetricStream stream(regex);
    stream.feed(output);
    return stream.finish();
}

} // namespace perfsweep::core
