#include "core/series_view.hpp"

#include "core/stats.hpp"
#include "util/enum_names.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace perfsweep::core {

namespace {

constexpr util::EnumName<AxisKind> k_axis_kind_names[] = {
    {AxisKind::time, "time"},
    {AxisKind::order, "order"},
};

/// UTC seconds of a label that is a date (its midnight) or an ISO 8601 time.
std::optional<double> view_label_time(const std::string& label) {
    if (auto t = util::parse_date_or_time(label))
        return static_cast<double>(*t);
    return std::nullopt;
}

/// "repo@sha12 repo@sha12".
std::string view_short_commits(const std::map<std::string, std::string>& commits) {
    std::string out;
    for (const auto& [repo, sha] : commits)
        out += (out.empty() ? "" : " ") + repo + "@" + sha.substr(0, 12);
    return out;
}

/// The runner fingerprint in one line: GPU, driver, host, then the rest.
std::string view_runner_line(const std::map<std::string, std::string>& runner) {
    std::vector<std::string> parts;
    for (const char* k : {"gpu", "driver", "hostname"})
        if (auto it = runner.find(k); it != runner.end() && !it->second.empty())
            parts.push_back(std::string(k) == "driver" ? "driver " + it->second : it->second);
    for (const auto& [k, v] : runner)
        if (k != "gpu" && k != "driver" && k != "hostname" && !v.empty())
            parts.push_back(k + " " + v);
    return util::join(parts, " · ");
}

/// What a point's build was made of: build_fingerprint over its records (a copy of only the
/// parts it reads: a history of 10^5 records is not copied whole).
BuildFingerprint view_point_fingerprint(const std::vector<const Measurement*>& rs) {
    std::vector<Measurement> slim(rs.size());
    for (std::size_t i = 0; i < rs.size(); ++i) {
        slim[i].commits = rs[i]->commits;
        slim[i].environment = rs[i]->environment;
        slim[i].digest = rs[i]->digest;
    }
    return build_fingerprint(slim);
}

/// The environment a point's build ran in, as compared between points: the environment
/// fingerprint without image metadata and source commits (they change every nightly), plus the
/// runner's GPU and driver (`runner.gpu`, `runner.driver`).
std::map<std::string, std::string>
view_compared_environment(const BuildFingerprint& fp, const std::vector<const Measurement*>& rs) {
    std::map<std::string, std::string> out;
    for (const auto& [k, v] : fp.environment)
        if (k.rfind("image.", 0) != 0 && k.rfind("label.", 0) != 0 && k.rfind("commit.", 0) != 0)
            out[k] = v;
    for (auto it = rs.rbegin(); it != rs.rend(); ++it) {
        for (const char* k : {"gpu", "driver"})
            if (auto f = (*it)->runner.find(k); f != (*it)->runner.end() && !f->second.empty())
                out.emplace(std::string("runner.") + k, f->second);
    }
    return out;
}

/// Fill a point's values and provenance from its records and their fingerprint.
void view_describe_point(ViewPoint& p, const std::vector<double>& values,
                         const std::vector<const Measurement*>& rs, const BuildFingerprint& fp,
                         bool failure_rates) {
    p.repeats = values.size();
    p.ok = !values.empty();
    if (p.ok) {
        const Summary s = summarize(values);
        p.value = failure_rates ? s.mean : s.median;
        p.low = failure_rates ? s.mean : s.min;
        p.high = failure_rates ? s.mean : s.max;
    }
    for (const auto* m : rs) {
        if (!p.ok && p.problem.empty() && (m->status != Status::ok || m->values.empty())) {
            p.problem = m->status == Status::ok ? "no values" : std::string(to_string(m->status));
            if (!m->reason.empty())
                p.problem += ": " + m->reason;
        }
        if (!m->image.empty())
            p.image = m->image + (m->digest.empty() ? "" : "@" + m->digest);
        if (!m->runner.empty())
            p.runner = view_runner_line(m->runner);
        if (!m->timestamp.empty())
            p.time = m->timestamp;
    }
    p.commits = view_short_commits(fp.commits);
}

/// Marks of the regressions `inv` narrowed, placed with `x_of`.
template <class XOf>
void view_add_narrowed(SeriesView& v, const Investigation& inv, std::size_t index,
                       const XOf& x_of) {
    const auto regressions = inv.regressions.empty() ? default_regressions(inv) : inv.regressions;
    for (const auto& r : regressions) {
        const auto good = x_of(r.last_good), bad = x_of(r.first_bad);
        if (!good || !bad)
            continue;
        ViewNarrowed n;
        n.investigation = index;
        n.last_good = r.last_good;
        n.first_bad = r.first_bad;
        n.good_x = *good;
        n.bad_x = *bad;
        if (r.daily < inv.daily.size()) {
            const auto& d = inv.daily[r.daily];
            if (const auto* b = find_boundary(d, r.last_good, r.first_bad)) {
                n.relative_change = b->relative_change;
                n.cause = std::string(to_string(attribute_boundary(d, *b).cause));
            }
        }
        if (r.hourly && *r.hourly < inv.hourly.size()) {
            const auto& h = inv.hourly[*r.hourly];
            n.conclusion = h.message;
            const bool time_axis = v.axis == AxisKind::time;
            if (h.last_good && h.first_bad) {
                n.has_hour = true;
                n.hour_from = h.last_good->time;
                n.hour_to = h.first_bad->time;
                n.hour_from_x = time_axis ? static_cast<double>(n.hour_from) : n.good_x;
                n.hour_to_x = time_axis ? static_cast<double>(n.hour_to) : n.bad_x;
                n.hour_from_commits = view_short_commits(h.last_good->commits);
                n.hour_to_commits = view_short_commits(h.first_bad->commits);
            }
            const std::string repo =
                h.culprit ? h.culprit->repo
                          : (h.changed_repos.empty() ? std::string() : h.changed_repos.front());
            if (auto it = h.compare_urls.find(repo); it != h.compare_urls.end())
                n.compare_url = it->second;
            if (h.culprit) {
                n.culprit = h.culprit;
                n.culprit_x = time_axis ? static_cast<double>(h.culprit->commit.time)
                                        : (n.good_x + n.bad_x) / 2;
                // The repo's web address: the investigation's, else its compare URL's
                // (https://github.com/O/R/compare/A...B), as the markdown report takes it.
                std::string web;
                if (auto it = inv.repo_urls.find(h.culprit->repo); it != inv.repo_urls.end())
                    web = it->second;
                else if (auto cut = n.compare_url.find("/compare/"); cut != std::string::npos)
                    web = n.compare_url.substr(0, cut);
                if (web.rfind("https://", 0) == 0 || web.rfind("http://", 0) == 0)
                    n.culprit_url = web + "/commit/" + h.culprit->commit.sha;
            }
        }
        v.narrowed.push_back(std::move(n));
    }
}

} // namespace

