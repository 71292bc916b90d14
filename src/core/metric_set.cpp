#include "core/metric_set.hpp"

#include "util/error.hpp"

#include <map>
#include <regex>

namespace perfsweep::core {

namespace {

constexpr std::string_view k_name_group = "(?<name>";
constexpr std::size_t k_set_line_keep = 64 * 1024; ///< bytes of one line kept for the name search
constexpr std::size_t k_set_searched = 1024;       ///< characters of a segment the name regex sees

/// Visits each character of regex[from, to) that stands outside an escape and a character class
/// as `visit(index, char)`; returns the first index where `visit` returns true, else npos.
template <typename Visit>
std::size_t scan_regex(std::string_view regex, std::size_t from, std::size_t to, Visit visit) {
    bool in_class = false;
    for (std::size_t i = from; i < to && i < regex.size(); ++i) {
        const char c = regex[i];
        if (c == '\\')
            ++i;
        else if (in_class)
            in_class = c != ']';
        else if (c == '[')
            in_class = true;
        else if (visit(i, c))
            return i;
    }
    return std::string_view::npos;
}

/// Position of the ')' closing the group that opens at `open`.
std::size_t name_group_end(std::string_view regex, std::size_t open) {
    int depth = 0;
    const std::size_t end = scan_regex(regex, open, regex.size(), [&](std::size_t, char c) {
        if (c == '(')
            ++depth;
        return c == ')' && --depth == 0;
    });
    if (end != std::string_view::npos)
        return end;
    throw_usage("--metric-regex '" + std::string(regex) +
                "': the (?<name>...) group is not closed; expected e.g. "
                "'(?<name>MLUPS_\\w+):\\s*([0-9.]+)'");
}

/// Capturing groups that open before `pos` (ECMAScript: '(' not followed by '?').
int capture_groups_before(std::string_view regex, std::size_t pos) {
    int n = 0;
    scan_regex(regex, 0, pos, [&](std::size_t i, char c) {
        if (c == '(' && (i + 1 >= regex.size() || regex[i + 1] != '?'))
            ++n;
        return false;
    });
    return n;
}

std::string without_colour_codes(std::string_view s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\x1b' && i + 1 < s.size() && s[i + 1] == '[') {
            std::size_t j = i + 2;
            while (j < s.size() && !(s[j] >= '@' && s[j] <= '~'))
                ++j;
            i = j;
            continue;
        }
        out += s[i];
    }
    return out;
}

} // namespace

bool has_name_group(std::string_view regex) {
    return regex.find(k_name_group) != std::string_view::npos;
}

std::string regex_for_name(std::string_view regex, std::string_view name) {
    const auto open = regex.find(k_name_group);
    if (open == std::string_view::npos)
        return std::string(regex);
    const auto close = name_group_end(regex, open);
    return std::string(regex.substr(0, open)) + "(?:" + escape_regex(name) + ")" +
           std::string(regex.substr(close + 1));
}

struct MetricSetStream::State {
    std::vector<std::string> order;            ///< metrics in order of first appearance
    std::map<std::string, MetricStream> named; ///< metric → its stream
    // name-group mode
    bool by_name = false;
    std::string regex;  ///< the user's regex
    std::regex finder;  ///< the regex with the name group as a plain group
    int name_index = 0; ///< which capture holds the name
    std::string line;   ///< the current line (at most k_set_line_keep bytes kept)

    void add(const std::string& name, const std::string& rx) {
        if (named.count(name))
            return;
        named.emplace(name, MetricStream(rx));
        order.push_back(name);
    }

    void find_names(std::string_view text) {
        std::size_t start = 0;
        while (start <= text.size()) {
            std::size_t end = text.find('\r', start);
            if (end == std::string_view::npos)
                end = text.size();
            std::string seg = without_colour_codes(text.substr(start, end - start));
            if (seg.size() > k_set_searched)
                seg.resize(k_set_searched);
            for (auto it = std::sregex_iterator(seg.begin(), seg.end(), finder);
                 it != std::sregex_iterator(); ++it) {
                const std::string name = (*it)[static_cast<std::size_t>(name_index)].str();
                if (!name.empty())
                    add(name, regex_for_name(regex, name));
            }
            start = end + 1;
        }
    }

