#include "app/report.hpp"

#include "report/markdown.hpp"
#include "util/error.hpp"

namespace perfsweep::app {

std::string make_report(ports::Adapters& a, const ReportRequest& req) {
    if (req.format != "markdown" && req.format != "json")
        throw_usage("--format '" + req.format + "': expected markdown or json");
    const std::string text = a.files->read_text(req.input);
    const core::ReportInput in = a.parse_report_input(text, req.input);
    std::string out;
    if (req.format == "json") {
        out = a.report_input_to_json(in);
    } else {
        report::MarkdownOptions opt;
        opt.key = req.key;
        out = report::render_markdown(in, opt);
    }
    if (!req.output.empty())
        a.files->write_atomic(req.output, out);
    return out;
}

} // namespace perfsweep::app
