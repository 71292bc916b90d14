#include "core/exit_policy.hpp"

#include "util/exit_codes.hpp"

namespace perfsweep::core {

int exit_code_for(Verdict v) {
    switch (v) {
    case Verdict::regression:
        return exit_regression;
    case Verdict::improvement:
        return exit_improvement;
    case Verdict::no_regression:
        return exit_ok;
    case Verdict::inconclusive:
        break;
    }
    return exit_inconclusive;
}

int sweep_exit_code(const DailyResult& result) {
    if (!result.sweep.complete)
        return exit_inconclusive;
    for (const auto& b : result.sweep.boundaries)
        if (b.kind == ChangeKind::unknown)
            return exit_inconclusive;
    return exit_ok;
}

int hourly_exit_code(const HourlyResult& result) {
    return result.conclusion == HourlyConclusion::inconclusive ? exit_inconclusive : exit_ok;
}

int investigate_exit_code(Verdict verdict, bool fail_on_regression) {
    switch (verdict) {
    case Verdict::regression:
        return fail_on_regression ? exit_regression : exit_ok;
    case Verdict::inconclusive:
        return exit_inconclusive;
    case Verdict::improvement:
    case Verdict::no_regression:
        break;
    }
    return exit_ok;
}

int point_exit_code(Status status) {
    return status == Status::ok ? exit_ok : exit_inconclusive;
}

} // namespace perfsweep::core
