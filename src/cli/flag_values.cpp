#include "cli/flag_values.hpp"

#include "core/commit_probe.hpp"
#include "util/error.hpp"

namespace perfsweep::cli {

core::Direction direction_flag(const std::string& text) {
    const auto d = core::parse_direction(text);
    if (!d)
        throw_usage("--direction '" + text + "': expected higher or lower");
    return *d;
}

core::ImportFormat import_format_flag(const std::string& text) {
    const auto f = core::parse_import_format(text);
    if (!f)
        throw_usage("--format '" + text + "': expected csv, grep, benchmark-action or jsonl");
    return *f;
}

core::SweepStrategy strategy_flag(const std::string& text) {
    const auto s = core::parse_strategy(text);
    if (!s)
        throw_usage("--strategy '" + text + "': expected exhaustive, adaptive or bisect");
    return *s;
}

std::pair<std::string, std::string> name_value(const std::string& text, const std::string& flag) {
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
        throw_usage(flag + " '" + text + "': expected NAME=VALUE");
    return {text.substr(0, eq), text.substr(eq + 1)};
}

std::map<std::string, std::string> commit_labels_flag(const std::vector<std::string>& values,
                                                      const std::string& runtime,
                                                      const std::string& env_probe) {
    std::map<std::string, std::string> out;
    if (!values.empty() && runtime != "docker" && runtime != "podman")
        throw_usage("--commits-label '" + values.front() +
                    "': image labels are read with --runtime "
                    "docker or podman, not '" +
                    runtime + "' (use --commits-probe instead)");
    if (!values.empty() && env_probe == "none")
        throw_usage("--commits-label '" + values.front() +
                    "': image labels are read with the environment probe; drop --env-probe none");
    for (const auto& v : values) {
        auto [repo, label] = name_value(v, "--commits-label");
        if (!core::is_probe_name(repo) || !core::is_probe_name(label) || label.size() > 58)
            throw_usage("--commits-label '" + v +
                        "': expected REPO=LABEL, names of 1-64 characters [A-Za-z0-9._/-] (the "
                        "label at most 58), e.g. jax=org.opencontainers.image.revision");
        if (!out.emplace(repo, label).second)
            throw_usage("--commits-label '" + v + "': repo '" + repo + "' is given twice");
    }
    return out;
}

} // namespace perfsweep::cli
