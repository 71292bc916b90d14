// The dashboard's pure layers: what core::build_series_view places on a series' axis (points,
// levels, change points, environment changes, the marks of an investigation) and what
// report/dashboard_* draw from it (the chart's marks at those places, axes, the pages, escaping,
// self-containment). The browser draws the same files in tests/browser/check_dashboard.js.
#include "core/series_view.hpp"
#include "report/dashboard_chart.hpp"
#include "report/dashboard_html.hpp"
#include "report/markdown.hpp"
#include "util/strings.hpp"
#include "util/time.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <regex>
#include <string>
#include <vector>

using namespace perfsweep;

namespace {

double day(const std::string& date) {
    return static_cast<double>(util::days_from_civil(*util::parse_date(date))) * 86400.0;
}

/// A nightly series of `levels.size()` points from 2024-05-01, one record each with three
/// repeats around the level, commits, image and runner; `env` changes cuda from point `cuda_at`.
std::vector<core::Measurement> nightly_series(const std::vector<double>& levels,
                                              std::size_t cuda_at,
                                              const std::string& gpu = "NVIDIA H100 80GB HBM3") {
    std::vector<core::Measurement> out;
    for (std::size_t i = 0; i < levels.size(); ++i) {
        core::Measurement m;
        m.benchmark = "lbm <b>";
        m.metric = "MLUPS";
        m.unit = "MLUPS";
        m.label = util::format_date(
            util::add_days(*util::parse_date("2024-05-01"), static_cast<long>(i)));
        m.values = {levels[i] * 0.999, levels[i], levels[i] * 1.001};
        m.image = "nightly:" + m.label;
        m.digest =
            "sha256:" + std::to_string(i); // changes every night: never an environment change
        m.commits["xla"] = std::string(40, static_cast<char>('a' + i % 6));
        m.runner = {
            {"gpu", gpu}, {"driver", "550.54"}, {"hostname", "node-" + std::to_string(i % 2)}};
        m.environment = {{"cuda", i < cuda_at ? "12.2" : "12.4"}, {"image.created", m.label}};
        m.timestamp = m.label + "T07:00:00Z";
        out.push_back(m);
    }
    return out;
}

/// An investigation of `series`' drop between 2024-05-13 and 05-14, narrowed to an hour and a
/// culprit commit.
core::Investigation narrowed(const std::vector<core::Measurement>& series) {
    core::Investigation inv;
    inv.verdict = core::Verdict::regression;
    inv.detect = core::detect(series);
    core::DailyResult d;
    d.benchmark = series.front().benchmark;
    d.metric = "MLUPS";
    for (const auto& m : series) {
        if (m.label < "2024-05-12" || m.label > "2024-05-15")
            continue;
        core::SweepPoint p;
        p.label = m.label;
        p.state = core::StateStatus::unknown;
        p.values = m.values;
        d.sweep.points.push_back(p);
        d.measurements.push_back({m});
    }
    core::Boundary b;
    b.last_before = 1; // 2024-05-13
    b.first_after = 2;
    b.relative_change = -0.07;
    b.kind = core::ChangeKind::regression;
    d.sweep.boundaries.push_back(b);
    inv.daily.push_back(d);
    core::HourlyResult h;
    h.conclusion = core::HourlyConclusion::culprit;
    h.last_good = core::WindowEnd{static_cast<util::UnixSeconds>(day("2024-05-13") + 13 * 3600),
                                  {{"xla", "1111111"}}};
    h.first_bad = core::WindowEnd{static_cast<util::UnixSeconds>(day("2024-05-13") + 14 * 3600),
                                  {{"xla", "2222222"}}};
    h.compare_urls["xla"] = "https://github.com/acme/xla/compare/1111111...2222222";
    core::Culprit c;
    c.repo = "xla";
    c.commit.sha = "2222222222222222222222222222222222222222";
    c.commit.time = static_cast<util::UnixSeconds>(day("2024-05-13") + 13 * 3600 + 600);
    c.commit.subject = "Vectorize </script><script>alert(1)</script>";
    h.culprit = c;
    inv.hourly.push_back(h);
    inv.regressions.push_back({0, "2024-05-13", "2024-05-14", 0, ""});
    inv.repo_urls["xla"] = "https://github.com/acme/xla";
    return inv;
}

std::vector<double> drop_at(std::size_t n, std::size_t at) {
    std::vector<double> v;
    for (std::size_t i = 0; i < n; ++i)
        v.push_back(i < at ? 577.0 : 536.6);
    return v;
}

/// The numeric attribute `name` of the first element of `svg` matching `element_start` (e.g.
/// "<rect class=\"mk-hour\"").
double attr_of(const std::string& svg, const std::string& element_start, const std::string& name) {
    const auto at = svg.find(element_start);
    REQUIRE(at != std::string::npos);
    const auto end = svg.find('>', at);
    const std::regex re(" " + name + "=\"(-?[0-9.]+)\"");
    std::smatch m;
    const std::string tag = svg.substr(at, end - at);
    REQUIRE(std::regex_search(tag, m, re));
    return std::stod(m[1]);
}

} // namespace

