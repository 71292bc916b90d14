// SystemClock, in a file of its own: the only adapter with a test hook (PERFSWEEP_TEST_HOOKS, set
// for this file alone by CMakeLists.txt, as for util/crash_point.cpp).
#include "adapters/system/local_files.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

namespace perfsweep::adapters {

namespace {

double real_now() {
    using namespace std::chrono;
    return duration<double>(system_clock::now().time_since_epoch()).count();
}

#if PERFSWEEP_TEST_HOOKS
// $PERFSWEEP_TEST_NOW=EPOCH_SECONDS starts this process's clock at that instant (it then runs at
// the real pace): the end-to-end test plays several nights of a scheduled job. Read once.
double test_offset() {
    const char* env = std::getenv("PERFSWEEP_TEST_NOW");
    if (!env || !*env)
        return 0;
    char* end = nullptr;
    const double at = std::strtod(env, &end);
    if (!end || *end != '\0' || !(at > 0)) {
        std::fprintf(stderr,
                     "perfsweep: ignoring PERFSWEEP_TEST_NOW='%s': expected epoch seconds\n", env);
        return 0;
    }
    return at - real_now();
}
#endif

} // namespace

double SystemClock::now() {
#if PERFSWEEP_TEST_HOOKS
    static const double offset = test_offset();
    return real_now() + offset;
#else
    return real_now();
#endif
}

void SystemClock::sleep(double seconds) {
    if (seconds > 0)
        std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

} // namespace perfsweep::adapters
