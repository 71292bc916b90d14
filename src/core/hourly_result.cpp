#include "core/hourly_result.hpp"

namespace perfsweep::core {

std::string_view to_string(StateStatus s) {
    switch (s) {
    case StateStatus::planned:
        return "planned";
    case StateStatus::untested:
        return "untested";
    case StateStatus::duplicate:
        return "duplicate";
    case StateStatus::good:
        return "good";
    case StateStatus::bad:
        return "bad";
    case StateStatus::unknown:
        return "unknown";
    case StateStatus::build_failed:
        return "build_failed";
    case StateStatus::test_failed:
        return "test_failed";
    }
    return "unknown";
}

std::optional<StateStatus> parse_state_status(std::string_view s) {
    for (auto v : {StateStatus::planned, StateStatus::untested, StateStatus::duplicate,
                   StateStatus::good, StateStatus::bad, StateStatus::unknown,
                   StateStatus::build_failed, StateStatus::test_failed})
        if (s == to_string(v))
            return v;
    return std::nullopt;
}

bool is_measured(StateStatus s) {
    return s == StateStatus::good || s == StateStatus::bad || s == StateStatus::unknown;
}

bool is_broken(StateStatus s) {
    return s == StateStatus::build_failed || s == StateStatus::test_failed;
}

std::string_view to_string(HourlyConclusion c) {
    switch (c) {
    case HourlyConclusion::planned:
        return "planned";
    case HourlyConclusion::window:
        return "window";
    case HourlyConclusion::culprit:
        return "culprit";
    case HourlyConclusion::no_change:
        return "no_change";
    case HourlyConclusion::inconclusive:
        return "inconclusive";
    }
    return "inconclusive";
}

std::optional<HourlyConclusion> parse_hourly_conclusion(std::string_view s) {
    for (auto v : {HourlyConclusion::planned, HourlyConclusion::window, HourlyConclusion::culprit,
                   HourlyConclusion::no_change, HourlyConclusion::inconclusive})
        if (s == to_string(v))
            return v;
    return std::nullopt;
}

} // namespace perfsweep::core