TEST_CASE(
    "a series view puts points, levels, changes and an investigation's marks on its time axis",
    "[report][dashboard]") {
    const auto series = nightly_series(drop_at(20, 13), 16); // 2024-05-14 is the first bad night
    const auto detected = core::detect(series);
    const auto key = core::series_key(series.front());
    std::vector<core::KeptInvestigation> kept{{"inv-1", narrowed(series)}};
    // An investigation of another testbed's series is not this series'.
    auto other = nightly_series(drop_at(20, 13), 16, "NVIDIA A100-SXM4-80GB");
    kept.push_back({"inv-2", narrowed(other)});
    const auto v = core::build_series_view(key, series, detected, kept);

    CHECK(v.axis == core::AxisKind::time);
    REQUIRE(v.points.size() == 20);
    CHECK(v.points[3].x == day("2024-05-04"));
    CHECK(v.points[3].value == Approx(577.0));
    CHECK(v.points[3].low == Approx(577.0 * 0.999));
    CHECK(v.points[3].repeats == 3);
    CHECK(v.points[3].commits == "xla@dddddddddddd");
    CHECK(v.points[3].image == "nightly:2024-05-04@sha256:3");
    CHECK(v.points[3].runner == "NVIDIA H100 80GB HBM3 · driver 550.54 · node-1");
    REQUIRE(v.changes.size() == 1);
    CHECK(v.changes[0].at.last_before == "2024-05-13");
    CHECK(v.changes[0].at.x_after == day("2024-05-14"));
    CHECK(v.changes[0].kind == core::ChangeKind::regression);
    REQUIRE(v.levels.size() == 2);
    CHECK(v.levels[1].x_from == day("2024-05-14"));
    CHECK(v.level == Approx(536.6));
    // The cuda change is one environment change; the digest and image metadata that change every
    // night are not.
    REQUIRE(v.environment.size() == 1);
    CHECK(v.environment[0].at.first_after == "2024-05-17");
    REQUIRE(v.environment[0].changes.size() == 1);
    CHECK(v.environment[0].changes[0].component == "cuda");
    // Only this testbed's investigation, with its hour window and culprit in time.
    REQUIRE(v.narrowed.size() == 1);
    const auto& n = v.narrowed[0];
    CHECK(n.investigation == 0);
    CHECK(n.good_x == day("2024-05-13"));
    CHECK(n.bad_x == day("2024-05-14"));
    CHECK(n.relative_change == -0.07);
    CHECK(n.has_hour);
    CHECK(n.hour_from_x == day("2024-05-13") + 13 * 3600);
    CHECK(n.hour_to_x == day("2024-05-13") + 14 * 3600);
    REQUIRE(n.culprit);
    CHECK(n.culprit_x == day("2024-05-13") + 13 * 3600 + 600);
    CHECK(n.culprit_url ==
          "https://github.com/acme/xla/commit/2222222222222222222222222222222222222222");
    CHECK(n.compare_url == "https://github.com/acme/xla/compare/1111111...2222222");
    CHECK(core::investigation_series(kept[1].investigation).testbed == "A100-SXM4-80GB");
}

