#pragma once
// JSON for exit-code mode results, shared by the daily and hourly writers: a change of failure
// rate and a failing run's log excerpt.

#include "adapters/json/json_write.hpp"
#include "core/exit_code.hpp"

namespace perfsweep::adapters::json_failure {

/// Writes `"KEY": {"passed": N, "failed": N}`.
template <class W> void put_runs(W& w, const char* key, const core::PassFail& p) {
    w.Key(key);
    w.StartObject();
    w.Key("passed");
    w.Int64(p.passed);
    w.Key("failed");
    w.Int64(p.failed);
    w.EndObject();
}

/// Writes `"failures": {"before": runs, "after": runs, "change": "started failing (...)"}`.
template <class W>
void put_failure_change(W& w, const core::PassFail& before, const core::PassFail& after) {
    w.Key("failures");
    w.StartObject();
    put_runs(w, "before", before);
    put_runs(w, "after", after);
    json_write::put(w, "change", core::describe_failure_change(before, after));
    w.EndObject();
}

/// Writes `"KEY": {"point", "log", "exit_code", "status", "excerpt"}`.
template <class W> void put_failure_log(W& w, const char* key, const core::FailureLog& f) {
    w.Key(key);
    w.StartObject();
    json_write::put(w, "point", f.point);
    json_write::put(w, "log", f.log);
    w.Key("exit_code");
    w.Int(f.exit_code);
    json_write::put(w, "status", core::describe_exit_status(f.exit_code));
    json_write::put(w, "excerpt", f.excerpt);
    w.EndObject();
}

} // namespace perfsweep::adapters::json_failure