std::string_view to_string(AxisKind a) {
    return util::enum_name(k_axis_kind_names, a, "order");
}

SeriesKey investigation_series(const Investigation& inv) {
    SeriesKey key{inv.detect.benchmark, inv.detect.metric, {}};
    for (const auto& d : inv.daily) {
        if (key.benchmark.empty())
            key.benchmark = d.benchmark;
        if (key.metric.empty())
            key.metric = d.metric;
        for (const auto& candidate : d.measurements)
            for (const auto& m : candidate)
                if (key.testbed.empty() && !m.runner.empty())
                    key.testbed = testbed_of(m);
    }
    if (key.testbed.empty()) {
        Measurement m;
        m.runner = inv.runner;
        key.testbed = testbed_of(m);
    }
    return key;
}

SeriesView build_series_view(const SeriesKey& key, const std::vector<Measurement>& records,
                             const DetectResult& detected,
                             const std::vector<KeptInvestigation>& kept) {
    SeriesView v;
    v.key = key;
    v.detect = detected;
    v.direction = detected.direction;
    v.unit = detected.unit;
    std::map<std::string, std::vector<const Measurement*>> by_label;
    for (const auto& m : records) {
        by_label[m.label].push_back(&m);
        if (v.unit.empty())
            v.unit = m.unit;
    }
    PointOrder order = PointOrder::file;
    const auto ordered = ordered_points(records, &order);
    v.axis = order == PointOrder::file ? AxisKind::order : AxisKind::time;
    const std::set<std::string> outliers(detected.outliers.begin(), detected.outliers.end());
    std::map<std::string, double> x_of_label;
    std::vector<std::map<std::string, std::string>> environments; // per point
    for (std::size_t i = 0; i < ordered.size(); ++i) {
        const auto& rs = by_label[ordered[i].label];
        const BuildFingerprint fp = view_point_fingerprint(rs);
        environments.push_back(view_compared_environment(fp, rs));
        ViewPoint p;
        p.label = ordered[i].label;
        p.x = static_cast<double>(i);
        if (order == PointOrder::label_time)
            p.x = view_label_time(p.label).value_or(p.x);
        else if (order == PointOrder::timestamp && !rs.empty())
            if (auto t = util::parse_iso8601(rs.front()->timestamp))
                p.x = static_cast<double>(*t);
        view_describe_point(p, ordered[i].values, rs, fp, detected.failure_rates);
        p.outlier = outliers.count(p.label) > 0;
        x_of_label.emplace(p.label, p.x);
        v.points.push_back(std::move(p));
    }
    auto x_of = [&](const std::string& label) -> std::optional<double> {
        if (auto it = x_of_label.find(label); it != x_of_label.end())
            return it->second;
        return v.axis == AxisKind::time ? view_label_time(label) : std::nullopt;
    };
    auto step = [&](const std::string& before, const std::string& after) {
        return ViewStep{x_of(before).value_or(0), x_of(after).value_or(0), before, after};
    };
    for (const auto& s : detected.segments)
        v.levels.push_back({x_of(s.first_label).value_or(0), x_of(s.last_label).value_or(0),
                            s.level, s.points, s.first_label, s.last_label});
    for (const auto& c : detected.change_points)
        v.changes.push_back({step(c.last_before, c.first_after), c.old_level, c.new_level,
                             c.relative_change, c.kind});
    // Environment changes between points whose environment is known.
    std::map<std::string, std::string> prev_env;
    std::string prev_label;
    for (std::size_t i = 0; i < v.points.size(); ++i) {
        const auto& p = v.points[i];
        const auto& env = environments[i];
        if (env.empty())
            continue;
        if (!prev_env.empty()) {
            auto diff = environment_diff(prev_env, env);
            if (!diff.empty())
                v.environment.push_back({step(prev_label, p.label), std::move(diff)});
        }
        prev_env = env;
        prev_label = p.label;
    }
    for (std::size_t i = 0; i < kept.size(); ++i)
        if (investigation_series(kept[i].investigation) == key)
            view_add_narrowed(v, kept[i].investigation, i, x_of);
    for (auto it = v.points.rbegin(); it != v.points.rend(); ++it)
        if (it->ok) {
            v.latest = it->value;
            v.latest_label = it->label;
            break;
        }
    v.level = detected.present.points > 0  ? detected.present.level
              : !detected.segments.empty() ? detected.segments.back().level
                                           : v.latest;
    return v;
}

} // namespace perfsweep::core
