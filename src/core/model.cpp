#include "core/model.hpp"

#include <cmath>

namespace perfsweep::core {

std::string_view to_string(Direction d) {
    return d == Direction::higher_is_better ? "higher" : "lower";
}

std::string_view to_string(Status s) {
    switch (s) {
    case Status::ok:
        return "ok";
    case Status::failed:
        return "failed";
    case Status::timeout:
        return "timeout";
    case Status::missing:
        return "missing";
    }
    return "failed";
}

std::string_view to_string(Stage s) {
    switch (s) {
    case Stage::record:
        return "record";
    case Stage::daily:
        return "daily";
    case Stage::hourly:
        return "hourly";
    case Stage::commit:
        return "commit";
    }
    return "record";
}

std::string_view to_string(ChangeKind k) {
    switch (k) {
    case ChangeKind::regression:
        return "regression";
    case ChangeKind::improvement:
        return "improvement";
    case ChangeKind::unknown:
        return "unknown";
    }
    return "unknown";
}

std::optional<ChangeKind> parse_change_kind(std::string_view s) {
    if (s == "regression")
        return ChangeKind::regression;
    if (s == "improvement")
        return ChangeKind::improvement;
    if (s == "unknown")
        return ChangeKind::unknown;
    return std::nullopt;
}

std::optional<Direction> parse_direction(std::string_view s) {
    if (s == "higher" || s == "higher_is_better" || s == "bigger")
        return Direction::higher_is_better;
    if (s == "lower" || s == "lower_is_better" || s == "smaller")
        return Direction::lower_is_better;
    return std::nullopt;
}

std::optional<Status> parse_status(std::string_view s) {
    if (s == "ok")
        return Status::ok;
    if (s == "failed")
        return Status::failed;
    if (s == "timeout")
        return Status::timeout;
    if (s == "missing")
        return Status::missing;
    return std::nullopt;
}

std::optional<Stage> parse_stage(std::string_view s) {
    if (s == "record")
        return Stage::record;
    if (s == "daily")
        return Stage::daily;
    if (s == "hourly")
        return Stage::hourly;
    if (s == "commit")
        return Stage::commit;
    return std::nullopt;
}

bool is_better(Direction d, double a, double b) {
    return d == Direction::higher_is_better ? a > b : a < b;
}

std::string fingerprint_key(const std::map<std::string, std::string>& runner) {
    // Only the fields that change performance; hostname alone does not separate two identical GPUs.
    std::string key;
    for (const char* field : {"gpu", "driver", "runner_class"}) {
        auto it = runner.find(field);
        if (it != runner.end()) {
            key += field;
            key += '=';
            key += it->second;
            key += ';';
        }
    }
    return key;
}

std::string metric_value_problem(double v) {
    if (!std::isfinite(v))
        return "not a finite number";
    if (std::fabs(v) > k_max_metric_magnitude)
        return "absurd magnitude (|value| > 1e150)";
    return {};
}

} // namespace perfsweep::core
