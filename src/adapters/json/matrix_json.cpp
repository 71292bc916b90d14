#include "adapters/json/matrix_json.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace perfsweep::adapters {

std::string
matrix_to_json(const std::vector<std::vector<std::pair<std::string, std::string>>>& entries) {
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    w.StartObject();
    w.Key("include");
    w.StartArray();
    for (const auto& e : entries) {
        w.StartObject();
        for (const auto& [k, v] : e) {
            w.Key(k.c_str(), static_cast<rapidjson::SizeType>(k.size()));
            w.String(v.c_str(), static_cast<rapidjson::SizeType>(v.size()));
        }
        w.EndObject();
    }
    w.EndArray();
    w.EndObject();
    return std::string(buf.GetString(), buf.GetSize());
}

} // namespace perfsweep::adapters
