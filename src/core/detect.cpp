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
    if (auto t = util::parse_date_or_time(label))
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

/// The usable points' medians and the standard errors their repeats give.
struct PointStats {
    std::vector<std::string> labels;
    std::vector<double> y;        // point medians
    std::vector<double> se;       // standard error of a point's median from its repeats (unit)
    std::vector<double> se_at;    // ... and that point's median
    double within_dof = 0;        // degrees of freedom those repeats give
    std::vector<double> unbiased; // se with the MAD's small-sample correction (see Noise)
};

/// Median and repeat standard error of each point with values; the others go to `r.failed`.
PointStats summarize_points(const std::vector<Point>& points, DetectResult& r) {
    PointStats ps;
    for (const auto& p : points) {
        if (p.values.empty()) {
            r.failed.push_back({p.label, p.failure});
            continue;
        }
        ps.labels.push_back(p.label);
        ps.y.push_back(median(p.values));
        if (p.values.size() >= 2) {
            const Summary s = summarize(p.values);
            const double spread = s.mad > 0 ? s.mad : s.stddev;
            ps.se.push_back(1.2533 * spread / std::sqrt(static_cast<double>(s.n)));
            ps.unbiased.push_back(ps.se.back() * (s.mad > 0 ? mad_small_sample_factor(s.n) : 1.0));
            ps.se_at.push_back(ps.y.back());
            ps.within_dof += static_cast<double>(s.n - 1);
        }
    }
    // The spread inside points is an estimate of the noise only when many points have repeats:
    // a label recorded twice in a history of single values (a rerun, 450 then 600) is one
    // point's disagreement, and as the median over the points that have repeats it became
    // every point's noise floor (a -10 % regression read as noise).
    const std::size_t n = ps.y.size();
    if (ps.se.size() < std::max<std::size_t>(3, (n + 1) / 2)) {
        ps.se.clear();
        ps.se_at.clear();
        ps.unbiased.clear();
        ps.within_dof = 0;
    }
    return ps;
}

/// The noise model: the statistics scale (log or unit) and each point's noise scale on it.
struct Noise {
    bool log_scale = false;
    std::vector<double> z; // the point medians on the statistics scale
    double centre = 0;     // median of the point medians (unit)
    double floor = 0;      // the scale that stands for "noise-free"
    double within = 0;     // the repeats' scale (median standard error)
    double scatter = 0;    // the points' scatter (successive differences)
    bool repeats_agree = false;
    std::size_t noise_window = 0;
    double noise_band = 0;

    /// A local scale `x` taken as the global one inside the noise band, never below the floors.
    double clamp(double x, double global) const {
        if (x <= noise_band * global && noise_band * x >= global)
            x = global;
        return std::max({x, within, floor});
    }

    /// Each point's noise scale for the statistics-scale values `v`.
    std::vector<double> point_scales(const std::vector<double>& v) const {
        if (repeats_agree)
            return std::vector<double>(v.size(), std::max({within, scatter, floor}));
        const double global = successive_difference_scale(v);
        std::vector<double> s = local_difference_scales(v, noise_window);
        for (double& x : s)
            x = clamp(x, global);
        return s;
    }
};

