#pragma once
// Stage results built in memory (the result model of core/report_model.hpp) for the renderer and
// round-trip tests: a nightly regression with its hourly window and culprit, in metric and
// exit-code mode.

#include "core/report_model.hpp"
#include "util/time.hpp"

#include <string>

namespace perfsweep::test {

/// 2023-08-25T<hour>:00:00Z.
inline util::UnixSeconds hour_of_0825(int hour) {
    return 1692921600 + static_cast<util::UnixSeconds>(hour) * 3600;
}

/// One measurement record of a nightly (its build's provenance).
inline core::Measurement nightly_record(const std::string& label, const std::string& xla_sha,
                                        const std::string& cudnn) {
    core::Measurement m;
    m.label = label;
    m.metric = "MLUPS";
    m.image = "ghcr.io/nvidia/jax:nightly-" + label;
    m.digest = "sha256:0f1e2d3c";
    m.commits = {{"jax", "aaaaaaa1111111111111111111111111111111111"}, {"xla", xla_sha}};
    m.commit_times = {{"jax", "2023-08-20T10:00:00Z"}, {"xla", label + "T03:00:00Z"}};
    m.environment = {{"cuda", "12.2"}, {"cudnn", cudnn}};
    return m;
}

/// A daily sweep over `from`..`to` (one point per day given) with one regression boundary
/// between `good` and `bad` (indices), a missing nightly and an untested one.
inline core::DailyResult sample_daily(const std::vector<std::string>& days, std::size_t good,
                                      std::size_t bad, double before = 577.3,
                                      double after = 536.7) {
    core::DailyResult d;
    d.from = days.front();
    d.to = days.back();
    d.image = "ghcr.io/nvidia/jax:nightly-{date}";
    d.benchmark = "MLUPS3d.py 256 200";
    d.metric = "MLUPS";
    d.unit = "MLUPS";
    d.sweep.options.strategy = core::SweepStrategy::adaptive;
    for (std::size_t i = 0; i < days.size(); ++i) {
        core::SweepPoint p;
        p.label = days[i];
        std::vector<core::Measurement> records;
        if (i == good + 1 && good + 1 < bad) {
            p.state = core::StateStatus::test_failed;
            p.status = core::Status::missing;
            p.reason = "manifest unknown: nightly-" + days[i];
        } else if (i + 1 == days.size() && i != bad) {
            p.state = core::StateStatus::untested;
        } else {
            p.state = core::StateStatus::unknown;
            const double level = i <= good ? before : after;
            p.values = {level, level + 0.4, level - 0.3};
            p.log = days[i] + ".log";
            auto m = nightly_record(days[i],
                                    i <= good ? "2222222bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
                                              : "3c66a1fcccccccccccccccccccccccccccccccccc",
                                    "9.1.0");
            m.values = p.values;
            records.push_back(m);
            d.sweep.runs += 3;
        }
        d.sweep.points.push_back(p);
        d.measurements.push_back(records);
    }
    for (std::size_t i = 0; i < d.sweep.points.size(); ++i)
        if (d.sweep.points[i].state == core::StateStatus::test_failed)
            d.sweep.skipped.push_back(i);
    core::Boundary b;
    b.last_before = good;
    b.first_after = bad;
    b.old_level = before;
    b.new_level = after;
    b.relative_change = (after - before) / before;
    b.p_value = 1.5e-7;
    b.kind = after < before ? core::ChangeKind::regression : core::ChangeKind::improvement;
    for (std::size_t i = good + 1; i < bad; ++i)
        if (d.sweep.points[i].state == core::StateStatus::test_failed)
            b.broken_between.push_back(i);
    d.sweep.boundaries.push_back(b);
    d.sweep.exhaustive_runs = static_cast<long>(days.size()) * 3;
    d.sweep.complete = true;
    return d;
}

/// An hourly result over 12:00..15:00 on 2023-08-25: good up to 13:00, bad from 14:00, a failed
/// build at 15:00, two candidate commits in xla; `conclusion` window or culprit (the first
/// candidate).
inline core::HourlyResult sample_hourly(core::HourlyConclusion conclusion) {
    core::HourlyResult h;
    h.conclusion = conclusion;
    h.metric = "MLUPS";
    h.unit = "MLUPS";
    const std::string jax = "aaaaaaa1111111111111111111111111111111111";
    const std::string x1 = "1111111aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    const std::string x2 = "2222222bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
    const std::string x3 = "3c66a1fcccccccccccccccccccccccccccccccccc";
    auto state = [&](int hour, const std::string& xla, core::StateStatus st,
                     std::vector<double> values) {
        core::StateOutcome s;
        s.time = hour_of_0825(hour);
        s.commits = {{"jax", jax}, {"xla", xla}};
        s.changed = {"xla"};
        s.status = st;
        s.values = std::move(values);
        return s;
    };
    h.states.push_back(state(12, x1, core::StateStatus::good, {577.0, 577.4}));
    h.states.push_back(state(13, x2, core::StateStatus::good, {577.2, 576.9}));
    h.states.push_back(state(14, x3, core::StateStatus::bad, {536.5, 536.9}));
    auto broken = state(15, x3, core::StateStatus::build_failed, {});
    broken.commits["jax"] = "bbbbbbb2222222222222222222222222222222222";
    broken.changed = {"jax"};
    broken.reason = "build failed: bazel exit 1";
    h.states.push_back(broken);
    if (conclusion == core::HourlyConclusion::no_change) {
        h.message = "the window ends do not differ significantly (change 0.10%, p=0.4000)";
        for (auto& s : h.states)
            if (core::is_measured(s.status))
                s.status = core::StateStatus::unknown;
        h.spend.builds = 2;
        h.spend.runs = 4;
        return h;
    }
    h.last_good = core::WindowEnd{hour_of_0825(13), {{"jax", jax}, {"xla", x2}}};
    h.first_bad = core::WindowEnd{hour_of_0825(14), {{"jax", jax}, {"xla", x3}}};
    h.changed_repos = {"xla"};
    core::CommitInfo a{x3,
                       hour_of_0825(13) + 41 * 60 + 7,
                       "Jane Doe <jane@example.com>",
                       "[GPU] Use `cuDNN` fusion for |conv| <b>bias</b> @someone",
                       {}};
    core::CommitInfo b{"2a2b2c2dddddddddddddddddddddddddddddddddd",
                       hour_of_0825(13) + 12 * 60,
                       "bot",
                       "Integrate LLVM at llvm/llvm-project@abc",
                       {}};
    h.candidates["xla"] = {a, b};
    h.compare_urls["xla"] = "https://github.com/openxla/xla/compare/" + x2 + "..." + x3;
    h.spend.builds = 4;
    h.spend.runs = 8;
    h.message = "window: 2023-08-25T13:00:00Z (good) .. 2023-08-25T14:00:00Z (bad), changed: xla";
    if (conclusion == core::HourlyConclusion::culprit) {
        h.culprit = core::Culprit{"xla", a, "only xla changed in the window"};
        h.message =
            "culprit: xla " + x3 + " \"" + a.subject + "\" (only xla changed in the window)";
        core::StateOutcome step = h.states[1];
        step.status = core::StateStatus::good;
        h.commit_steps = {step, h.states[2]};
    }
    return h;
}

/// A detect result with one regression change point between `last_before` and `first_after`.
inline core::DetectResult sample_detect(const std::string& last_before,
                                        const std::string& first_after) {
    core::DetectResult d;
    d.benchmark = "MLUPS3d.py 256 200";
    d.metric = "MLUPS";
    d.unit = "MLUPS";
    d.verdict = core::Verdict::regression;
    d.reason = "the latest level is 7.0 % worse";
    d.points = 12;
    d.noise = 0.35;
    d.relative_noise = 0.35 / 577.3;
    core::ChangePoint c;
    c.last_before = last_before;
    c.first_after = first_after;
    c.old_level = 577.3;
    c.new_level = 536.7;
    c.relative_change = (536.7 - 577.3) / 577.3;
    c.p_value = 2.5e-9;
    c.kind = core::ChangeKind::regression;
    d.change_points.push_back(c);
    d.segments.push_back({"2023-08-10", last_before, 8, 577.3});
    d.segments.push_back({first_after, "2023-08-27", 4, 536.7});
    d.failed.push_back({"2023-08-22", "Traceback: CUDA_ERROR_OUT_OF_MEMORY"});
    return d;
}

/// An investigation that narrowed one regression (nightly 08-24 → 08-26) to the culprit, or with
/// `two` also an earlier one (nightly 08-12 → 08-13, a 3 % drop) to a window.
inline core::Investigation sample_investigation(bool two = false) {
    core::Investigation inv;
    inv.verdict = core::Verdict::regression;
    inv.reason = "the latest level is 7.0 % worse";
    inv.detect = sample_detect("2023-08-24", "2023-08-26");
    inv.daily.push_back(
        sample_daily({"2023-08-23", "2023-08-24", "2023-08-25", "2023-08-26"}, 1, 3));
    inv.hourly.push_back(sample_hourly(core::HourlyConclusion::culprit));
    inv.regressions.push_back({0, "2023-08-24", "2023-08-26", 0, ""});
    if (two) {
        core::ChangePoint early = inv.detect.change_points.front();
        early.last_before = "2023-08-12";
        early.first_after = "2023-08-13";
        early.old_level = 595.0;
        early.new_level = 577.3;
        early.relative_change = (577.3 - 595.0) / 595.0;
        inv.detect.change_points.insert(inv.detect.change_points.begin(), early);
        auto d = sample_daily({"2023-08-12", "2023-08-13"}, 0, 1, 595.0, 577.3);
        inv.daily.push_back(d);
        auto h = sample_hourly(core::HourlyConclusion::window);
        for (auto& s : h.states)
            s.time -= 12 * 86400;
        h.last_good->time -= 12 * 86400;
        h.first_bad->time -= 12 * 86400;
        inv.hourly.push_back(h);
        inv.regressions.push_back({1, "2023-08-12", "2023-08-13", 1, ""});
    }
    for (const auto& d : inv.daily)
        inv.spend.runs += d.sweep.runs;
    for (const auto& h : inv.hourly) {
        inv.spend.runs += h.spend.runs;
        inv.spend.builds += h.spend.builds;
    }
    inv.spend.seconds = 5400;
    inv.reproduce = {"perfsweep investigate --history h.jsonl --narrow all"};
    return inv;
}

/// `d` in exit-code mode: values are failure indicators, the boundary counts runs.
inline core::DailyResult exit_code_daily() {
    auto d = sample_daily({"2023-08-23", "2023-08-24", "2023-08-25", "2023-08-26"}, 1, 3, 0, 1);
    d.metric = "failed";
    d.unit = "";
    d.sweep.options.comparison = core::ComparisonKind::pass_fail;
    d.direction = core::Direction::lower_is_better;
    for (std::size_t i = 0; i < d.sweep.points.size(); ++i) {
        auto& p = d.sweep.points[i];
        if (p.state != core::StateStatus::unknown)
            continue;
        p.values = i <= 1 ? std::vector<double>{0, 0, 0} : std::vector<double>{1, 1, 1};
        for (auto& m : d.measurements[i]) {
            m.values = p.values;
            m.exit_codes = i <= 1 ? std::vector<int>{0, 0, 0} : std::vector<int>{1, -11, 1};
        }
    }
    auto& b = d.sweep.boundaries.front();
    b.kind = core::ChangeKind::regression;
    b.old_level = 0;
    b.new_level = 1;
    b.relative_change = 1;
    b.runs_before = {6, 0};
    b.runs_after = {0, 3};
    d.failure_logs.push_back({"2023-08-26", "logs/2023-08-26.log", 1,
                              "Traceback (most recent call last):\n  AssertionError\n"});
    return d;
}

} // namespace perfsweep::test
