// Report input (adapters/json/report_input_json): any stage result JSON is read or refused with
// an error naming the file; the normalized model is valid JSON naming the stage kind, reading is
// deterministic, and the model renders to markdown without failing.

#include "adapters/json/report_input_json.hpp"
#include "fuzz_support.hpp"
#include "report/markdown.hpp"

#include <rapidjson/document.h>

using namespace perfsweep;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string json = fuzz::text_of(data, size);
    core::ReportInput in;
    if (!fuzz::accepts([&] { in = adapters::report_input_from_json(json, "result.json"); },
                       "result.json"))
        return 0;
    // The normalized model (`report --format json`) is valid JSON naming the kind, and reading
    // the same input again gives the same model (no hidden state).
    const std::string once = adapters::report_input_to_json(in);
    rapidjson::Document d;
    d.Parse(once.c_str(), once.size());
    fuzz::check(!d.HasParseError() && d.IsObject(), "the normalized model is not JSON", once);
    fuzz::check(in.kind == "detect" || in.kind == "daily" || in.kind == "hourly" ||
                    in.kind == "investigate",
                "unknown kind", in.kind);
    fuzz::check(d.HasMember("kind") && d["kind"].IsString() && in.kind == d["kind"].GetString(),
                "the normalized model does not name its kind", once);
    const auto again = adapters::report_input_from_json(json, "result.json");
    fuzz::check(adapters::report_input_to_json(again) == once, "reading twice differs", once);
    fuzz::accepts([&] { report::render_markdown(in); });
    return 0;
}
