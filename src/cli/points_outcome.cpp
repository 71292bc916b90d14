#include "cli/points_outcome.hpp"

#include "app/comment.hpp"
#include "core/exit_policy.hpp"
#include "core/series.hpp"
#include "report/markdown.hpp"
#include "util/exit_codes.hpp"
#include "util/json_writer.hpp"
#include "util/strings.hpp"
#include "util/workflow_text.hpp"

#include <cstdio>

namespace perfsweep::cli {

int report_points(ports::Adapters& adapters, const std::string& command,
                  const std::vector<core::Measurement>& points, const std::string& where) {
    int code = exit_ok;
    std::string table = "### perfsweep " + command +
                        "\n\n| series | label | values | status |\n| "
                        "--- | --- | --- | --- |\n";
    std::map<std::string, std::string> outputs;
    std::size_t failed = 0;
    for (const auto& m : points) {
        std::vector<std::string> vs;
        for (double v : m.values)
            vs.push_back(util::json_number(v));
        const std::string status = m.status == core::Status::ok
                                       ? "ok"
                                       : std::string(core::to_string(m.status)) + ": " + m.reason;
        table += "| " + report::escape_markdown(core::to_string(core::series_key(m))) + " | " +
                 report::escape_markdown(m.label) + " | " + util::join(vs, ", ") + " | " +
                 report::escape_markdown(status) + " |\n";
        const int c = core::point_exit_code(m.status);
        if (c == exit_ok)
            continue;
        ++failed;
        code = c;
        const std::string msg = command + ": no value of " + m.metric + " for point '" + m.label +
                                "' (" + std::string(core::to_string(m.status)) + ": " + m.reason +
                                ")" + (where.empty() ? "" : "; recorded in " + where);
        std::fprintf(stderr, "perfsweep: error: %s\n", util::inert_line(msg).c_str());
        app::annotate(adapters.actions, "error", "perfsweep " + command, msg);
    }
    outputs["points"] = std::to_string(points.size());
    outputs["failed-points"] = std::to_string(failed);
    app::append_summary(adapters.actions, table);
    adapters.actions.set_outputs(outputs);
    return code;
}

} // namespace perfsweep::cli
