#include "core/metric_extract.hpp"

#include "core/model.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

#include <regex>

namespace perfsweep::core {

namespace {
constexpr std::size_t k_max_searched = 1024; ///< characters of a line segment the regex sees
} // namespace

std::string default_metric_regex(std::string_view metric) {
    std::string escaped;
    for (char c : metric) {
        if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos)
            escaped += '\\';
        escaped += c;
    }
    return escaped +
           R"(:\s*([-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?|[-+]?(?:nan|NaN|inf|Inf|INF|NAN)\b|\S*))";
}

Extraction extract_metric(std::string_view output, const std::string& regex) {
    std::regex re;
    try {
        re = std::regex(regex, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
        throw_usage("--metric-regex '" + regex + "' is not a valid regular expression (" +
                    e.what() + ")");
    }
    if (re.mark_count() != 1)
        throw_usage("--metric-regex '" + regex + "' must have exactly one capture group, it has " +
                    std::to_string(re.mark_count()));
    Extraction ex;
    const std::string clean = util::strip_ansi(output);
    size_t line_no = 0, start = 0;
    while (start <= clean.size()) {
        size_t end = clean.find('\n', start);
        if (end == std::string::npos)
            end = clean.size();
        ++line_no;
        // A carriage return starts the line over (progress bars); std::regex recurses once per
        // character a match consumes, so only a bounded prefix of each segment is searched (a
        // 4,000-character token after "METRIC:" overflowed the stack under ASan).
        for (const auto& segment : util::split(clean.substr(start, end - start), '\r')) {
            const std::string line = segment.substr(0, k_max_searched);
            for (auto it = std::sregex_iterator(line.begin(), line.end(), re);
                 it != std::sregex_iterator(); ++it) {
                const std::string text = (*it)[1].str();
                auto v = util::parse_double(text);
                const std::string problem =
                    v ? core::metric_value_problem(*v) : "not a finite number";
                if (!problem.empty()) {
                    ex.values.clear();
                    ex.reason = "line " + std::to_string(line_no) + ": metric value '" +
                                text.substr(0, 40) + "' is " + problem;
                    return ex;
                }
                ex.values.push_back(*v);
            }
        }
        if (end == clean.size())
            break;
        start = end + 1;
    }
    if (ex.values.empty())
        ex.reason = "no line of the output matches " + regex;
    return ex;
}

} // namespace perfsweep::core
