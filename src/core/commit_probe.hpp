#pragma once
// Reading a dated build's source commits from the text a probe command printed (pure).

#include <map>
#include <string>
#include <string_view>

namespace perfsweep::core {

/// Source commits found in probe output.
struct ProbedCommits {
    std::map<std::string, std::string> commits;      ///< repo name -> sha
    std::map<std::string, std::string> commit_times; ///< repo name -> ISO 8601 time, when printed
};

/// Parse probe output. Understands (1) lines "NAME SHA [ISO-TIME]" / "NAME: SHA" / "NAME=SHA"
/// (e.g. from `git -C /opt/jax log -1 --format='jax %H %cI'`), and (2) JAX-Toolbox's
/// /opt/manifest.d/git-clone.yaml (a top-level "NAME:" block holding "latest_verified_commit:
/// SHA"). A SHA is 7-40 hex digits; names "jax-source"/"xla-source" become "jax"/"xla". Other
/// lines are ignored.
ProbedCommits parse_commit_probe(std::string_view text);

} // namespace perfsweep::core
