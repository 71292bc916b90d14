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

/// In a forked child: exec the perfsweep binary with `args`, always (for what a process reads
/// once and keeps, such as PERFSWEEP_CGROUPS: an exec-free child would inherit what an earlier
/// test case of this process found). Never returns.
[[noreturn]] inline void exec_real_perfsweep(const std::vector<std::string>& args) {
    std::vector<std::string> argv{PERFSWEEP_EXE};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> cargs;
    for (auto& a : argv)
        cargs.push_back(a.data());
    cargs.push_back(nullptr);
    ::execv(cargs[0], cargs.data());
    ::_exit(127);
}

} // namespace perfsweep::test
