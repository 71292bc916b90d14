#include "adapters/json/result_json.hpp"
#include "app/dashboard.hpp"
#include "cli/context.hpp"
#include "cli/output.hpp"

#include <string>

namespace perfsweep::cli {

void run_dashboard(const app::OptionValues& values, Context& ctx) {
    auto& a = ctx.adapters;
    const auto req = app::resolve_dashboard(values);
    const auto r = app::run_dashboard(req, a, adapters::read_result_document);
    for (const auto& w : r.warnings)
        a.progress.line("warning: " + w);
    print_inert("dashboard: %zu series (%zu regressed), %zu investigation%s, %zu files, %.1f kB\n",
                r.series, r.regressions, r.investigations, r.investigations == 1 ? "" : "s",
                r.files, static_cast<double>(r.bytes) / 1000.0);
    if (!r.published.empty())
        print_inert("published: %s\n", r.published.c_str());
    print_inert("%s\n", r.index_path.c_str());
    ctx.exit_code = exit_ok;
}

} // namespace perfsweep::cli
