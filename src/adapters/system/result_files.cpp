#include "adapters/system/result_files.hpp"

#include "util/error.hpp"

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace perfsweep::adapters {

std::vector<std::string> expand_result_files(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const auto st = fs::status(path, ec);
    if (ec || !fs::exists(st))
        throw_usage(path + ": no such file or directory (expected a result file or a directory "
                           "of them)");
    if (!fs::is_directory(st))
        return {path};
    std::vector<std::string> out;
    for (fs::recursive_directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
        if (!it->is_regular_file(ec))
            continue;
        const auto ext = it->path().extension().string();
        if (ext == ".json" || ext == ".jsonl")
            out.push_back(it->path().string());
    }
    if (ec)
        throw_infra(path + ": cannot list the directory: " + ec.message());
    std::sort(out.begin(), out.end());
    if (out.empty())
        throw_usage(path + ": directory holds no *.json or *.jsonl result file");
    return out;
}

} // namespace perfsweep::adapters
