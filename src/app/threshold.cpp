#include "app/threshold.hpp"

#include "util/error.hpp"
#include "util/strings.hpp"

namespace perfsweep::app {

std::optional<Threshold> parse_threshold_text(std::string_view text) {
    std::string t(util::trim(text));
    Threshold out;
    if (!t.empty() && (t.back() == 'x' || t.back() == 'X')) {
        t.pop_back();
        out.ratio = true;
        const auto v = util::parse_double(util::trim(t));
        if (!v || !(*v >= 1) || *v > 1e6)
            return std::nullopt;
        out.value = *v;
        return out;
    }
    double scale = 1;
    const bool percent = !t.empty() && t.back() == '%';
    if (percent) {
        t.pop_back();
        scale = 0.01;
    }
    const auto v = util::parse_double(util::trim(t));
    if (!v || !(*v >= 0) || *v * scale > 1e6)
        return std::nullopt;
    out.value = *v * scale;
    if (out.value >= 1) {
        if (!percent) // "1.5" alone is ambiguous: a 150 % change or 1.5 times worse
            return std::nullopt;
        out.ratio = true;
    }
    return out;
}

Threshold parse_threshold(const std::string& text) {
    const auto t = parse_threshold_text(text);
    if (!t)
        throw_usage("--threshold '" + text + "': expected " + std::string(k_threshold_forms));
    return *t;
}

double relative_threshold(const Threshold& t, core::Direction direction) {
    if (!t.ratio)
        return t.value;
    return direction == core::Direction::higher_is_better ? 1 - 1 / t.value : t.value - 1;
}

} // namespace perfsweep::app
