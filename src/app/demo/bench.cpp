#include "app/demo/bench.hpp"

#include "core/demo/script.hpp"
#include "util/strings.hpp"

#include <map>

namespace perfsweep::app {

namespace {

std::map<std::string, std::string> read_sources(ports::Files& files, const std::string& dir,
                                                std::initializer_list<const char*> names) {
    std::map<std::string, std::string> out;
    for (const char* name : names) {
        const std::string path = dir + "/" + name;
        if (files.exists(path))
            out[name] = files.read_text(path);
    }
    return out;
}

std::string framework_dir(const DemoBenchSources& s) {
    return s.nightly.empty() ? s.framework : s.nightly + "/framework";
}
std::string compiler_dir(const DemoBenchSources& s) {
    return s.nightly.empty() ? s.compiler : s.nightly + "/compiler";
}

} // namespace

DemoBenchOutcome demo_bench_measure(ports::Files& files, const DemoBenchSources& src,
                                    const std::string& label, int repeat,
                                    unsigned long long nonce) {
    DemoBenchOutcome out;
    if (!src.nightly.empty() && !files.exists(src.nightly)) {
        out.output = "error: no such nightly: " + src.nightly + "\n";
        out.exit_code = 3;
        return out;
    }
    if (!src.nightly.empty() && files.exists(src.nightly + "/CRASH")) {
        out.output = "initialising lattice...\nFatal Python error: Segmentation fault\n";
        out.crash = true;
        return out;
    }
    const auto fw = read_sources(files, framework_dir(src), {"layout.cfg"});
    const auto cc = read_sources(files, compiler_dir(src), {"vector.cfg", "build.cfg"});
    const double v =
        core::demo_mlups(fw, cc, nonce ? label + "#" + std::to_string(nonce) : label, repeat);
    if (v < 0) {
        out.output =
            "error: the sources do not describe a build (layout.cfg / vector.cfg missing)\n";
        out.exit_code = 2;
        return out;
    }
    out.output =
        "D3Q19 BGK 256^3, 200 steps\n\x1b[1;32mMLUPS:\x1b[0m " + util::format_fixed(v, 2) + "\n";
    return out;
}

DemoBenchOutcome demo_bench_build(ports::Files& files, const DemoBenchSources& src) {
    DemoBenchOutcome out;
    const auto cc = read_sources(files, compiler_dir(src), {"vector.cfg", "build.cfg"});
    if (cc.empty()) {
        out.output = "build: no compiler sources in " + compiler_dir(src) + "\n";
        out.exit_code = 2;
    } else if (core::demo_build_fails(cc)) {
        out.output = "codegen/scheduler.cc:118: error: 'Schedule' was not declared in this scope\n"
                     "build failed\n";
        out.exit_code = 1;
    } else {
        out.output = "build ok\n";
    }
    return out;
}

} // namespace perfsweep::app