TEST_CASE(
    "points of a failed nightly are broken, not values; labels that are not times are ordered",
    "[report][dashboard]") {
    auto series = nightly_series({100, 101, 99, 100}, 99);
    series[2].status = core::Status::failed;
    series[2].values.clear();
    series[2].reason = "exit 139";
    auto v = core::build_series_view(core::series_key(series[0]), series, core::detect(series), {});
    CHECK_FALSE(v.points[2].ok);
    CHECK(v.points[2].problem == "failed: exit 139");
    CHECK(v.latest_label == "2024-05-04");
    for (auto& m : series) {
        m.label = "run " + m.label;
        m.timestamp.clear();
    }
    v = core::build_series_view(core::series_key(series[0]), series, core::detect(series), {});
    CHECK(v.axis == core::AxisKind::order);
    CHECK(v.points[3].x == 3);
}

TEST_CASE("time ticks fall on round times with the day or year where it changes",
          "[report][dashboard]") {
    const double may13 = day("2024-05-13");
    auto hours = report::time_ticks(may13 + 3600 * 10.5, may13 + 3600 * 26, 9);
    REQUIRE(hours.size() == 8); // 12:00, 14:00, ..., 02:00 every 2 h
    CHECK(hours[0].value == may13 + 12 * 3600);
    CHECK(hours[0].label == "12:00");
    CHECK(hours[0].sublabel == "May 13");
    CHECK(hours[1].sublabel.empty());
    CHECK(hours[6].label == "00:00");
    CHECK(hours[6].sublabel == "May 14");
    auto days = report::time_ticks(day("2023-12-25"), day("2024-01-06"), 8);
    CHECK(days[0].label == "Dec 25"); // every second day from the epoch
    CHECK(days[0].sublabel == "2023");
    CHECK(
        std::any_of(days.begin(), days.end(), [](const auto& t) { return t.sublabel == "2024"; }));
    auto years = report::time_ticks(day("2019-03-01"), day("2025-06-22"), 8);
    CHECK(years.front().label == "2020");
    for (const auto& t : years)
        CHECK(util::format_iso8601(static_cast<util::UnixSeconds>(t.value)).substr(4) ==
              "-01-01T00:00:00Z");
}

TEST_CASE("value ticks enclose the range at round steps; large values get a suffix",
          "[report][dashboard]") {
    auto t = report::value_ticks(521.3, 579.2, 6);
    CHECK(t.front().value <= 521.3);
    CHECK(t.back().value >= 579.2);
    CHECK(t.front().label == "520");
    CHECK(t[1].label == "540");
    auto big = report::value_ticks(1.4e9, 4.4e9, 6);
    CHECK(big.front().label == "1G");
    CHECK(big[1].label == "2G");
    CHECK(report::value_ticks(1.4e9, 2.6e9, 6)[1].label == "1.50G"); // steps of 0.25G
    auto small = report::value_ticks(0.0121, 0.0129, 5);
    CHECK(small[1].label == "0.0122");
    CHECK(report::value_text(1599882582.7) == "1,599,882,583");
    CHECK(report::value_text(-45352.25) == "-45,352.2");
    CHECK(report::value_text(525.944) == "525.94");
}

