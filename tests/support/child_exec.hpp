#pragma once
// For tests that fork perfsweep themselves (to kill or signal it at a chosen moment).

#include "support/temp_dir.hpp"

#include <unistd.h>

#include <string>
#include <vector>

namespace perfsweep::test {

/// In a forked child: run perfsweep with `args` (see run_perfsweep: exec-free unless
/// PERFSWEEP_TEST_EXEC=1) and exit with its status. Never returns.
[[noreturn]] inline void exec_perfsweep(const std::vector<std::string>& args) {
    become_perfsweep(args);
}

} // namespace perfsweep::test
