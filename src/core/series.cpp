#include "core/series.hpp"

#include <vector>

namespace perfsweep::core {

std::string gpu_class(std::string_view gpu_name) {
    std::vector<std::string_view> words;
    std::size_t i = 0;
    while (i < gpu_name.size()) {
        while (i < gpu_name.size() && (gpu_name[i] == ' ' || gpu_name[i] == '\t'))
            ++i;
        const std::size_t start = i;
        while (i < gpu_name.size() && gpu_name[i] != ' ' && gpu_name[i] != '\t')
            ++i;
        if (i > start)
            words.push_back(gpu_name.substr(start, i - start));
    }
    std::string out;
    for (auto w : words) {
        if (w == "NVIDIA" || w == "Tesla" || w == "GeForce")
            continue;
        if (!out.empty())
            out += ' ';
        out += w;
    }
    return out;
}

std::string testbed_of(const Measurement& m) {
    if (auto it = m.runner.find("testbed"); it != m.runner.end() && !it->second.empty())
        return it->second;
    if (auto it = m.runner.find("gpu"); it != m.runner.end())
        return gpu_class(it->second);
    return {};
}

SeriesKey series_key(const Measurement& m) {
    return SeriesKey{m.benchmark, m.metric, testbed_of(m)};
}

std::string to_string(const SeriesKey& key) {
    std::string out = key.benchmark + " · " + key.metric;
    if (!key.testbed.empty())
        out += " · " + key.testbed;
    return out;
}

} // namespace perfsweep::core