/// Noise of one point, per point: the day-to-day scatter around it (successive differences
/// within +-noise_window points, so a noisier stretch gets a larger scale than a quiet one),
/// never below what the repeats inside the points show, nor below a floor that stands for
/// "noise-free" (bytes, instruction counts).
Noise estimate_noise(PointStats& ps, const DetectOptions& options) {
    Noise nm;
    nm.noise_window = options.noise_window;
    nm.noise_band = options.noise_band;
    const std::vector<double>& y = ps.y;
    const std::size_t n = y.size();
    // Statistics run on log(values) when every point is positive: benchmark noise is mostly
    // proportional to the level, so a level 50 times higher is not 50 times "noisier" and a
    // relative threshold is a fixed distance. Levels are reported in the metric's own unit.
    nm.log_scale = *std::min_element(y.begin(), y.end()) > 0;
    nm.z = y;
    if (nm.log_scale) {
        for (double& v : nm.z)
            v = std::log(v);
        for (std::size_t j = 0; j < ps.se.size(); ++j) { // relative, like differences of logs
            ps.se[j] /= ps.se_at[j];
            ps.unbiased[j] /= ps.se_at[j];
        }
    }
    nm.centre = median(y);
    nm.floor = nm.log_scale ? 1e-9 : std::max(1e-9 * std::fabs(nm.centre), 1e-300);
    nm.within = ps.se.empty() ? 0.0 : median(ps.se);
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
    nm.scatter = std::min(trimmed_difference_scale(nm.z), successive_difference_scale(nm.z));
    // The agreement test compares two estimates of one noise, so the repeats' side is corrected
    // for the MAD's small-sample bias (of 3 repeats it is 1.5 too small, which made 3 quiet
    // repeats "disagree" with 3 nights and threw their evidence away); the scale itself keeps the
    // plain MAD (with the correction, noisy few-repeat histories lost real shifts: bench_detect).
    // The repeats' side is their pooled (root-mean-square) standard error: a regression that makes
    // the runs jittery (a host sync) makes the new level's repeats noisier than the old one's, and
    // the median over points would speak for the quiet old level alone.
    double pooled = 0;
    for (double u : ps.unbiased)
        pooled += u * u;
    const double within_unbiased =
        ps.unbiased.empty() ? 0.0 : std::sqrt(pooled / static_cast<double>(ps.unbiased.size()));
    nm.repeats_agree =
        nm.within > 0 &&
        nm.scatter <= within_unbiased * (1 + 2 / std::sqrt(std::max(between_dof, 1.0)));
    return nm;
}

/// The points the step fit uses: those that are not in a short outlier run.
struct Kept {
    std::vector<bool> outlier;     // per usable point
    std::vector<std::size_t> keep; // indexes (into y, labels) of the points the fit uses
    std::vector<double> yf, zf;    // kept points: values and their statistics scale
};

/// Short outlier runs (1-2 points off the level on both sides) are left out of the fit, with
/// nothing put in their place: a good point between two outliers stays a good point.
Kept drop_outliers(const PointStats& ps, const Noise& nm, const DetectOptions& options,
                   DetectResult& r) {
    Kept k;
    OutlierRunOptions oo;
    oo.k = options.outlier_k;
    oo.level_k = options.level_k;
    k.outlier = find_outlier_runs(nm.z, nm.point_scales(nm.z), oo);
    for (std::size_t i = 0; i < ps.y.size(); ++i) {
        if (k.outlier[i])
            r.outliers.push_back(ps.labels[i]);
        else
            k.keep.push_back(i);
    }
    for (std::size_t i : k.keep) {
        k.yf.push_back(ps.y[i]);
        k.zf.push_back(nm.z[i]);
    }
    return k;
}

/// The step fit of the kept points, each weighted by its own noise scale, and the significance
/// tests of its change points.
struct StepFit {
    const std::vector<double>& zf; // kept points, statistics scale
    std::vector<double> sigma;     // their noise scales
    double penalty = 0;
    double dof = 0;
    double alpha = 0;
    std::vector<std::size_t> bounds; // segment starts into zf, then zf.size()

    /// Fit the steps again with the current scales.
    void fit() {
        const std::size_t nf = zf.size();
        std::vector<double> w(nf);
        for (std::size_t i = 0; i < nf; ++i)
            w[i] = 1.0 / (sigma[i] * sigma[i]);
        bounds.assign(1, 0);
        for (std::size_t s : fit_steps_weighted(zf, w, penalty, 2))
            bounds.push_back(s);
        bounds.push_back(nf);
    }

    /// Location of the points [a, e) and the variance of that estimate: the mean for 4 or more
    /// points, the median for 3 (a lone outlier cannot carry it), and for 1-2 points the one
    /// nearest `toward` (both points of a 2-point level must be off, not one outlier and its
    /// neighbour).
    double location(std::size_t a, std::size_t e, double toward, double& var) const {
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
    }

    /// p-value of points [a0,a1) against [b0,b1); the longer side first, the shorter one toward it.
    double test2(std::size_t a0, std::size_t a1, std::size_t b0, std::size_t b1) const {
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
    }

    /// p-value of [a,b) against [b,c).
    double test(std::size_t a, std::size_t b, std::size_t c) const { return test2(a, b, b, c); }

