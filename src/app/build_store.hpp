#pragma once
// The kept builds of source states on disk (core/build_store decides): a directory per build,
// its index, the bound, and a lock so that two perfsweep processes never share one store.

#include "core/build_store.hpp"
#include "ports/files.hpp"
#include "ports/progress.hpp"
#include "ports/runner_config.hpp"

#include <cstddef>
#include <map>
#include <memory>
#include <string>

namespace perfsweep::app {

/// Where finished builds of source states are kept and how the recipe uses them.
struct BuildStoreSettings {
    std::string dir;           ///< host directory of the store ("" = no store: nothing is kept)
    std::string dir_in_runner; ///< `dir` as the build and the benchmark see it ("" = the same)
    std::string recipe;        ///< the recipe identity (build_recipe_identity): part of each key
    std::size_t keep = 12;     ///< builds kept at most (the least recently used go first); 0 = none
    /// The recipe puts a kept build back itself when {build_mode} is "restore" (JAX-Toolbox);
    /// otherwise nothing runs: the benchmark reads the state's own {build_dir}.
    bool restore_step = false;
    /// What a build leaves in its {build_dir} to be kept (JAX-Toolbox: "product"); "" = the
    /// build's success is enough.
    std::string product;
};

/// One opened store (held for this process until destroyed).
class BuildStore {
public:
    /// Open (and lock) the store of `settings`; reads its index. Throws naming the directory
    /// when another perfsweep holds it or the index is damaged.
    BuildStore(ports::Files& files, ports::Progress& progress, BuildStoreSettings settings);
    /// The directory of `key`'s build as the runner sees it ({build_dir}).
    std::string dir_in_runner(const std::string& key) const;
    /// Whether a finished build of exactly `key` is kept (and reuse is on).
    bool kept(const std::string& key);
    /// Before `key` is built: forget what its entry held and empty it.
    void clear(const std::string& key);
    /// After `key` built: keep it when its product is there; drop builds beyond the bound.
    /// Returns whether it is kept.
    bool keep(const std::string& key);
    /// After putting `key`'s build back: used now (ok), or forgotten (it could not be put back).
    void restored(const std::string& key, bool ok);
    /// The settings it was opened with.
    const BuildStoreSettings& settings() const { return m_s; }

private:
    std::string host_dir(const std::string& key) const;
    void save();
    void remove(const std::string& entry);

    ports::Files& m_files;
    ports::Progress& m_progress;
    BuildStoreSettings m_s;
    std::unique_ptr<ports::DirLock> m_lock;
    std::string m_index_path;
    core::BuildIndex m_index;
};

/// The recipe identity of `rc`'s builds: everything besides the sources that determines their
/// output (build command, runtime, image, environment (values hashed), mounts but those of the
/// host directories `not_mounts` (outputs, the store), working directory), one text. The
/// machine's fingerprint joins it when the search starts (SourceBench).
std::string build_recipe_identity(const ports::RunnerConfig& rc,
                                  const std::vector<std::string>& not_mounts);

/// The store of a search whose state directory is `state_dir`: STATE/builds, else
/// ./perfsweep-builds, keeping `keep` builds; none ("" dir) unless the builds can be kept: with
/// `jax_toolbox` (the mode's build step keeps them; prepare_source_runner may still turn it off),
/// or a `build_command` that writes to {build_dir} (restore_step when it also takes
/// {build_mode}).
BuildStoreSettings default_build_store(const std::string& state_dir, int keep,
                                       const std::string& build_command, bool jax_toolbox);

} // namespace perfsweep::app
