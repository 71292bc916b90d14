#include "util/crash_point.hpp"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace perfsweep::util {

#if PERFSWEEP_TEST_HOOKS

namespace {

struct CrashTarget {
    bool armed = false;
    std::string name;
    long hit = 0; ///< kill at this hit (1-based)
};

CrashTarget read_target() {
    CrashTarget t;
    const char* env = std::getenv("PERFSWEEP_CRASH_AT");
    if (!env || !*env)
        return t;
    const std::string spec(env);
    const auto colon = spec.rfind(':');
    char* end = nullptr;
    const long n = colon == std::string::npos ? 0 : std::strtol(spec.c_str() + colon + 1, &end, 10);
    if (colon == std::string::npos || colon == 0 || n < 1 || !end || *end != '\0') {
        std::fprintf(stderr, "perfsweep: ignoring PERFSWEEP_CRASH_AT='%s': expected NAME:N\n", env);
        return t;
    }
    t.armed = true;
    t.name = spec.substr(0, colon);
    t.hit = n;
    return t;
}

} // namespace

void crash_point(std::string_view name) {
    static const CrashTarget target = read_target();
    static std::atomic<long> seen{0};
    if (!target.armed || name != target.name)
        return;
    if (++seen == target.hit)
        std::raise(SIGKILL);
}

#else // a production build: no test hook

void crash_point(std::string_view /*name*/) {}

#endif // PERFSWEEP_TEST_HOOKS

} // namespace perfsweep::util