TEST_CASE("the chart draws each mark where the view places it, on the scale it declares",
          "[report][dashboard]") {
    const auto series = nightly_series(drop_at(20, 13), 16);
    const std::vector<core::KeptInvestigation> kept{{"inv-1", narrowed(series)}};
    const auto v =
        core::build_series_view(core::series_key(series[0]), series, core::detect(series), kept);
    report::ChartOptions o;
    o.report_links = {"../investigations/inv-1.html"};
    const std::string svg = report::render_series_chart(v, o);
    const double x0 = attr_of(svg, "<svg", "data-x0"), x1 = attr_of(svg, "<svg", "data-x1");
    const double t0 = attr_of(svg, "<svg", "data-t0"), t1 = attr_of(svg, "<svg", "data-t1");
    auto px = [&](double t) { return x0 + (t - t0) / (t1 - t0) * (x1 - x0); };
    CHECK(attr_of(svg, "<rect class=\"mk-nightly\"", "x") ==
          Approx(px(day("2024-05-13"))).margin(0.06));
    CHECK(attr_of(svg, "<rect class=\"mk-nightly\"", "width") ==
          Approx(px(day("2024-05-14")) - px(day("2024-05-13"))).margin(0.11));
    CHECK(attr_of(svg, "<rect class=\"mk-hour\"", "x") ==
          Approx(px(day("2024-05-13") + 13 * 3600)).margin(0.06));
    CHECK(attr_of(svg, "<line class=\"mk-culprit\"", "x1") ==
          Approx(px(day("2024-05-13") + 13 * 3600 + 600)).margin(0.06));
    CHECK(attr_of(svg, "<line class=\"cp regression\"", "x1") ==
          Approx((px(day("2024-05-13")) + px(day("2024-05-14"))) / 2).margin(0.06));
    CHECK_THAT(svg, Catch::Contains("data-from=\"2024-05-13\" data-to=\"2024-05-14\""));
    CHECK_THAT(svg, Catch::Contains(
                        "<a href=\"../investigations/inv-1.html\"><rect class=\"mk-nightly\""));
    CHECK_THAT(svg, Catch::Contains("<a "
                                    "href=\"https://github.com/acme/xla/commit/"
                                    "2222222222222222222222222222222222222222\">"));
    // One dot per point (a path, not 20 elements), and the legend names each kind of mark.
    const auto dots_at = svg.find("<path class=\"pts\" d=\"");
    REQUIRE(dots_at != std::string::npos);
    const std::string dots = svg.substr(dots_at, svg.find('"', dots_at + 22) - dots_at);
    CHECK(std::count(dots.begin(), dots.end(), 'M') == 20);
    for (const char* legend : {"nightly window", "hour window", "culprit commit",
                               "fitted level (detect)", "environment change", "regression"})
        CHECK_THAT(svg, Catch::Contains(std::string(">") + legend + "<"));
    // The hover data has every point, with its x on the chart's scale.
    const std::string data = report::chart_data_json(v, o);
    CHECK_THAT(data, Catch::Contains("\"l\":[\"2024-05-01\","));
    CHECK_THAT(data, Catch::Contains("\"rt\":[\"NVIDIA H100 80GB HBM3 · driver 550.54 · node-0\""));
}

