#include "core/issue_request.hpp"

#include "core/date_range.hpp"
#include "core/exit_code.hpp"
#include "util/enum_names.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>

namespace perfsweep::core {
namespace {

constexpr std::size_t k_max_block = 4096;
constexpr const char* k_keys = "from, to, metric, threshold, mode";

bool is_word_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
}

bool valid_metric(const std::string& v) {
    if (v.empty() || v.size() > 64 || !std::isalpha(static_cast<unsigned char>(v[0])))
        return false;
    return std::all_of(v.begin(), v.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
    });
}

bool all_digits(const std::string& s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c));
    });
}

/// "2%", "2.5%" (percent: 1-2 digits, up to 3 decimals) or "0.02", ".02" (a fraction below 1,
/// up to 4 decimals) → the fraction as text; nullopt otherwise.
std::optional<std::string> normalize_threshold(const std::string& v) {
    if (v.size() > 8)
        return std::nullopt;
    if (!v.empty() && v.back() == '%') {
        const std::string num = v.substr(0, v.size() - 1);
        const auto dot = num.find('.');
        const std::string whole = num.substr(0, dot);
        const std::string frac = dot == std::string::npos ? "" : num.substr(dot + 1);
        if (!all_digits(whole) || whole.size() > 2 ||
            (dot != std::string::npos && (!all_digits(frac) || frac.size() > 3)))
            return std::nullopt;
        const auto d = util::parse_double(num);
        if (!d || *d <= 0)
            return std::nullopt;
        return util::format_fixed(*d / 100.0, static_cast<int>(frac.size()) + 2);
    }
    const auto dot = v.find('.');
    if (dot == std::string::npos)
        return std::nullopt;
    const std::string whole = v.substr(0, dot), frac = v.substr(dot + 1);
    if (!(whole.empty() || whole == "0") || !all_digits(frac) || frac.size() > 4)
        return std::nullopt;
    const auto d = util::parse_double("0." + frac);
    if (!d || *d <= 0)
        return std::nullopt;
    return "0." + frac;
}

bool starts_fence(std::string_view line, std::string_view info) {
    const auto t = util::trim(line);
    if (t.rfind("```", 0) != 0)
        return false;
    return util::trim(t.substr(3)) == info;
}

} // namespace

std::string quote_safe_word(const std::string& text) {
    if (!text.empty() && text.size() <= 32 && std::all_of(text.begin(), text.end(), is_word_char))
        return "'" + text + "'";
    return "a key with characters other than letters, digits, '_' and '-' (not shown)";
}

bool association_may_request(const std::string& a) {
    return a == "OWNER" || a == "MEMBER" || a == "COLLABORATOR";
}

bool permission_may_request(const std::string& p) {
    return p == "admin" || p == "maintain" || p == "write";
}

bool plausible_login(const std::string& login) {
    std::string s = login;
    const std::string bot = "[bot]";
    if (s.size() > bot.size() && s.compare(s.size() - bot.size(), bot.size(), bot) == 0)
        s.resize(s.size() - bot.size());
    if (s.empty() || s.size() > 39 || s.front() == '-')
        return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '-';
    });
}

namespace {

using Blocks = std::vector<std::pair<std::size_t, std::size_t>>; // [first content line, end fence)

// The ```perfsweep blocks: the opening fence line is exactly ```perfsweep (blanks around
// allowed), the block ends at the next line that is exactly ```. A problem for an unclosed one.
std::optional<Blocks> find_blocks(const std::vector<std::string>& lines,
                                  std::vector<std::string>& problems) {
    Blocks blocks;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (!starts_fence(lines[i], "perfsweep"))
            continue;
        std::size_t j = i + 1;
        while (j < lines.size() && util::trim(lines[j]) != "```")
            ++j;
        if (j == lines.size()) {
            problems.push_back("the ```perfsweep block that starts on line " +
                               std::to_string(i + 1) + " is not closed by a ``` line");
            return std::nullopt;
        }
        blocks.emplace_back(i + 1, j);
        i = j;
    }
    return blocks;
}

// A block inside an HTML comment is invisible on the rendered issue (a reviewer would not see
// what runs): refused. Every <!-- opens a comment up to the next --> (or the end), also inside
// code spans and other fences: a false alarm refuses, it never hides a block.
std::optional<std::string>
hidden_block(const std::string& body, const std::vector<std::string>& lines, const Blocks& blocks) {
    std::vector<std::pair<std::size_t, std::size_t>> hidden; // [open, close) byte ranges
    for (auto open = body.find("<!--"); open != std::string::npos;) {
        const auto close = body.find("-->", open + 4);
        hidden.emplace_back(open, close == std::string::npos ? body.size() : close + 3);
        open = close == std::string::npos ? close : body.find("<!--", close + 3);
    }
    std::vector<std::size_t> line_start(lines.size() + 1, 0);
    for (std::size_t i = 0; i < lines.size(); ++i)
        line_start[i + 1] = line_start[i] + lines[i].size() + 1;
    auto is_hidden = [&](std::size_t line) {
        const auto b = line_start[line], e = line_start[line] + lines[line].size();
        return std::any_of(hidden.begin(), hidden.end(),
                           [&](const auto& h) { return b < h.second && e > h.first; });
    };
    for (const auto& [first, end] : blocks)
        for (std::size_t line = first - 1; line <= end; ++line)
            if (is_hidden(line))
                return "the ```perfsweep block that starts on line " + std::to_string(first) +
                       " is inside an HTML comment (<!-- -->) and would not show on the issue; "
                       "expected a visible block";
    return std::nullopt;
}

