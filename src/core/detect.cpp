#include "core/detect.hpp"

#include "core/changepoint.hpp"
#include "core/exit_code.hpp"
#include "core/stats.hpp"
#include "util/exit_codes.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

namespace perfsweep::core {

namespace {

struct Point {
    std::string label;
    std::string timestamp; // of the first measurement with this label
    std::vector<double> values;
    std::string failure; // why it is unusable when values stay empty
};

/// Pool measurements by label (first appearance fixes the position).
std::vector<Point> pool_by_label(const std::vector<Measurement>& series) {
    std::vector<Point> points;
    std::map<std::string, std::size_t> index;
    for (const auto& m : series) {
        auto [it, inserted] = index.emplace(m.label, points.size());
        if (inserted)
            points.push_back({m.label, m.timestamp, {}, {}});
        Point& p = points[it->second];
        if (m.status == Status::ok && !m.values.empty()) {
            p.values.insert(p.values.end(), m.values.begin(), m.values.end());
        } else if (p.failure.empty()) {
            std::string why(to_string(m.status));
            if (m.status == Status::ok)
                why = "no values";
            if (!m.reason.empty())
                why += ": " + m.reason;
            p.failure = why;
        }
    }
    return points;
}

/// Chronological key of a label that is a date or an ISO 8601 time.
std::optional<double> time_key(const std::string& label) {
    if (auto d = util::parse_date(label))
        return static_cast<double>(util::days_from_civil(*d)) * 86400.0;
    if (auto t = util::parse_iso8601(label))
        return static_cast<double>(*t);
    return std::nullopt;
}

/// Order points chronologically (stable) when every label is a date or ISO time, else by their
/// timestamps when every point has one, else keep the given (file) order.
void order_points(std::vector<Point>& points) {
    for (bool by_label : {true, false}) {
        std::vector<std::pair<double, std::size_t>> keys;
        for (std::size_t i = 0; i < points.size(); ++i) {
            std::optional<double> k;
            if (by_label)
                k = time_key(points[i].label);
            else if (auto t = util::parse_iso8601(points[i].timestamp))
                k = static_cast<double>(*t);
            if (!k)
                break;
            keys.emplace_back(*k, i);
        }
        if (keys.size() != points.size())
            continue;
        std::stable_sort(keys.begin(), keys.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        std::vector<Point> sorted;
        sorted.reserve(points.size());
        for (const auto& k : keys)
            sorted.push_back(std::move(points[k.second]));
        points = std::move(sorted);
        return;
    }
}

double slice_median(const std::vector<double>& y, std::size_t b, std::size_t e) {
    return median(std::vector<double>(y.begin() + static_cast<std::ptrdiff_t>(b),
                                      y.begin() + static_cast<std::ptrdiff_t>(e)));
}

double slice_mean(const std::vector<double>& y, std::size_t b, std::size_t e) {
    double s = 0;
    for (std::size_t i = b; i < e; ++i)
        s += y[i];
    return s / static_cast<double>(e - b);
}

double relative(double from, double to) {
    const double base = std::fabs(from);
    if (base == 0)
        return to == from ? 0 : std::copysign(std::numeric_limits<double>::infinity(), to - from);
    return (to - from) / base;
}

std::string percent(double r) {
    return (r >= 0 ? "+" : "") + util::format_fixed(100 * r, 2) + " %";
}

std::string number(double v) {
    const double a = std::fabs(v);
    return util::format_fixed(v, a >= 1000 ? 1 : (a >= 10 ? 2 : (a >= 0.1 ? 4 : 6)));
}

} // namespace

DetectResult detect(const std::vector<Measurement>& series, const DetectOptions& options) {
    DetectResult r;
    r.threshold = options.threshold;
    if (!series.empty()) {
        r.benchmark = series.front().benchmark;
        r.metric = series.front().metric;
        r.unit = series.front().unit;
        r.direction = series.front().direction;
    }
    std::vector<Point> points = pool_by_label(series);
    order_points(points);

    std::vector<std::string> labels;
    std::vector<double> y;      // point medians
    std::vector<double> within; // per-point standard error of the median from repeats
    for (auto& p : points) {
        if (p.values.empty()) {
            r.failed.push_back({p.label, p.failure});
            continue;
        }
        labels.push_back(p.label);
        y.push_back(median(p.values));
        if (p.values.size() >= 2) {
            const Summary s = summarize(p.values);
            within.push_back(std::max(s.mad, 0.0) / std::sqrt(static_cast<double>(s.n)));
        }
    }
    const std::size_t n = y.size();
    r.points = n;
    if (n < options.min_points) {
        r.verdict = Verdict::inconclusive;
        r.reason = "only " + std::to_string(n) + " usable point" + (n == 1 ? "" : "s") +
                   "; at least " + std::to_string(options.min_points) + " are needed";
        return r;
    }

    // Noise of one point: day-to-day scatter (successive differences) but never below what the
    // repeats inside a point show. Scale-free: everything below is in units of this.
    const double centre = median(y);
    double sigma = std::max(successive_difference_scale(y), within.empty() ? 0.0 : median(within));
    const double floor = 1e-12 * std::max(std::fabs(centre), 1e-300);
    if (!(sigma > floor))
        sigma = floor;
    r.noise = sigma;
    r.relative_noise = centre != 0 ? sigma / std::fabs(centre) : 0;

    std::vector<bool> replaced;
    const std::vector<double> yf = filter_single_outliers(y, sigma, options.outlier_k, &replaced);
    for (std::size_t i = 0; i < n; ++i)
        if (replaced[i])
            r.outliers.push_back(labels[i]);

    const double penalty = options.penalty_factor * std::log(static_cast<double>(n));
    std::vector<std::size_t> bounds{0};
    for (std::size_t s : fit_steps(yf, sigma, penalty, 2))
        bounds.push_back(s);
    bounds.push_back(n);

    // Merge: drop the weakest change point until every one left is significant and large enough.
    const double dof = std::max(1.0, options.dof_factor * static_cast<double>(n - 1));
    auto evaluate = [&](std::size_t j) { // change between segment j-1 and j (bounds[j])
        const std::size_t a = bounds[j - 1], b = bounds[j], c = bounds[j + 1];
        const double nl = static_cast<double>(b - a), nr = static_cast<double>(c - b);
        const double t =
            (slice_mean(yf, b, c) - slice_mean(yf, a, b)) / (sigma * std::sqrt(1 / nl + 1 / nr));
        const double p = student_t_two_sided_p(t, dof);
        const double rel = relative(slice_median(yf, a, b), slice_median(yf, b, c));
        return std::pair{p, rel};
    };
    while (bounds.size() > 2) {
        std::size_t worst = 0;
        double worst_p = -1, worst_rel = std::numeric_limits<double>::infinity();
        bool by_p = false;
        for (std::size_t j = 1; j + 1 < bounds.size(); ++j) {
            auto [p, rel] = evaluate(j);
            if (p >= options.alpha && p > worst_p) {
                worst = j;
                worst_p = p;
                by_p = true;
            } else if (!by_p && std::fabs(rel) < options.threshold && std::fabs(rel) < worst_rel) {
                worst = j;
                worst_rel = std::fabs(rel);
            }
        }
        if (worst == 0)
            break;
        bounds.erase(bounds.begin() + static_cast<std::ptrdiff_t>(worst));
    }

    for (std::size_t j = 0; j + 1 < bounds.size(); ++j)
        r.segments.push_back({labels[bounds[j]], labels[bounds[j + 1] - 1],
                              bounds[j + 1] - bounds[j],
                              slice_median(yf, bounds[j], bounds[j + 1])});
    for (std::size_t j = 1; j + 1 < bounds.size(); ++j) {
        auto [p, rel] = evaluate(j);
        ChangePoint cp;
        cp.index = bounds[j];
        cp.last_before = labels[bounds[j] - 1];
        cp.first_after = labels[bounds[j]];
        cp.old_level = r.segments[j - 1].level;
        cp.new_level = r.segments[j].level;
        cp.relative_change = rel;
        cp.p_value = p;
        const bool worse = is_better(r.direction, cp.old_level, cp.new_level);
        cp.kind = worse ? ChangeKind::regression : ChangeKind::improvement;
        r.change_points.push_back(cp);
    }

    const Segment& last = r.segments.back();
    if (!r.change_points.empty()) {
        const ChangePoint& cp = r.change_points.back();
        r.verdict = cp.kind == ChangeKind::regression ? Verdict::regression : Verdict::improvement;
        r.reason =
            "the latest level " + number(cp.new_level) + " is " + percent(cp.relative_change) +
            " from " + number(cp.old_level) + " since " + cp.first_after +
            " (last before: " + cp.last_before + ", p " +
            (cp.p_value < 1e-6 ? std::string("< 1e-6") : "= " + util::format_fixed(cp.p_value, 6)) +
            ")";
        const std::size_t k = r.segments.size();
        if (k >= 3 &&
            std::fabs(relative(r.segments[k - 3].level, cp.new_level)) < options.threshold)
            r.reason += "; this is a recovery to the level before " +
                        r.change_points[k - 3].first_after + " (" +
                        number(r.segments[k - 3].level) + ")";
    } else {
        r.verdict = Verdict::no_regression;
        r.reason = "no level shift of at least " + percent(options.threshold).substr(1) + " over " +
                   std::to_string(n) + " points (level " + number(last.level) + ", noise " +
                   percent(r.relative_noise).substr(1) + ")";
    }
    // The newest point alone can be an outlier or the first point of a new level; say so.
    if (replaced[n - 1] && r.verdict == Verdict::no_regression) {
        const double rel = relative(last.level, y[n - 1]);
        if (std::fabs(rel) >= options.threshold) {
            r.verdict = Verdict::inconclusive;
            r.reason = "the latest point " + labels[n - 1] + " (" + number(y[n - 1]) + ") is " +
                       percent(rel) + " from the level " + number(last.level) +
                       "; one point cannot tell an outlier from a new level: measure it again "
                       "or wait for the next point";
        }
    }
    return r;
}

bool is_exit_code_series(const std::vector<Measurement>& series) {
    bool any = false;
    for (const auto& m : series) {
        if (!m.exit_codes.empty())
            any = true;
        else if (m.status == Status::ok && !m.values.empty())
            return false;
    }
    return any;
}

DetectResult detect_failures(const std::vector<Measurement>& series, const DetectOptions& options) {
    DetectResult r;
    r.threshold = options.threshold;
    r.failure_rates = true;
    if (!series.empty()) {
        r.benchmark = series.front().benchmark;
        r.metric = series.front().metric;
        r.unit = series.front().unit;
    }
    r.direction = Direction::lower_is_better; // more failures is worse
    std::vector<Point> points = pool_by_label(series);
    order_points(points);
    std::vector<std::string> labels;
    std::vector<PassFail> counts;
    for (const auto& p : points) {
        if (p.values.empty()) {
            r.failed.push_back({p.label, p.failure});
            continue;
        }
        labels.push_back(p.label);
        counts.push_back(count_pass_fail(p.values));
    }
    const std::size_t n = counts.size();
    r.points = n;
    if (n < options.min_points) {
        r.verdict = Verdict::inconclusive;
        r.reason = "only " + std::to_string(n) + " usable point" + (n == 1 ? "" : "s") +
                   "; at least " + std::to_string(options.min_points) + " are needed";
        return r;
    }
    auto pool = [&](std::size_t from, std::size_t to) { // points [from, to)
        PassFail pf;
        for (std::size_t i = from; i < to; ++i) {
            pf.passed += counts[i].passed;
            pf.failed += counts[i].failed;
        }
        return pf;
    };
    // Segment bounds: 0, each first point of a new level, n.
    std::vector<std::size_t> bounds{0};
    // The scan tries every position: its alpha is shared among them (Bonferroni), so a steady
    // flaky rate does not raise alarms by chance.
    SegmentOptions so;
    so.alpha = options.alpha / static_cast<double>(n);
    so.min_separated_runs = 2;
    so.dips = true; // a failure that went away again (e.g. a broken nightly fixed next week)
    for (std::size_t k : segment_failure_counts(counts, so))
        bounds.push_back(k + 1);
    bounds.push_back(n);
    // Merge the smallest change of rate until every one left reaches the threshold.
    for (;;) {
        std::size_t worst = 0;
        double worst_diff = options.threshold;
        for (std::size_t j = 1; j + 1 < bounds.size(); ++j) {
            const double d = std::fabs(pool(bounds[j], bounds[j + 1]).rate() -
                                       pool(bounds[j - 1], bounds[j]).rate());
            if (d < worst_diff) {
                worst = j;
                worst_diff = d;
            }
        }
        if (worst == 0)
            break;
        bounds.erase(bounds.begin() + static_cast<std::ptrdiff_t>(worst));
    }
    std::vector<PassFail> seg;
    for (std::size_t j = 0; j + 1 < bounds.size(); ++j) {
        seg.push_back(pool(bounds[j], bounds[j + 1]));
        r.segments.push_back({labels[bounds[j]], labels[bounds[j + 1] - 1],
                              bounds[j + 1] - bounds[j], seg.back().rate()});
    }
    for (std::size_t j = 1; j < seg.size(); ++j) {
        ChangePoint cp;
        cp.index = bounds[j];
        cp.last_before = labels[bounds[j] - 1];
        cp.first_after = labels[bounds[j]];
        cp.old_level = seg[j - 1].rate();
        cp.new_level = seg[j].rate();
        cp.relative_change = cp.new_level - cp.old_level;
        cp.p_value = fisher_exact_two_sided(seg[j - 1].failed, seg[j - 1].passed, seg[j].failed,
                                            seg[j].passed);
        cp.kind = cp.new_level > cp.old_level ? ChangeKind::regression : ChangeKind::improvement;
        r.change_points.push_back(cp);
    }
    auto p_text = [](double p) {
        return p < 1e-6 ? std::string("p < 1e-6") : "p = " + util::format_fixed(p, 6);
    };
    if (!r.change_points.empty()) {
        const ChangePoint& cp = r.change_points.back();
        const std::size_t j = seg.size() - 1;
        r.verdict = cp.kind == ChangeKind::regression ? Verdict::regression : Verdict::improvement;
        r.reason = describe_failure_change(seg[j - 1], seg[j]) + " since " + cp.first_after +
                   " (last before: " + cp.last_before + ", " + p_text(cp.p_value) + ")";
    } else {
        const PassFail all = seg.back();
        r.verdict = Verdict::no_regression;
        r.reason = "no change of the failure rate of at least " +
                   util::format_fixed(100 * options.threshold, 0) + " points over " +
                   std::to_string(n) + " points (" + describe_rate(all) + ")";
    }
    // A newest point that fails, with too few runs to be a level of its own, is not silence.
    if (r.verdict != Verdict::regression && n >= 2 && bounds[bounds.size() - 2] < n - 1) {
        const PassFail rest = pool(bounds[bounds.size() - 2], n - 1), last = counts[n - 1];
        if (last.rate() - rest.rate() >= options.threshold && last.failed > 0) {
            r.verdict = Verdict::inconclusive;
            r.reason = "the latest point " + labels[n - 1] + " " + describe_rate(last) +
                       " while the " + std::to_string(n - 1 - bounds[bounds.size() - 2]) +
                       " points before it " + describe_rate(rest) +
                       "; too few runs to tell a flaky failure from a new level: measure it "
                       "again or wait for the next point";
        }
    }
    return r;
}

std::string_view to_string(Verdict v) {
    switch (v) {
    case Verdict::regression:
        return "regression";
    case Verdict::improvement:
        return "improvement";
    case Verdict::no_regression:
        return "no_regression";
    case Verdict::inconclusive:
        break;
    }
    return "inconclusive";
}

} // namespace perfsweep::core