TEST_CASE("the site is self-contained and never lets untrusted text become markup",
          "[report][dashboard]") {
    auto series = nightly_series(drop_at(20, 13), 16);
    for (auto& m : series)
        m.image = "img\"><script>alert(1)</script>";
    core::Dashboard d;
    d.title = "t";
    d.history = "h.jsonl";
    d.investigations = {{"inv-1", narrowed(series)}};
    d.series.push_back(core::build_series_view(core::series_key(series[0]), series,
                                               core::detect(series), d.investigations));
    auto healthy = nightly_series(std::vector<double>(20, 10.0), 99, "NVIDIA A100-SXM4-80GB");
    d.series.push_back(
        core::build_series_view(core::series_key(healthy[0]), healthy, core::detect(healthy), {}));
    const auto files = report::render_dashboard(d);
    std::map<std::string, std::string> by_path;
    for (const auto& f : files)
        by_path[f.path] = f.content;
    const std::string page = report::series_page(d.series[0].key);
    const std::string image = report::series_image(d.series[0].key);
    CHECK(by_path.count("index.html"));
    CHECK(by_path.count("assets/dashboard.css"));
    CHECK(by_path.count("assets/dashboard.js"));
    CHECK(by_path.count(page));
    CHECK(by_path.count(image)); // a regression: its chart as an image of its own
    CHECK_FALSE(by_path.count(report::series_image(d.series[1].key))); // no regression, no image
    CHECK(by_path.count("investigations/inv-1.html"));
    CHECK(by_path.count("investigations/inv-1.json"));
    for (const auto& [path, content] : by_path) {
        INFO(path);
        const auto dot = path.rfind('.');
        if (path.substr(dot) == ".json" || path.substr(dot) == ".md")
            continue; // data files, never rendered as HTML (their escaping: result_json, markdown)
        CHECK(content.find("<script>alert") == std::string::npos);
        CHECK(content.find("<b>") == std::string::npos); // the benchmark name is text
        // Nothing is fetched from outside the site: no remote src, no remote CSS.
        CHECK_FALSE(std::regex_search(
            content, std::regex(R"((src|@import|url)\s*[=(]\s*["']?(https?:)?//)")));
        if (path.size() > 5 && path.compare(path.size() - 5, 5, ".html") == 0)
            CHECK_THAT(content,
                       Catch::Contains("Content-Security-Policy\" content=\"default-src 'none'"));
    }
    // The series page links back, draws the chart inline and carries the hover data.
    CHECK_THAT(by_path[page], Catch::Contains("href=\"../index.html\""));
    CHECK_THAT(by_path[page],
               Catch::Contains("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\""));
    CHECK_THAT(by_path[page], Catch::Contains("<script type=\"application/json\">"));
    CHECK_THAT(by_path[image], Catch::Contains("<style>"));
    // Slugs: file names of [a-z0-9-], distinct for distinct series.
    CHECK(std::regex_match(report::series_slug(d.series[0].key),
                           std::regex("[a-z0-9-]+-[0-9a-f]{8}")));
    CHECK(report::series_slug(d.series[0].key) != report::series_slug(d.series[1].key));
    CHECK(report::series_slug({"a b", "c", ""}) != report::series_slug({"a", "b c", ""}));
}

TEST_CASE("an investigation's report links its series on the dashboard and shows its chart",
          "[report][dashboard][markdown]") {
    const auto series = nightly_series(drop_at(20, 13), 16);
    const core::ResultDocument doc = narrowed(series);
    report::MarkdownOptions o;
    CHECK(report::render_markdown(doc, o).find("Dashboard") == std::string::npos);
    o.dashboard_url = "https://acme.github.io/lbm/";
    const std::string md = report::render_markdown(doc, o);
    const auto key = core::series_key(series[0]);
    const std::string page = "https://acme.github.io/lbm/" + report::series_page(key);
    CHECK_THAT(md, Catch::Contains("**Dashboard:** [lbm &lt;b&gt; · MLUPS · H100 80GB HBM3](" +
                                   page + ")"));
    CHECK_THAT(md, Catch::Contains("(https://acme.github.io/lbm/" + report::series_image(key) +
                                   ")](" + page + ")"));
    o.dashboard_url = "javascript:alert(1)";
    CHECK(report::render_markdown(doc, o).find("Dashboard") == std::string::npos);
}

TEST_CASE("the index shows each series' present level, change and verdict", "[report][dashboard]") {
    auto series = nightly_series(drop_at(20, 13), 99);
    series.back().values = {500.0, 500.0, 500.0}; // the latest point is off its level
    core::Dashboard d;
    d.series.push_back(
        core::build_series_view(core::series_key(series[0]), series, core::detect(series), {}));
    const auto& v = d.series[0];
    REQUIRE(v.detect.verdict == core::Verdict::regression);
    const std::string index = report::render_index(d);
    // The level column sorts by the present level and names the latest point on hover.
    CHECK_THAT(index, Catch::Contains("data-key=\"level\""));
    CHECK_THAT(index, Catch::Contains("data-v=\"" + util::format_fixed(v.level, 6) +
                                      "\" title=\"latest point 2024-05-20: 500"));
    CHECK(v.level > 520.0); // the level, not the latest value
    CHECK_THAT(index,
               Catch::Contains("data-v=\"" + util::format_fixed(v.detect.present_change, 6)));
    CHECK_THAT(index, Catch::Contains("data-verdict=\"regression\""));
}
