#include "core/model.hpp"

#include <cmath>

namespace perfsweep::core {

namespace {

// One table per enum: the first name of a value is its name, later ones are accepted spellings.
constexpr util::EnumName<Direction> k_direction_names[] = {
    {Direction::higher_is_better, "higher"},
    {Direction::lower_is_better, "lower"},
    {Direction::higher_is_better, "higher_is_better"},
    {Direction::lower_is_better, "lower_is_better"},
    {Direction::higher_is_better, "bigger"},
    {Direction::lower_is_better, "smaller"},
};
constexpr util::EnumName<Status> k_status_names[] = {
    {Status::ok, "ok"},
    {Status::failed, "failed"},
    {Status::timeout, "timeout"},
    {Status::missing, "missing"},
};
constexpr util::EnumName<Stage> k_stage_names[] = {
    {Stage::record, "record"},
    {Stage::daily, "daily"},
    {Stage::hourly, "hourly"},
    {Stage::commit, "commit"},
};
constexpr util::EnumName<StateStatus> k_state_status_names[] = {
    {StateStatus::planned, "planned"},
    {StateStatus::untested, "untested"},
    {StateStatus::duplicate, "duplicate"},
    {StateStatus::good, "good"},
    {StateStatus::bad, "bad"},
    {StateStatus::unknown, "unknown"},
    {StateStatus::build_failed, "build_failed"},
    {StateStatus::test_failed, "test_failed"},
};

} // namespace

std::string_view to_string(Direction d) {
    return util::enum_name(k_direction_names, d);
}

std::string_view to_string(Status s) {
    return util::enum_name(k_status_names, s, "failed");
}

std::string_view to_string(Stage s) {
    return util::enum_name(k_stage_names, s, "record");
}

std::string_view to_string(ChangeKind k) {
    return util::enum_name(k_change_kind_names, k, "unknown");
}

std::string_view to_string(StateStatus s) {
    return util::enum_name(k_state_status_names, s, "unknown");
}

std::optional<ChangeKind> parse_change_kind(std::string_view s) {
    return util::parse_enum(k_change_kind_names, s);
}

std::optional<Direction> parse_direction(std::string_view s) {
    return util::parse_enum(k_direction_names, s);
}

std::optional<Status> parse_status(std::string_view s) {
    return util::parse_enum(k_status_names, s);
}

std::optional<Stage> parse_stage(std::string_view s) {
    return util::parse_enum(k_stage_names, s);
}

std::optional<StateStatus> parse_state_status(std::string_view s) {
    return util::parse_enum(k_state_status_names, s);
}

bool is_measured(StateStatus s) {
    return s == StateStatus::good || s == StateStatus::bad || s == StateStatus::unknown;
}

bool is_broken(StateStatus s) {
    return s == StateStatus::build_failed || s == StateStatus::test_failed;
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