    /// p-value of the change point bounds[j].
    double p_at(std::size_t j) const { return test(bounds[j - 1], bounds[j], bounds[j + 1]); }

    /// p / the alpha it must pass; >= 1: not significant. A 2-point level must pass alpha / 10:
    /// heavy tails make two adjacent large deviations far likelier than Gaussian noise does, while
    /// a real 2-point level (a new one at the end, or a short one in a quiet series) is usually
    /// many noise scales away.
    double weakness(std::size_t j) const {
        const bool two = bounds[j] - bounds[j - 1] == 2 || bounds[j + 1] - bounds[j] == 2;
        return p_at(j) / (two ? alpha / 10 : alpha);
    }

    /// Drop the weakest change point until every one left has p < alpha.
    void prune() {
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
    }
};

/// Noise is a property of a level, not of its neighbours': once significant change points are
/// known, each point's local scale is taken again from windows that stop at them (a quiet
/// level right after a noisy stretch is judged by its own scatter, not the stretch's), then
/// fitted and tested again. A point with no side of enough differences inside its level keeps
/// its first scale.
void refit_within_levels(StepFit& f, const Noise& nm, const DetectOptions& options) {
    if (f.bounds.size() <= 2 || nm.repeats_agree)
        return;
    const std::vector<double> within_levels =
        local_difference_scales(f.zf, options.noise_window, f.bounds);
    const double global = successive_difference_scale(f.zf);
    bool changed = false;
    for (std::size_t i = 0; i < f.zf.size(); ++i) {
        const double x0 = within_levels[i];
        if (!(x0 > 0))
            continue;
        const double x = nm.clamp(x0, global);
        changed = changed || x != f.sigma[i];
        f.sigma[i] = x;
    }
    if (changed) {
        f.fit();
        f.prune();
    }
}

/// Fit, test and prune the change points of the kept points, whose noise scales are `sigma`.
StepFit fit_change_points(const Kept& k, std::vector<double> sigma, const Noise& nm,
                          const PointStats& ps, const DetectOptions& options) {
    const std::size_t nf = k.zf.size();
    StepFit f{k.zf, std::move(sigma), 0, 0, options.alpha, {}};
    // Step fit: each point weighted by its own noise scale.
    f.penalty =
        options.penalty_factor * std::log(static_cast<double>(std::max<std::size_t>(nf, 2)));
    f.fit();
    // Significance: drop the weakest change point until every one left has p < alpha, by a
    // two-sample test of the adjacent segments' levels with their points' own noise scales.
    // Degrees of freedom: a conservative share of the differences the scale comes from, plus
    // those of the repeats when they agree with the scatter (see estimate_noise).
    f.dof = std::max(options.dof_min, options.dof_factor * static_cast<double>(nf - 1) +
                                          (nm.repeats_agree ? ps.within_dof : 0.0));
    f.prune();
    refit_within_levels(f, nm, options);
    return f;
}

/// Size: a change point is reported when the levels just before and after it differ by at
/// least the threshold (or, for a slow drift of small steps, when the level since the last
/// reported change point does). Levels are never recomputed from merged segments, so a small
/// step next to a short dip cannot shrink the dip's own edges below the threshold. Fills the
/// segments and change points of `r`; returns the reported segments' starts (into yf), then nf.
std::vector<std::size_t> report_changes(const StepFit& f, const Kept& k, const PointStats& ps,
                                        const DetectOptions& options, DetectResult& r) {
    const std::vector<std::size_t>& bounds = f.bounds;
    const std::vector<double>& yf = k.yf;
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
            reported.push_back({j, level[j - 1], level[j], f.p_at(j)});
            since = j;
            continue;
        }
        const double so_far = slice_median(yf, bounds[since], bounds[j]);
        if (std::fabs(relative(so_far, level[j])) >= options.threshold) {
            reported.push_back(
                {j, so_far, level[j], f.test(bounds[since], bounds[j], bounds[j + 1])});
            since = j;
        }
    }

    const std::vector<std::string>& labels = ps.labels;
    std::vector<std::size_t> cuts{0}; // into yf
    for (const auto& rep : reported)
        cuts.push_back(bounds[rep.bound]);
    cuts.push_back(yf.size());
    for (std::size_t j = 0; j + 1 < cuts.size(); ++j)
        r.segments.push_back({labels[k.keep[cuts[j]]], labels[k.keep[cuts[j + 1] - 1]],
                              cuts[j + 1] - cuts[j], slice_median(yf, cuts[j], cuts[j + 1])});
    for (const auto& rep : reported) {
        const std::size_t b = bounds[rep.bound];
        ChangePoint cp;
        cp.index = k.keep[b];
        cp.last_before = labels[k.keep[b - 1]];
        cp.first_after = labels[k.keep[b]];
        cp.old_level = rep.old_level;
        cp.new_level = rep.new_level;
        cp.relative_change = relative(rep.old_level, rep.new_level);
        cp.p_value = rep.p;
        cp.kind = is_better(r.direction, cp.old_level, cp.new_level) ? ChangeKind::regression
                                                                     : ChangeKind::improvement;
        r.change_points.push_back(cp);
    }
    return cuts;
}

