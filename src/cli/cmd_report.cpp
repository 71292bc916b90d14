#include "adapters/json/result_json.hpp"
#include "app/options_data.hpp"
#include "cli/context.hpp"
#include "cli/output.hpp"

namespace perfsweep::cli {

void run_report(const app::OptionValues& values, Context& ctx) {
    const auto req = app::resolve_report(values);
    auto& files = ctx.adapters.files;
    const auto doc = adapters::read_result_document(files.read_text(req.input), req.input);
    const std::string out = app::make_report(req, doc, files);
    if (req.output.empty())
        req.format == "json" ? write_json(out) : write_inert(out);
    ctx.exit_code = exit_ok;
}

} // namespace perfsweep::cli
