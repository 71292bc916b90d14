#include "adapters/json/result_json.hpp"
#include "app/options_data.hpp"
#include "cli/context.hpp"
#include "cli/output.hpp"

namespace perfsweep::cli {

void run_report(const app::OptionValues& values, Context& ctx) {
    const auto req = app::resolve_report(values);
    auto& files = ctx.adapters.files;
    const std::string text = files.read_text(req.input);
    // `detect --json` over several series: the table detect writes (it holds no single result)
    const auto series = adapters::read_series_document(text, req.input);
    const std::string out =
        series ? app::make_series_report(req, *series, files)
               : app::make_report(req, adapters::read_result_document(text, req.input), files);
    if (req.output.empty())
        req.format == "json" ? write_json(out) : write_inert(out);
    ctx.exit_code = exit_ok;
}

} // namespace perfsweep::cli
