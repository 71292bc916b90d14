// The deterministic fuzz gate: every fuzz target's committed corpus replayed through its entry
// point, without libFuzzer (a standalone driver in the spirit of LLVM's StandaloneFuzzTargetMain).
// Built in the ordinary test build (gcc, with the build's sanitizers); each target's
// LLVMFuzzerTestOneInput is compiled under its own name, perfsweep_fuzz_one_<name> (see
// targets.cmake). A target reports a finding by aborting (fuzz_support.hpp check) or through a
// sanitizer; this driver names the input before running it, so the last "input:" line of a failed
// run is the culprit. Same corpus, same result: nothing random, nothing timed.
// Usage: fuzz_replay NAME PATH...   (files, or directories read recursively in name order)

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#define PERFSWEEP_FUZZ_TARGET(name)                                                                \
    extern "C" int perfsweep_fuzz_one_##name(const std::uint8_t* data, std::size_t size);
#include "fuzz_replay_targets.inc"
#undef PERFSWEEP_FUZZ_TARGET

namespace {

using Entry = int (*)(const std::uint8_t*, std::size_t);

struct Target {
    const char* name;
    Entry entry;
};

constexpr Target k_targets[] = {
#define PERFSWEEP_FUZZ_TARGET(name) {#name, perfsweep_fuzz_one_##name},
#include "fuzz_replay_targets.inc"
#undef PERFSWEEP_FUZZ_TARGET
};

/// The inputs under `paths`: files as given, directories walked recursively, in name order.
std::vector<std::filesystem::path> inputs_of(int n, char** paths) {
    namespace fs = std::filesystem;
    std::vector<fs::path> out;
    for (int i = 0; i < n; ++i) {
        const fs::path p(paths[i]);
        if (fs::is_directory(p)) {
            std::vector<fs::path> found;
            for (const auto& e : fs::recursive_directory_iterator(p))
                if (e.is_regular_file())
                    found.push_back(e.path());
            std::sort(found.begin(), found.end());
            out.insert(out.end(), found.begin(), found.end());
        } else if (fs::is_regular_file(p)) {
            out.push_back(p);
        } else {
            std::fprintf(stderr, "fuzz_replay: '%s': no such file or directory\n", paths[i]);
            std::exit(2);
        }
    }
    return out;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: fuzz_replay NAME PATH...\ntargets:");
        for (const auto& t : k_targets)
            std::fprintf(stderr, " %s", t.name);
        std::fprintf(stderr, "\n");
        return 2;
    }
    const auto* target =
        std::find_if(std::begin(k_targets), std::end(k_targets),
                     [&](const Target& t) { return std::strcmp(t.name, argv[1]) == 0; });
    if (target == std::end(k_targets)) {
        std::fprintf(stderr, "fuzz_replay: no fuzz target '%s'\n", argv[1]);
        return 2;
    }
    const auto inputs = inputs_of(argc - 2, argv + 2);
    if (inputs.empty()) {
        std::fprintf(stderr, "fuzz_replay: no inputs for '%s' (an empty corpus gates nothing)\n",
                     argv[1]);
        return 2;
    }
    const auto t0 = std::chrono::steady_clock::now();
    std::size_t bytes = 0;
    for (const auto& p : inputs) {
        std::ifstream in(p, std::ios::binary);
        std::stringstream ss;
        ss << in.rdbuf();
        if (!in) {
            std::fprintf(stderr, "fuzz_replay: cannot read '%s'\n", p.c_str());
            return 2;
        }
        const std::string data = ss.str();
        std::fprintf(stderr, "input: %s (%zu bytes)\n", p.c_str(), data.size());
        // A copy of exactly `size` bytes (never a null pointer), as libFuzzer passes it: reading
        // past it is an AddressSanitizer error.
        const std::unique_ptr<std::uint8_t[]> buf(new std::uint8_t[data.size()]);
        std::memcpy(buf.get(), data.data(), data.size());
        target->entry(buf.get(), data.size());
        bytes += data.size();
    }
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0)
            .count();
    std::printf("fuzz_%s: replayed %zu inputs (%zu bytes) in %lld ms, no finding\n", argv[1],
                inputs.size(), bytes, static_cast<long long>(ms));
    return 0;
}