// One key's value into `values`; a problem (naming `where`) when it is not valid.
void take_value(const std::string& where, const std::string& key, const std::string& value,
                IssueRequestValues& values, std::vector<std::string>& problems) {
    if (key == "from" || key == "to") {
        const auto d = util::parse_date(value);
        if (value.size() != 10 || !d)
            problems.push_back(where + ": '" + key +
                               "' is not a calendar date of the form YYYY-MM-DD");
        else
            (key == "from" ? values.from : values.to) = value;
    } else if (key == "metric") {
        if (!valid_metric(value))
            problems.push_back(where +
                               ": 'metric' is not a metric name (a letter, then up to 63 letters, "
                               "digits, '_' or '.')");
        else
            values.metric = value;
    } else if (key == "mode") {
        if (value == to_string(RunMode::metric) || value == to_string(RunMode::exit_code))
            values.mode = value;
        else
            problems.push_back(where + ": 'mode' is not " + util::enum_choices(k_run_mode_names));
    } else if (auto t = normalize_threshold(value)) {
        values.threshold = *t;
    } else {
        problems.push_back(where + ": 'threshold' is not a percentage like 2% or a fraction like "
                                   "0.02");
    }
}

// The block's 'key: value' lines; returns the keys given.
std::set<std::string> read_block(const std::vector<std::string>& lines, std::size_t first,
                                 std::size_t end, IssueRequestParse& out) {
    std::set<std::string> seen;
    for (std::size_t i = first; i < end; ++i) {
        const std::string where = "line " + std::to_string(i - first + 1) + " of the block";
        const std::string line(util::trim(lines[i]));
        if (line.empty() || line[0] == '#')
            continue;
        const auto colon = line.find(':');
        const std::string key(util::trim(std::string_view(line).substr(0, colon)));
        if (colon == std::string::npos) {
            out.problems.push_back(where + ": expected 'key: value' with a key among " + k_keys);
            continue;
        }
        if (key != "from" && key != "to" && key != "metric" && key != "threshold" &&
            key != "mode") {
            out.problems.push_back(where + ": unknown key " + quote_safe_word(key) + "; only " +
                                   k_keys + " may be set from an issue");
            continue;
        }
        if (!seen.insert(key).second) {
            out.problems.push_back(where + ": '" + key + "' is given twice");
            continue;
        }
        take_value(where, key, std::string(util::trim(std::string_view(line).substr(colon + 1))),
                   out.values, out.problems);
    }
    return seen;
}

} // namespace

IssueRequestParse parse_issue_request(const std::string& body_in) {
    IssueRequestParse out;
    const std::string body = util::replace_all(body_in, "\r\n", "\n");
    const auto lines = util::split(body, '\n');
    const auto blocks = find_blocks(lines, out.problems);
    if (!blocks)
        return out;
    if (auto hidden = hidden_block(body, lines, *blocks)) {
        out.problems.push_back(*hidden);
        return out;
    }
    if (blocks->empty()) {
        out.problems.push_back("the body has no ```perfsweep fenced block (expected the keys " +
                               std::string(k_keys) + ")");
        return out;
    }
    if (blocks->size() > 1) {
        out.problems.push_back("the body has " + std::to_string(blocks->size()) +
                               " ```perfsweep blocks; expected exactly one");
        return out;
    }
    const auto [first, end] = blocks->front();
    std::size_t size = 0;
    for (std::size_t i = first; i < end; ++i)
        size += lines[i].size() + 1;
    if (size > k_max_block) {
        out.problems.push_back("the ```perfsweep block is " + std::to_string(size) +
                               " bytes; expected at most " + std::to_string(k_max_block));
        return out;
    }
    const auto seen = read_block(lines, first, end, out);
    for (const char* key : {"from", "to"})
        if (!seen.count(key))
            out.problems.push_back(std::string("the block has no '") + key + ": YYYY-MM-DD' line");
    if (out.problems.empty() && out.values.from >= out.values.to)
        out.problems.push_back("'from' must be before 'to'");
    // The same rule as `daily --from --to` (which would refuse the range later, after the run
    // was accepted and the GPU job started).
    if (out.problems.empty() &&
        check_daily_range(out.values.from, out.values.to).problem == DateRangeProblem::too_long)
        out.problems.push_back("'from' to 'to' spans more than " +
                               std::to_string(k_max_daily_dates) +
                               " nightly dates (10 years); expected a shorter range");
    if (!out.problems.empty())
        out.values = {};
    return out;
}

} // namespace perfsweep::core
