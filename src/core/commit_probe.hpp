#pragma once
// Reading a dated build's source commits from the text a probe command printed (pure).

#include <map>
#include <string>
#include <string_view>
#include <vector>

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

/// Commits named by image labels: for each repo → LABEL in `repo_labels`, the value of
/// "label.LABEL" in a recorded `environment` when it is a SHA (7-40 lowercase hex digits).
/// `not_sha` gets the labels present whose value is not a SHA (the untrusted value is not kept).
ProbedCommits commits_from_labels(const std::map<std::string, std::string>& environment,
                                  const std::map<std::string, std::string>& repo_labels,
                                  std::vector<std::string>& not_sha);

/// True for a usable repo or label name: 1-64 characters of [A-Za-z0-9._/-].
bool is_probe_name(std::string_view name);

} // namespace perfsweep::core
