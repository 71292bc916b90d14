#include "app/build_store.hpp"

#include "core/command_template.hpp"
#include "util/error.hpp"

#include <algorithm>

namespace perfsweep::app {

BuildStore::BuildStore(ports::Files& files, ports::Progress& progress, BuildStoreSettings s)
    : m_files(files), m_progress(progress), m_s(std::move(s)) {
    if (m_s.dir.empty())
        throw_usage("build store: no directory");
    m_lock = m_files.lock_dir(m_s.dir, "the build store " + m_s.dir);
    m_index_path = m_s.dir + "/index.tsv";
    if (m_files.exists(m_index_path))
        m_index = core::parse_build_index(m_files.read_text(m_index_path), m_index_path);
}

std::string BuildStore::host_dir(const std::string& key) const {
    return m_s.dir + "/" + core::build_entry(key);
}

std::string BuildStore::dir_in_runner(const std::string& key) const {
    return (m_s.dir_in_runner.empty() ? m_s.dir : m_s.dir_in_runner) + "/" + core::build_entry(key);
}

bool BuildStore::kept(const std::string& key) {
    if (m_s.keep == 0 || !m_index.find(key))
        return false;
    const auto dir = host_dir(key);
    return m_files.exists(dir) && (m_s.product.empty() || m_files.exists(dir + "/" + m_s.product));
}

void BuildStore::clear(const std::string& key) {
    const auto before = m_index.builds.size();
    m_index.forget(key);
    if (m_index.builds.size() != before)
        save(); // the index stops naming the entry before its files go
    remove(core::build_entry(key));
    m_files.make_dirs(host_dir(key));
}

bool BuildStore::keep(const std::string& key) {
    const auto dir = host_dir(key);
    if (!m_s.product.empty() && !m_files.exists(dir + "/" + m_s.product)) {
        m_progress.line("build store: the build left no " + m_s.product + " in " + dir +
                        "; not kept (a revisit builds it again)");
        return false;
    }
    m_index.touch(key);
    // The build just kept is the latest: the bound never drops it (its {build_dir} is in use).
    const auto gone = m_index.evict(std::max<std::size_t>(m_s.keep, 1));
    save();
    for (const auto& entry : gone)
        remove(entry);
    return true;
}

void BuildStore::restored(const std::string& key, bool ok) {
    if (ok)
        m_index.touch(key);
    else
        m_index.forget(key);
    save();
}

void BuildStore::save() {
    m_files.write_atomic(m_index_path, core::format_build_index(m_index));
}

// A kept build's directory is removed after the index stopped naming it: a failure here (e.g.
// files the container wrote as another user) leaves a directory no key points at, never a
// wrong reuse.
void BuildStore::remove(const std::string& entry) {
    try {
        m_files.remove_tree(m_s.dir + "/" + entry);
    } catch (const Error& e) {
        m_progress.line(std::string("build store: ") + e.what() + " (remove it by hand)");
    }
}

std::string build_recipe_identity(const ports::RunnerConfig& rc,
                                  const std::vector<std::string>& not_mounts) {
    std::string id = "build " + rc.build_command + "\nruntime " + rc.runtime + "\nimage " +
                     rc.image + "\nworkdir " + rc.workdir;
    for (const auto& [k, v] : rc.env) // values may be credentials: only their hash is kept
        id += "\nenv " + k + "=#" + core::build_entry(v);
    for (const auto& m : rc.mounts) {
        const auto host = m.substr(0, m.find(':'));
        if (std::find(not_mounts.begin(), not_mounts.end(), host) == not_mounts.end())
            id += "\nmount " + m;
    }
    return id;
}

BuildStoreSettings default_build_store(const std::string& state_dir, int keep,
                                       const std::string& build_command, bool jax_toolbox) {
    BuildStoreSettings s;
    s.keep = static_cast<std::size_t>(std::max(keep, 0));
    std::vector<std::string> fields;
    if (!jax_toolbox && !build_command.empty())
        fields = core::parse_command(build_command, "--build").fields;
    const auto uses = [&](const char* name) {
        return std::find(fields.begin(), fields.end(), name) != fields.end();
    };
    if (jax_toolbox || uses("build_dir"))
        s.dir = state_dir.empty() ? std::string("perfsweep-builds") : state_dir + "/builds";
    s.restore_step = uses("build_mode");
    return s;
}

} // namespace perfsweep::app
