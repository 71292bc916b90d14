#include "support/xychart_check.hpp"

#include <cctype>
#include <cstdlib>
#include <sstream>

namespace perfsweep::test {
namespace {

struct Cursor {
    const std::string& s;
    std::size_t i = 0;
    void ws() {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t'))
            ++i;
    }
    bool eat(const std::string& t) {
        ws();
        if (s.compare(i, t.size(), t) == 0) {
            i += t.size();
            return true;
        }
        return false;
    }
    bool end() {
        ws();
        return i >= s.size();
    }
    bool quoted(std::string& out) {
        ws();
        if (i >= s.size() || s[i] != '"')
            return false;
        const std::size_t close = s.find('"', i + 1);
        if (close == std::string::npos)
            return false;
        out = s.substr(i + 1, close - i - 1);
        i = close + 1;
        return true;
    }
    bool number(double& v) {
        ws();
        const char* b = s.c_str() + i;
        char* e = nullptr;
        v = std::strtod(b, &e);
        if (e == b)
            return false;
        i += static_cast<std::size_t>(e - b);
        return true;
    }
    bool word(std::string& out) {
        ws();
        const std::size_t b = i;
        while (i < s.size() &&
               (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_' || s[i] == '-'))
            ++i;
        out = s.substr(b, i - b);
        return !out.empty();
    }
};

} // namespace

std::string check_xychart(const std::string& diagram) {
    std::istringstream in(diagram);
    std::string line;
    int n = 0;
    long categories = -1;
    int series = 0;
    bool seen_title = false, seen_x = false, seen_y = false;
    while (std::getline(in, line)) {
        ++n;
        const std::string where = "line " + std::to_string(n) + " '" + line + "': ";
        Cursor c{line};
        if (c.end())
            continue;
        if (n == 1) {
            if (!c.eat("xychart-beta"))
                return where + "expected 'xychart-beta'";
            c.eat("horizontal");
            if (!c.end())
                return where + "unexpected text after the header";
            continue;
        }
        std::string text;
        if (c.eat("title")) {
            if (seen_title)
                return where + "second title";
            seen_title = true;
            if (!c.quoted(text) && !c.word(text))
                return where + "title needs text";
        } else if (c.eat("x-axis")) {
            if (seen_x)
                return where + "second x-axis";
            seen_x = true;
            c.quoted(text);
            if (c.eat("[")) {
                categories = 0;
                for (;;) {
                    if (!c.quoted(text) && !c.word(text))
                        return where + "expected a category";
                    ++categories;
                    if (c.eat("]"))
                        break;
                    if (!c.eat(","))
                        return where + "expected ',' or ']'";
                }
            } else {
                double lo = 0, hi = 0;
                if (!c.number(lo) || !c.eat("-->") || !c.number(hi))
                    return where + "expected [..] or MIN --> MAX";
            }
        } else if (c.eat("y-axis")) {
            if (seen_y)
                return where + "second y-axis";
            seen_y = true;
            c.quoted(text);
            if (!c.end()) {
                double lo = 0, hi = 0;
                if (!c.number(lo) || !c.eat("-->") || !c.number(hi))
                    return where + "expected MIN --> MAX";
                if (!(lo < hi))
                    return where + "y-axis MIN must be below MAX";
            }
        } else if (c.eat("line") || c.eat("bar")) {
            c.quoted(text);
            if (!c.eat("["))
                return where + "expected '['";
            long count = 0;
            for (;;) {
                double v = 0;
                if (!c.number(v))
                    return where + "expected a number";
                ++count;
                if (c.eat("]"))
                    break;
                if (!c.eat(","))
                    return where + "expected ',' or ']'";
            }
            if (categories >= 0 && count != categories)
                return where + std::to_string(count) + " values for " + std::to_string(categories) +
                       " categories";
            ++series;
        } else {
            return where + "unknown statement";
        }
        if (!c.end())
            return where + "unexpected trailing text";
    }
    if (n == 0)
        return "empty diagram";
    if (series == 0)
        return "no line or bar series";
    return "";
}

std::vector<std::string> mermaid_blocks(const std::string& markdown) {
    std::vector<std::string> out;
    std::size_t pos = 0;
    const std::string open = "```mermaid\n";
    while ((pos = markdown.find(open, pos)) != std::string::npos) {
        const std::size_t start = pos + open.size();
        const std::size_t close = markdown.find("\n```", start - 1);
        if (close == std::string::npos)
            break;
        out.push_back(markdown.substr(start, close - start + 1));
        pos = close + 4;
    }
    return out;
}

} // namespace perfsweep::test
