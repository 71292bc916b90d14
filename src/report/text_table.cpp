#include "report/text_table.hpp"

#include <algorithm>

namespace perfsweep::report {

namespace {
size_t display_width(const std::string& s) {
    size_t w = 0;
    for (unsigned char c : s)
        if ((c & 0xC0) != 0x80) // count UTF-8 code points, not bytes
            ++w;
    return w;
}
} // namespace

std::string render_text(const TextTable& t) {
    std::vector<size_t> width(t.header.size(), 0);
    auto grow = [&](const std::vector<std::string>& row) {
        if (row.size() > width.size())
            width.resize(row.size(), 0);
        for (size_t i = 0; i < row.size(); ++i)
            width[i] = std::max(width[i], display_width(row[i]));
    };
    grow(t.header);
    for (const auto& r : t.rows)
        grow(r);
    auto line = [&](const std::vector<std::string>& row) {
        std::string out;
        for (size_t i = 0; i < width.size(); ++i) {
            const std::string cell = i < row.size() ? row[i] : "";
            const size_t pad = width[i] - display_width(cell);
            const bool right = i < t.right_align.size() && t.right_align[i];
            if (i)
                out += "  ";
            if (right)
                out.append(pad, ' ');
            out += cell;
            if (!right && i + 1 < width.size())
                out.append(pad, ' ');
        }
        while (!out.empty() && out.back() == ' ')
            out.pop_back();
        return out + "\n";
    };
    std::string out = line(t.header);
    std::vector<std::string> rule;
    for (size_t w : width)
        rule.emplace_back(w, '-');
    out += line(rule);
    for (const auto& r : t.rows)
        out += line(r);
    return out;
}

} // namespace perfsweep::report
