#include "support/fakes/world.hpp"

#include "adapters/json/record_format.hpp"
#include "app/import.hpp"
#include "util/error.hpp"

namespace perfsweep::fakes {

ports::DemoWorld NoDemoWorld::create(const std::string& root) {
    throw_infra("demo world '" + root + "': the in-memory world has no demo");
}

void import_file(World& w, const std::string& name, std::string text, const std::string& history) {
    w.files.files[name] = std::move(text);
    app::ImportRequest imp;
    imp.inputs = {name};
    imp.history = history;
    imp.read_json = adapters::read_json_import;
    app::run_import(imp, w.adapters);
}

app::CompareRequest compare_request() {
    app::CompareRequest r;
    r.head.runtime = "none";
    r.head.test_command = "bash bench/run.sh 256";
    r.head.benchmark = "run.sh";
    r.head.metric = "MLUPS";
    r.base = r.head;
    r.base->workdir = "../base";
    return r;
}

} // namespace perfsweep::fakes
