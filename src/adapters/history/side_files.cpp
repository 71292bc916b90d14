#include "adapters/history/side_files.hpp"

#include "adapters/history/jsonl_store.hpp"
#include "adapters/system/local_files.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <filesystem>

namespace perfsweep::adapters {

namespace fs = std::filesystem;

namespace {

/// The directory that holds the history file at `path`.
fs::path history_dir(const std::string& path) {
    const fs::path p(path);
    return p.has_parent_path() ? p.parent_path() : fs::path(".");
}

} // namespace

std::string side_path_problem(std::string_view path) {
    if (path.empty())
        return "an empty path";
    if (path.size() > 300)
        return "longer than 300 characters";
    if (path.front() == '/')
        return "an absolute path (expected one relative to the history's directory)";
    const auto parts = util::split(path, '/');
    if (parts.size() > 8)
        return "more than 8 levels deep";
    for (const auto& part : parts) {
        if (part.empty() || part == "." || part == "..")
            return "a path with an empty, '.' or '..' part";
        if (part.size() > 100)
            return "a name longer than 100 characters";
        const bool plain = std::all_of(part.begin(), part.end(), [](char c) {
            return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                   c == '.' || c == '_' || c == '-';
        });
        if (!plain)
            return "a name with a character other than A-Z, a-z, 0-9, '.', '_' and '-'";
    }
    return "";
}

void check_side_files(const std::vector<ports::SideFile>& files, const std::string& history_name,
                      const std::string& where) {
    for (const auto& f : files) {
        const std::string why = side_path_problem(f.path);
        if (!why.empty())
            throw_usage("history '" + where + "': cannot keep '" + f.path.substr(0, 80) +
                        "' beside it: " + why);
        if (f.path == history_name)
            throw_usage("history '" + where + "': cannot keep '" + f.path +
                        "' beside it: that is the history file itself");
    }
}

std::vector<ports::SideFile> read_side_files(const std::string& dir, const std::string& folder) {
    if (const std::string why = side_path_problem(folder); !why.empty())
        throw_usage("folder '" + folder.substr(0, 80) + "' beside the history: " + why);
    std::error_code ec;
    const fs::path base = fs::path(dir) / folder;
    if (!fs::is_directory(fs::symlink_status(base, ec)))
        return {};
    std::vector<std::string> paths;
    for (auto it = fs::recursive_directory_iterator(base, ec); !ec && it != fs::end(it);
         it.increment(ec)) {
        const auto st = it->symlink_status(ec);
        const std::string name = it->path().filename().string();
        if (ec || !fs::is_regular_file(st) || name.find(".tmp.") != std::string::npos)
            continue;
        paths.push_back(fs::relative(it->path(), dir, ec).generic_string());
    }
    if (ec)
        throw_infra("cannot list '" + base.string() + "' beside the history: " + ec.message());
    std::sort(paths.begin(), paths.end());
    std::vector<ports::SideFile> out;
    LocalFiles files;
    for (const auto& p : paths)
        out.push_back({p, files.read_text((fs::path(dir) / p).string())});
    return out;
}

// The JSON Lines store's files beside it: in the directory that holds the history file.

void JsonlHistoryStore::write_beside(const std::vector<ports::SideFile>& files) {
    check_side_files(files, fs::path(m_path).filename().string(), m_path);
    const fs::path dir = history_dir(m_path);
    LocalFiles local;
    for (const auto& f : files)
        local.write_atomic((dir / f.path).string(), f.content);
}

std::vector<ports::SideFile> JsonlHistoryStore::read_beside(const std::string& folder) {
    return read_side_files(history_dir(m_path).string(), folder);
}

} // namespace perfsweep::adapters
