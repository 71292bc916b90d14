#pragma once
// For tests that fork perfsweep themselves (to kill or signal it at a chosen moment).

#include "support/temp_dir.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <string>
#include <vector>

namespace perfsweep::test {

/// In a forked child: run perfsweep with `args` (see run_perfsweep: exec-free unless
/// PERFSWEEP_TEST_EXEC=1) and exit with its status. Never returns.
[[noreturn]] inline void exec_perfsweep(const std::vector<std::string>& args) {
    become_perfsweep(args);
}

/// In a forked child: stdout and stderr go to /dev/null (the test reads files, not output).
inline void discard_output() {
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);
    ::dup2(null, 2);
}

} // namespace perfsweep::test
