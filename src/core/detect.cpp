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
/// timestamps when every point has one, else keep the given (file) order. Says which; for file
/// order `note` names a label and a point that stopped the other two.
PointOrder order_points(std::vector<Point>& points, std::string* note) {
    std::string first_non_date, first_without_time;
    for (bool by_label : {true, false}) {
        std::vector<std::pair<double, std::size_t>> keys;
        for (std::size_t i = 0; i < points.size(); ++i) {
            std::optional<double> k;
            if (by_label)
                k = time_key(points[i].label);
            else if (auto t = util::parse_iso8601(points[i].timestamp))
                k = static_cast<double>(*t);
            if (!k) {
                (by_label ? first_non_date : first_without_time) = points[i].label;
                break;
            }
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
        return by_label ? PointOrder::label_time : PointOrder::timestamp;
    }
    if (note && !points.empty())
        *note = "label '" + first_non_date.substr(0, 60) + "' is not a date and point '" +
                first_without_time.substr(0, 60) + "' has no timestamp";
    return PointOrder::file;
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

/// Consistency factor of the (1.4826-scaled) MAD for n values (Croux and Rousseeuw, 1992): the
/// MAD of a few repeats is biased low (of 3 normal values by a factor 1.5: one deviation is 0),
/// which made 3 repeats look quieter than the nights around them and threw their evidence away.
double mad_small_sample_factor(std::size_t n) {
    static constexpr double b[] = {1.196, 1.495, 1.363, 1.206, 1.200, 1.140, 1.129, 1.107};
    if (n >= 2 && n <= 9)
        return b[n - 2];
    return n > 9 ? static_cast<double>(n) / (static_cast<double>(n) - 0.8) : 1.0;
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

std::vector<SeriesPoint> ordered_points(const std::vector<Measurement>& series, PointOrder* order) {
    std::vector<Point> points = pool_by_label(series);
    const PointOrder o = order_points(points, nullptr);
    if (order)
        *order = o;
    std::vector<SeriesPoint> out;
    out.reserve(points.size());
    for (auto& p : points)
        out.push_back({std::move(p.label), std::move(p.values)});
    return out;
}

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
    r.order = order_points(points, &r.order_note);

    std::vector<std::string> labels;
    std::vector<double> y;        // point medians
    std::vector<double> se;       // standard error of a point's median from its repeats (unit)
    std::vector<double> se_at;    // ... and that point's median
    double within_dof = 0;        // degrees of freedom those repeats give
    std::vector<double> unbiased; // se with the MAD's small-sample correction (see below)
    for (auto& p : points) {
        if (p.values.empty()) {
            r.failed.push_back({p.label, p.failure});
            continue;
        }
        labels.push_back(p.label);
        y.push_back(median(p.values));
        if (p.values.size() >= 2) {
            const Summary s = summarize(p.values);
            const double spread = s.mad > 0 ? s.mad : s.stddev;
            se.push_back(1.2533 * spread / std::sqrt(static_cast<double>(s.n)));
            unbiased.push_back(se.back() * (s.mad > 0 ? mad_small_sample_factor(s.n) : 1.0));
            se_at.push_back(y.back());
            within_dof += static_cast<double>(s.n - 1);
        }
    }
    const std::size_t n = y.size();
    r.points = n;
    // The spread inside points is an estimate of the noise only when many points have repeats:
    // a label recorded twice in a history of single values (a rerun, 450 then 600) is one
    // point's disagreement, and as the median over the points that have repeats it became
    // every point's noise floor (a -10 % regression read as noise).
    if (se.size() < std::max<std::size_t>(3, (n + 1) / 2)) {
        se.clear();
        se_at.clear();
        unbiased.clear();
        within_dof = 0;
    }
    if (n < options.min_points) {
        r.verdict = Verdict::inconclusive;
        r.reason = "only " + std::to_string(n) + " usable point" + (n == 1 ? "" : "s") +
                   "; at least " + std::to_string(options.min_points) + " are needed";
        return r;
    }

    // Statistics run on log(values) when every point is positive: benchmark noise is mostly
    // proportional to the level, so a level 50 times higher is not 50 times "noisier" and a
    // relative threshold is a fixed distance. Levels are reported in the metric's own unit.
    const bool log_scale = *std::min_element(y.begin(), y.end()) > 0;
    std::vector<double> z = y;
    if (log_scale) {
        for (double& v : z)
            v = std::log(v);
        for (std::size_t j = 0; j < se.size(); ++j) { // relative, like differences of logs
            se[j] /= se_at[j];
            unbiased[j] /= se_at[j];
        }
    }
    // Noise of one point, per point: the day-to-day scatter around it (successive differences
    // within +-noise_window points, so a noisier stretch gets a larger scale than a quiet one),
    // never below what the repeats inside the points show, nor below a floor that stands for
    // "noise-free" (bytes, instruction counts).
    const double centre = median(y);
    const double floor = log_scale ? 1e-9 : std::max(1e-9 * std::fabs(centre), 1e-300);
    const double within = se.empty() ? 0.0 : median(se);
    // The local scale counts only where it differs from the whole series' scale by more than a
    // factor noise_band (a quiet or a noisy stretch); within that band it is mostly sampling error,
    // and a dip's own edges would inflate it exactly where the dip is. When the points scatter no
    // more than their repeats say (allowing for the uncertainty of a scatter estimate from few
    // differences), the repeats measure the same noise: then every point gets that one scale, and
    // the repeats' degrees of freedom count (a few nightlies with 5 repeats each are evidence).
    const double between_dof = options.dof_factor * static_cast<double>(n - 1);
    // (The smaller of a trimmed-mean and a median scale of the differences: with a handful of
    // nights one step is a fifth of the differences, and the trimmed mean alone counts it as
    // scatter.)
    const double scatter = std::min(trimmed_difference_scale(z), successive_difference_scale(z));
    // The agreement test compares two estimates of one noise, so the repeats' side is corrected
    // for the MAD's small-sample bias (of 3 repeats it is 1.5 too small, which made 3 quiet
    // repeats "disagree" with 3 nights and threw their evidence away); the scale itself keeps the
    // plain MAD (with the correction, noisy few-repeat histories lost real shifts: bench_detect).
    // The repeats' side is their pooled (root-mean-square) standard error: a regression that makes
    // the runs jittery (a host sync) makes the new level's repeats noisier than the old one's, and
    // the median over points would speak for the quiet old level alone.
    double pooled = 0;
    for (double u : unbiased)
        pooled += u * u;
    const double within_unbiased =
        unbiased.empty() ? 0.0 : std::sqrt(pooled / static_cast<double>(unbiased.size()));
    const bool repeats_agree =
        within > 0 && scatter <= within_unbiased * (1 + 2 / std::sqrt(std::max(between_dof, 1.0)));
    auto point_scales = [&](const std::vector<double>& v) {
        if (repeats_agree)
            return std::vector<double>(v.size(), std::max({within, scatter, floor}));
        const double global = successive_difference_scale(v);
        std::vector<double> s = local_difference_scales(v, options.noise_window);
        for (double& x : s) {
            if (x <= options.noise_band * global && options.noise_band * x >= global)
                x = global;
            x = std::max({x, within, floor});
        }
        return s;
    };

    // Short outlier runs (1-2 points off the level on both sides) are left out of the fit, with
    // nothing put in their place: a good point between two outliers stays a good point.
    OutlierRunOptions oo;
    oo.k = options.outlier_k;
    oo.level_k = options.level_k;
    const std::vector<bool> outlier = find_outlier_runs(z, point_scales(z), oo);
    std::vector<std::size_t> keep; // indexes (into y, labels) of the points the fit uses
    for (std::size_t i = 0; i < n; ++i) {
        if (outlier[i])
            r.outliers.push_back(labels[i]);
        else
            keep.push_back(i);
    }
    std::vector<double> yf, zf; // kept points: values and their statistics scale
    for (std::size_t i : keep) {
        yf.push_back(y[i]);
        zf.push_back(z[i]);
    }
    const std::size_t nf = yf.size();
    std::vector<double> sigma = point_scales(zf); // outliers no longer inflate the scale
    r.relative_noise =
        log_scale ? median(sigma) : (centre != 0 ? median(sigma) / std::fabs(centre) : 0);
    r.noise = log_scale ? median(sigma) * std::fabs(centre) : median(sigma);

    // Step fit: each point weighted by its own noise scale.
    const double penalty =
        options.penalty_factor * std::log(static_cast<double>(std::max<std::size_t>(nf, 2)));
    std::vector<std::size_t> bounds;
    auto fit = [&] {
        std::vector<double> w(nf);
        for (std::size_t i = 0; i < nf; ++i)
            w[i] = 1.0 / (sigma[i] * sigma[i]);
        bounds.assign(1, 0);
        for (std::size_t s : fit_steps_weighted(zf, w, penalty, 2))
            bounds.push_back(s);
        bounds.push_back(nf);
    };
    fit();

    // Significance: drop the weakest change point until every one left has p < alpha, by a
    // two-sample test of the adjacent segments' levels with their points' own noise scales.
    // Degrees of freedom: a conservative share of the differences the scale comes from, plus
    // those of the repeats when they agree with the scatter (see above).
    const double dof = std::max(options.dof_min, options.dof_factor * static_cast<double>(nf - 1) +
                                                     (repeats_agree ? within_dof : 0.0));
    // Location of the points [a, e) and the variance of that estimate: the mean for 4 or more
    // points, the median for 3 (a lone outlier cannot carry it), and for 1-2 points the one
    // nearest `toward` (both points of a 2-point level must be off, not one outlier and its
    // neighbour).
    auto location = [&](std::size_t a, std::size_t e, double toward, double& var) {
        const std::size_t len = e - a;
        double v = 0;
        for (std::size_t i = a; i < e; ++i)
            v += sigma[i] * sigma[i];
        if (len >= 4) {
            var = v / static_cast<double>(len * len);
            return slice_mean(zf, a, e);
        }
        if (len == 3) {
            var = 1.5708 * v / 9.0;
            return slice_median(zf, a, e);
        }
        std::size_t best = a;
        for (std::size_t i = a; i < e; ++i)
            if (std::fabs(zf[i] - toward) < std::fabs(zf[best] - toward))
                best = i;
        var = sigma[best] * sigma[best];
        return zf[best];
    };
    auto test2 = [&](std::size_t a0, std::size_t a1, std::size_t b0, std::size_t b1) {
        // points [a0,a1) against [b0,b1); the longer side first, the shorter one toward it
        double va = 0, vb = 0;
        double la = 0, lb = 0;
        if (a1 - a0 >= b1 - b0) {
            la = location(a0, a1, 0, va);
            lb = location(b0, b1, la, vb);
        } else {
            lb = location(b0, b1, 0, vb);
            la = location(a0, a1, lb, va);
        }
        return student_t_two_sided_p((lb - la) / std::sqrt(va + vb), dof);
    };
    auto test = [&](std::size_t a, std::size_t b, std::size_t c) { return test2(a, b, b, c); };
    auto p_at = [&](std::size_t j) { return test(bounds[j - 1], bounds[j], bounds[j + 1]); };
    // A 2-point level must pass alpha / 10: heavy tails make two adjacent large deviations far
    // likelier than Gaussian noise does, while a real 2-point level (a new one at the end, or a
    // short one in a quiet series) is usually many noise scales away.
    auto weakness = [&](std::size_t j) { // p / the alpha it must pass; >= 1: not significant
        const bool two = bounds[j] - bounds[j - 1] == 2 || bounds[j + 1] - bounds[j] == 2;
        return p_at(j) / (two ? options.alpha / 10 : options.alpha);
    };
    auto prune = [&] {
        while (bounds.size() > 2) {
            std::size_t worst = 0;
            double worst_p = 1;
            for (std::size_t j = 1; j + 1 < bounds.size(); ++j)
                if (const double q = weakness(j); q >= worst_p) {
                    worst = j;
                    worst_p = q;
                }
            if (worst == 0)
                break;
            bounds.erase(bounds.begin() + static_cast<std::ptrdiff_t>(worst));
        }
    };
    prune();
    // Noise is a property of a level, not of its neighbours': once significant change points are
    // known, each point's local scale is taken again from windows that stop at them (a quiet
    // level right after a noisy stretch is judged by its own scatter, not the stretch's), then
    // fitted and tested again. A point with no side of enough differences inside its level keeps
    // its first scale.
    if (bounds.size() > 2 && !repeats_agree) {
        const std::vector<double> within_levels =
            local_difference_scales(zf, options.noise_window, bounds);
        const double global = successive_difference_scale(zf);
        bool changed = false;
        for (std::size_t i = 0; i < nf; ++i) {
            double x = within_levels[i];
            if (!(x > 0))
                continue;
            if (x <= options.noise_band * global && options.noise_band * x >= global)
                x = global;
            x = std::max({x, within, floor});
            changed = changed || x != sigma[i];
            sigma[i] = x;
        }
        if (changed) {
            fit();
            prune();
        }
    }

    // Size: a change point is reported when the levels just before and after it differ by at
    // least the threshold (or, for a slow drift of small steps, when the level since the last
    // reported change point does). Levels are never recomputed from merged segments, so a small
    // step next to a short dip cannot shrink the dip's own edges below the threshold.
    const std::size_t m = bounds.size() - 1; // statistically distinct segments
    std::vector<double> level(m);
    for (std::size_t j = 0; j < m; ++j)
        level[j] = slice_median(yf, bounds[j], bounds[j + 1]);
    struct Reported {
        std::size_t bound; // index into bounds
        double old_level, new_level, p;
    };
    std::vector<Reported> reported;
    std::size_t since = 0; // first segment of the current reported level
    for (std::size_t j = 1; j < m; ++j) {
        if (std::fabs(relative(level[j - 1], level[j])) >= options.threshold) {
            reported.push_back({j, level[j - 1], level[j], p_at(j)});
            since = j;
            continue;
        }
        const double so_far = slice_median(yf, bounds[since], bounds[j]);
        if (std::fabs(relative(so_far, level[j])) >= options.threshold) {
            reported.push_back(
                {j, so_far, level[j], test(bounds[since], bounds[j], bounds[j + 1])});
            since = j;
        }
    }

    std::vector<std::size_t> cuts{0}; // into yf
    for (const auto& rep : reported)
        cuts.push_back(bounds[rep.bound]);
    cuts.push_back(nf);
    for (std::size_t j = 0; j + 1 < cuts.size(); ++j)
        r.segments.push_back({labels[keep[cuts[j]]], labels[keep[cuts[j + 1] - 1]],
                              cuts[j + 1] - cuts[j], slice_median(yf, cuts[j], cuts[j + 1])});
    for (const auto& rep : reported) {
        const std::size_t b = bounds[rep.bound];
        ChangePoint cp;
        cp.index = keep[b];
        cp.last_before = labels[keep[b - 1]];
        cp.first_after = labels[keep[b]];
        cp.old_level = rep.old_level;
        cp.new_level = rep.new_level;
        cp.relative_change = relative(rep.old_level, rep.new_level);
        cp.p_value = rep.p;
        cp.kind = is_better(r.direction, cp.old_level, cp.new_level) ? ChangeKind::regression
                                                                     : ChangeKind::improvement;
        r.change_points.push_back(cp);
    }

    // Verdict about the present: the newest level against the reference level.
    const std::size_t k = r.segments.size() - 1;
    r.present = r.segments.back();
    const Segment& last = r.present;
    auto p_text = [](double p) {
        return p < 1e-6 ? std::string("p < 1e-6") : "p = " + util::format_fixed(p, 6);
    };
    auto span = [&](const Segment& s) {
        return s.first_label == s.last_label ? s.first_label : s.first_label + ".." + s.last_label;
    };
    if (k == 0) {
        r.verdict = Verdict::no_regression;
        r.reason = "no level shift of at least " + percent(options.threshold).substr(1) + " over " +
                   std::to_string(n) + " points (level " + number(last.level) + ", noise " +
                   percent(r.relative_noise).substr(1) + ")";
    } else {
        // A return: an established level the present is back at, after a short excursion.
        std::size_t ref = k;
        std::size_t away = 0; // points between that level and the present
        for (std::size_t j = k - 1; j-- > 0;) {
            away += r.segments[j + 1].points;
            if (away > options.excursion_points)
                break;
            if (r.segments[j].points >= options.established_points &&
                std::fabs(relative(r.segments[j].level, last.level)) < options.threshold) {
                ref = j;
                break;
            }
        }
        // Otherwise the last established level before the present (shorter ones are an
        // excursion), else the first level.
        if (ref == k) {
            ref = 0;
            for (std::size_t j = k; j-- > 0;)
                if (r.segments[j].points >= options.established_points) {
                    ref = j;
                    break;
                }
        }
        r.reference = r.segments[ref];
        r.present_change = relative(r.reference.level, last.level);
        const double p = test2(cuts[ref], cuts[ref + 1], cuts[k], cuts[k + 1]);
        const ChangePoint& latest = r.change_points.back();
        // Where the present level began: the change point that starts the last segment.
        const std::string present_since = latest.first_after;
        const std::string ref_text = number(r.reference.level) + " (" + span(r.reference) + ", " +
                                     std::to_string(r.reference.points) + " point" +
                                     (r.reference.points == 1 ? "" : "s") + ")";
        // An excursion: the segments between the reference and the present.
        std::string excursion;
        if (ref + 1 < k) {
            double lo = r.segments[ref + 1].level, hi = lo;
            for (std::size_t j = ref + 1; j < k; ++j) {
                lo = std::min(lo, r.segments[j].level);
                hi = std::max(hi, r.segments[j].level);
            }
            const double far =
                std::fabs(lo - r.reference.level) > std::fabs(hi - r.reference.level) ? lo : hi;
            excursion = r.segments[ref + 1].first_label + ".." + r.segments[k - 1].last_label +
                        " (" + (far < r.reference.level ? "down to " : "up to ") + number(far) +
                        ", " + percent(relative(r.reference.level, far)) + ")";
        }
        if (std::fabs(r.present_change) >= options.threshold) {
            r.verdict = is_better(r.direction, r.reference.level, last.level)
                            ? Verdict::regression
                            : Verdict::improvement;
            r.reason = "the latest level " + number(last.level) + " is " +
                       percent(r.present_change) + " from the reference level " + ref_text +
                       " since " + present_since + " (last before: " + latest.last_before + ", " +
                       p_text(p) + ")";
            if (!excursion.empty())
                r.reason += "; after an excursion " + excursion;
            // Say when the present is a return to an older established level.
            for (std::size_t j = ref; j-- > 0;)
                if (r.segments[j].points >= options.established_points &&
                    std::fabs(relative(r.segments[j].level, last.level)) < options.threshold) {
                    r.reason += "; it is back at the level of " + span(r.segments[j]) + " (" +
                                number(r.segments[j].level) + ")";
                    break;
                }
        } else if (!excursion.empty()) {
            r.verdict = Verdict::no_regression;
            r.recovered = true;
            r.reason = "recovered: the latest level " + number(last.level) + " (since " +
                       present_since + ") is within " + percent(options.threshold).substr(1) +
                       " of the reference level " + ref_text + " after the excursion " + excursion;
        } else {
            r.verdict = Verdict::no_regression;
            r.reason = "the latest level " + number(last.level) + " is within " +
                       percent(options.threshold).substr(1) + " of the reference level " +
                       ref_text + " (" + percent(r.present_change) + ")";
        }
    }
    // The newest point alone can be an outlier or the first point of a new level; say so.
    if (outlier[n - 1] && r.verdict == Verdict::no_regression) {
        const double rel = relative(last.level, y[n - 1]);
        if (std::fabs(rel) >= options.threshold) {
            r.verdict = Verdict::inconclusive;
            r.recovered = false;
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
    r.order = order_points(points, &r.order_note);
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

std::string_view to_string(PointOrder o) {
    switch (o) {
    case PointOrder::label_time:
        return "label dates";
    case PointOrder::timestamp:
        return "timestamps";
    case PointOrder::file:
        break;
    }
    return "file order";
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
