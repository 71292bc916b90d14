// Result documents (adapters/json/result_json): any JSON is read or refused with an error naming
// the file; what is read renders to markdown and JSON, and the JSON reads back to the same
// document (render → read → render gives identical JSON and markdown).

#include "adapters/json/result_json.hpp"
#include "fuzz_support.hpp"
#include "report/markdown.hpp"
#include "report/result_json.hpp"

using namespace perfsweep;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string json = fuzz::text_of(data, size);
    core::ResultDocument doc;
    if (!fuzz::accepts([&] { doc = adapters::read_result_document(json, "result.json"); },
                       "result.json"))
        return 0;
    std::string once, markdown;
    if (!fuzz::accepts([&] {
            once = report::render_json(doc);
            markdown = report::render_markdown(doc);
        }))
        return 0;
    core::ResultDocument again;
    fuzz::check(fuzz::accepts([&] { again = adapters::read_result_document(once, "again.json"); }),
                "the rendered JSON is not read back", once);
    fuzz::check(core::kind_of(again) == core::kind_of(doc), "the kind changed", once);
    fuzz::check(report::render_json(again) == once, "render → read → render differs", once);
    fuzz::check(report::render_markdown(again) == markdown,
                "the markdown differs after a round trip", once);
    return 0;
}
