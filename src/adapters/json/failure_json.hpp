#pragma once
// JSON for exit-code mode results, shared by the daily and hourly writers: a change of failure
// rate and a failing run's log excerpt.

#include "core/exit_code.hpp"

#include <rapidjson/rapidjson.h>

#include <string>

namespace perfsweep::adapters::json_failure {

/// Writes `"KEY": "value"`.
template <class W> void put_text(W& w, const char* key, const std::string& v) {
    w.Key(key);
    w.String(v.c_str(), static_cast<rapidjson::SizeType>(v.size()));
}

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
    put_text(w, "change", core::describe_failure_change(before, after));
    w.EndObject();
}

/// Writes `"KEY": {"point", "log", "exit_code", "status", "excerpt"}`.
template <class W> void put_failure_log(W& w, const char* key, const core::FailureLog& f) {
    w.Key(key);
    w.StartObject();
    put_text(w, "point", f.point);
    put_text(w, "log", f.log);
    w.Key("exit_code");
    w.Int(f.exit_code);
    put_text(w, "status", core::describe_exit_status(f.exit_code));
    put_text(w, "excerpt", f.excerpt);
    w.EndObject();
}

} // namespace perfsweep::adapters::json_failure