    void end_line() {
        std::string_view text = line;
        if (!text.empty() && text.back() == '\n')
            text.remove_suffix(1);
        find_names(text);
        if (line.empty() || line.back() != '\n') // a line cut at k_set_line_keep still ends here
            line += '\n';
        for (auto& [name, stream] : named)
            stream.feed(line);
        line.clear();
    }
};

MetricSetStream::MetricSetStream(std::vector<std::string> metrics, const std::string& regex)
    : m_state(std::make_unique<State>()) {
    auto& s = *m_state;
    if (has_name_group(regex)) {
        s.by_name = true;
        s.regex = regex;
        const auto open = regex.find(k_name_group);
        name_group_end(regex, open); // refuses an open group
        s.name_index = capture_groups_before(regex, open) + 1;
        std::string plain = regex;
        plain.replace(open, k_name_group.size(), "(");
        try {
            s.finder = std::regex(plain, std::regex::ECMAScript);
        } catch (const std::regex_error& e) {
            throw_usage("--metric-regex '" + regex + "': not a valid regex (" + e.what() + ")");
        }
        if (s.finder.mark_count() != 2)
            throw_usage("--metric-regex '" + regex +
                        "': with a (?<name>...) group expected exactly one other group, holding "
                        "the number, e.g. '(?<name>MLUPS_\\w+):\\s*([0-9.]+)'");
        (void)extract_metric("", regex_for_name(regex, "x")); // validates the number group
        return;
    }
    if (metrics.size() > 1 && !regex.empty())
        throw_usage("--metric-regex '" + regex + "' serves one metric, but --metric is given " +
                    std::to_string(metrics.size()) +
                    " times; drop it (each metric is read with '<NAME>: <number>'), or name the "
                    "metric of each match with a (?<name>...) group");
    for (const auto& m : metrics)
        s.add(m, regex.empty() ? default_metric_regex(m) : regex);
}

MetricSetStream::~MetricSetStream() = default;
MetricSetStream::MetricSetStream(MetricSetStream&&) noexcept = default;
MetricSetStream& MetricSetStream::operator=(MetricSetStream&&) noexcept = default;

void MetricSetStream::feed(std::string_view chunk) {
    auto& s = *m_state;
    if (!s.by_name) {
        for (auto& [name, stream] : s.named)
            stream.feed(chunk);
        return;
    }
    while (!chunk.empty()) {
        const auto nl = chunk.find('\n');
        const std::string_view part =
            chunk.substr(0, nl == std::string_view::npos ? chunk.size() : nl + 1);
        if (s.line.size() < k_set_line_keep)
            s.line.append(part.substr(0, k_set_line_keep - s.line.size()));
        chunk.remove_prefix(part.size());
        if (nl != std::string_view::npos)
            s.end_line();
    }
}

std::vector<NamedExtraction> MetricSetStream::finish() {
    auto& s = *m_state;
    if (s.by_name && !s.line.empty())
        s.end_line();
    std::vector<NamedExtraction> out;
    for (const auto& name : s.order)
        out.push_back({name, s.named.at(name).finish()});
    if (out.empty() && s.by_name) {
        Extraction none;
        none.reason = "no line matches --metric-regex '" + s.regex + "'";
        out.push_back({"", none});
    }
    return out;
}

std::vector<NamedExtraction> extract_metric_set(std::string_view output,
                                                const std::vector<std::string>& metrics,
                                                const std::string& regex) {
    MetricSetStream stream(metrics, regex);
    stream.feed(output);
    return stream.finish();
}

} // namespace perfsweep::core