/// The reference level for the present (the last of `segments`, index k >= 1): an established
/// level the present is back at after a short excursion, else the last established level before
/// the present (shorter ones are an excursion), else the first level.
std::size_t reference_segment(const std::vector<Segment>& segments, std::size_t k,
                              const DetectOptions& options) {
    const Segment& last = segments[k];
    std::size_t away = 0; // points between that level and the present
    for (std::size_t j = k - 1; j-- > 0;) {
        away += segments[j + 1].points;
        if (away > options.excursion_points)
            break;
        if (segments[j].points >= options.established_points &&
            std::fabs(relative(segments[j].level, last.level)) < options.threshold)
            return j;
    }
    for (std::size_t j = k; j-- > 0;)
        if (segments[j].points >= options.established_points)
            return j;
    return 0;
}

std::string p_text(double p) {
    return p < 1e-6 ? std::string("p < 1e-6") : "p = " + util::format_fixed(p, 6);
}

std::string span(const Segment& s) {
    return s.first_label == s.last_label ? s.first_label : s.first_label + ".." + s.last_label;
}

/// The excursion between the reference segment `ref` and the present `k` (empty when none):
/// its span and the level farthest from the reference.
std::string excursion_text(const std::vector<Segment>& segments, std::size_t ref, std::size_t k) {
    if (ref + 1 >= k)
        return {};
    const double reference = segments[ref].level;
    double lo = segments[ref + 1].level, hi = lo;
    for (std::size_t j = ref + 1; j < k; ++j) {
        lo = std::min(lo, segments[j].level);
        hi = std::max(hi, segments[j].level);
    }
    const double far = std::fabs(lo - reference) > std::fabs(hi - reference) ? lo : hi;
    return segments[ref + 1].first_label + ".." + segments[k - 1].last_label + " (" +
           (far < reference ? "down to " : "up to ") + number(far) + ", " +
           percent(relative(reference, far)) + ")";
}

/// Verdict about the present: the newest level against the reference level, and its reason.
void judge_present(const StepFit& f, const std::vector<std::size_t>& cuts, std::size_t n,
                   const DetectOptions& options, DetectResult& r) {
    const std::size_t k = r.segments.size() - 1;
    r.present = r.segments.back();
    const Segment& last = r.present;
    if (k == 0) {
        r.verdict = Verdict::no_regression;
        r.reason = "no level shift of at least " + percent(options.threshold).substr(1) + " over " +
                   std::to_string(n) + " points (level " + number(last.level) + ", noise " +
                   percent(r.relative_noise).substr(1) + ")";
        return;
    }
    const std::size_t ref = reference_segment(r.segments, k, options);
    r.reference = r.segments[ref];
    r.present_change = relative(r.reference.level, last.level);
    const double p = f.test2(cuts[ref], cuts[ref + 1], cuts[k], cuts[k + 1]);
    const ChangePoint& latest = r.change_points.back();
    // Where the present level began: the change point that starts the last segment.
    const std::string present_since = latest.first_after;
    const std::string ref_text = number(r.reference.level) + " (" + span(r.reference) + ", " +
                                 std::to_string(r.reference.points) + " point" +
                                 (r.reference.points == 1 ? "" : "s") + ")";
    const std::string excursion = excursion_text(r.segments, ref, k);
    if (std::fabs(r.present_change) >= options.threshold) {
        r.verdict = is_better(r.direction, r.reference.level, last.level) ? Verdict::regression
                                                                          : Verdict::improvement;
        r.reason = "the latest level " + number(last.level) + " is " + percent(r.present_change) +
                   " from the reference level " + ref_text + " since " + present_since +
                   " (last before: " + latest.last_before + ", " + p_text(p) + ")";
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
                   percent(options.threshold).substr(1) + " of the reference level " + ref_text +
                   " (" + percent(r.present_change) + ")";
    }
}

