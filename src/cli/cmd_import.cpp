#include "adapters/json/record_format.hpp"
#include "app/options_data.hpp"
#include "cli/context.hpp"
#include "cli/output.hpp"
#include "util/strings.hpp"

#include <cstdio>

namespace perfsweep::cli {

namespace {

// A JSON string literal (the count and the history spec are the whole document).
std::string json_string(const std::string& s) {
    std::string out = "\"";
    for (unsigned char c : s) {
        if (c == '"' || c == '\\')
            out += std::string("\\") + static_cast<char>(c);
        else if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
        } else
            out += static_cast<char>(c);
    }
    return out + "\"";
}

} // namespace

void run_import(const app::OptionValues& values, Context& ctx) {
    auto c = app::resolve_import(values);
    c.request.read_json = adapters::read_json_import;
    const auto r = app::run_import(c.request, ctx.adapters);
    if (c.json)
        write_json("{\"imported\":" + std::to_string(r.appended) +
                   ",\"already\":" + std::to_string(r.already) +
                   ",\"history\":" + json_string(util::sanitize_utf8(c.request.history)) + "}\n");
    else
        print_inert("imported %zu measurement%s into %s (%zu already there)\n", r.appended,
                    r.appended == 1 ? "" : "s", c.request.history.c_str(), r.already);
    ctx.exit_code = exit_ok;
}

} // namespace perfsweep::cli
