#include "report/compare_text.hpp"

#include "report/detect_text.hpp"
#include "report/markdown.hpp"
#include "report/text_table.hpp"
#include "util/json_writer.hpp"
#include "util/strings.hpp"

#include <cmath>

namespace perfsweep::report {

namespace {

std::string interval_text(const core::CompareEstimate& e) {
    if (!std::isfinite(e.low) || !std::isfinite(e.high))
        return "—";
    return signed_percent(e.low) + " .. " + signed_percent(e.high);
}

std::string verdict_text(const CompareRow& r) {
    return r.failed ? "failed run" : std::string(core::to_string(r.verdict));
}

std::string level_text(double v, std::size_t runs) {
    return runs == 0 && v == 0 ? "—" : level_number(v);
}

std::string method(const CompareReport& r) {
    const int confidence = static_cast<int>(std::lround(100 * (1 - r.options.alpha)));
    std::string out =
        r.base_source == "interleaved runs"
            ? std::to_string(r.pairs) + " pairs of base and head runs on one runner, interleaved "
                                        "(base-head, head-base, ...: a drift cancels)"
            : std::to_string(r.pairs) + " head runs against the base level of " + r.base_source;
    return out + "; threshold " + util::format_fixed(100 * r.options.threshold, 2) + " %, " +
           std::to_string(confidence) + " % intervals over all looks (a false regression at most " +
           util::format_fixed(50 * r.options.alpha, 2) + " % per series); " +
           std::to_string(r.runs) + " runs";
}

} // namespace

std::string render_compare_text(const CompareReport& r) {
    TextTable t;
    t.header = {"series", "base", "head", "change", "interval", "runs", "verdict"};
    t.right_align = {false, true, true, true, true, true, false};
    for (const auto& row : r.rows)
        t.rows.push_back({core::to_string(row.key), level_text(row.base, row.base_runs),
                          level_text(row.head, row.head_runs),
                          row.head_runs ? signed_percent(row.estimate.change) : "—",
                          interval_text(row.estimate),
                          std::to_string(row.base_runs) + "+" + std::to_string(row.head_runs),
                          verdict_text(row)});
    std::string out = "compare: " + r.verdict + "\n" + method(r) + "\n\n" + render_text(t) + "\n";
    for (const auto& row : r.rows)
        out += "  " + core::to_string(row.key) + ": " + row.reason + "\n";
    return out;
}

std::string render_compare_markdown(const CompareReport& r) {
    std::string heading = r.verdict == "regression"    ? "Regression"
                          : r.verdict == "improvement" ? "Improvement"
                          : r.verdict == "same"        ? "No change"
                                                       : "Inconclusive";
    std::string out = "### perfsweep compare: " + heading + "\n\n";
    out += "| series | base | head | change | interval | verdict |\n| --- | ---: | ---: | ---: | "
           "---: | --- |\n";
    for (const auto& row : r.rows) {
        const std::string v = verdict_text(row);
        out +=
            "| " + escape_markdown(core::to_string(row.key)) + " | " +
            level_text(row.base, row.base_runs) + " | " + level_text(row.head, row.head_runs) +
            " | " + (row.head_runs ? signed_percent(row.estimate.change) : "—") + " | " +
            interval_text(row.estimate) + " | " +
            (row.verdict == core::CompareVerdict::regression || row.failed ? "**" + v + "**" : v) +
            " |\n";
    }
    out += "\n" + escape_markdown(method(r)) + ".\n";
    for (const auto& row : r.rows)
        if (row.failed || row.verdict != core::CompareVerdict::same)
            out += "\n- " + escape_markdown(core::to_string(row.key)) + ": " +
                   escape_markdown(row.reason);
    return out + "\n";
}

std::string render_compare_json(const CompareReport& r) {
    util::JsonWriter w;
    w.begin_object()
        .member("kind", "compare")
        .member("format_version", 1)
        .member("verdict", r.verdict)
        .member("base_source", r.base_source)
        .member("threshold", r.options.threshold)
        .member("alpha", r.options.alpha)
        .member("pairs", r.pairs)
        .member("runs", r.runs);
    w.key("series").begin_array();
    for (const auto& row : r.rows) {
        w.begin_object()
            .member("name", core::to_string(row.key))
            .member("benchmark", row.key.benchmark)
            .member("metric", row.key.metric)
            .member("testbed", row.key.testbed)
            .member("unit", row.unit)
            .member("verdict", verdict_text(row))
            .member("reason", row.reason)
            .member("base", row.base)
            .member("head", row.head)
            .member("base_runs", row.base_runs)
            .member("head_runs", row.head_runs)
            .member("change", row.estimate.change);
        if (std::isfinite(row.estimate.low) && std::isfinite(row.estimate.high))
            w.member("low", row.estimate.low).member("high", row.estimate.high);
        w.end_object();
    }
    w.end_array();
    w.end_object();
    return w.text() + "\n";
}

} // namespace perfsweep::report