/// The newest point alone can be an outlier or the first point of a new level; say so.
void flag_latest_outlier(const PointStats& ps, const Kept& k, const DetectOptions& options,
                         DetectResult& r) {
    const std::size_t n = ps.y.size();
    if (!k.outlier[n - 1] || r.verdict != Verdict::no_regression)
        return;
    const Segment& last = r.present;
    const double rel = relative(last.level, ps.y[n - 1]);
    if (std::fabs(rel) >= options.threshold) {
        r.verdict = Verdict::inconclusive;
        r.recovered = false;
        r.reason = "the latest point " + ps.labels[n - 1] + " (" + number(ps.y[n - 1]) + ") is " +
                   percent(rel) + " from the level " + number(last.level) +
                   "; one point cannot tell an outlier from a new level: measure it again "
                   "or wait for the next point";
    }
}

/// A result that names the series (benchmark, metric, unit and direction of its first
/// measurement) and carries the threshold, before any point is judged.
DetectResult named_result(const std::vector<Measurement>& series, const DetectOptions& options) {
    DetectResult r;
    r.threshold = options.threshold;
    if (!series.empty()) {
        r.benchmark = series.front().benchmark;
        r.metric = series.front().metric;
        r.unit = series.front().unit;
        r.direction = series.front().direction;
    }
    return r;
}

/// Records `n` usable points in `r`; with fewer than `options.min_points` the verdict is
/// inconclusive, saying so, and the answer is true (nothing more can be judged).
bool too_few_points(std::size_t n, const DetectOptions& options, DetectResult& r) {
    r.points = n;
    if (n >= options.min_points)
        return false;
    r.verdict = Verdict::inconclusive;
    r.reason = "only " + std::to_string(n) + " usable point" + (n == 1 ? "" : "s") + "; at least " +
               std::to_string(options.min_points) + " are needed";
    return true;
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
    DetectResult r = named_result(series, options);
    std::vector<Point> points = pool_by_label(series);
    r.order = order_points(points, &r.order_note);
    PointStats ps = summarize_points(points, r);
    const std::size_t n = ps.y.size();
    if (too_few_points(n, options, r))
        return r;
    const Noise nm = estimate_noise(ps, options);
    const Kept kept = drop_outliers(ps, nm, options, r);
    std::vector<double> sigma = nm.point_scales(kept.zf); // outliers no longer inflate the scale
    const double noise = median(sigma);
    r.relative_noise = nm.log_scale ? noise : (nm.centre != 0 ? noise / std::fabs(nm.centre) : 0);
    r.noise = nm.log_scale ? noise * std::fabs(nm.centre) : noise;
    const StepFit f = fit_change_points(kept, std::move(sigma), nm, ps, options);
    const std::vector<std::size_t> cuts = report_changes(f, kept, ps, options, r);
    judge_present(f, cuts, n, options, r);
    flag_latest_outlier(ps, kept, options, r);
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
    DetectResult r = named_result(series, options);
    r.failure_rates = true;
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
    if (too_few_points(n, options, r))
        return r;
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
    return util::enum_name(k_point_order_names, o, "file order");
}

std::optional<PointOrder> parse_point_order(std::string_view s) {
    return util::parse_enum(k_point_order_names, s);
}

std::string_view to_string(Verdict v) {
    return util::enum_name(k_verdict_names, v, "inconclusive");
}

std::optional<Verdict> parse_verdict(std::string_view s) {
    return util::parse_enum(k_verdict_names, s);
}

} // namespace perfsweep::core
