#pragma once
// For tests that fork perfsweep themselves (to kill or signal it at a chosen moment).

#include <unistd.h>

#include <string>
#include <vector>

namespace perfsweep::test {

/// In a forked child: replace the process with the built perfsweep running `args`; exit 127 when
/// that fails. Never returns.
[[noreturn]] inline void exec_perfsweep(const std::vector<std::string>& args) {
    std::vector<std::string> argv{PERFSWEEP_EXE};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> cargv;
    for (auto& s : argv)
        cargv.push_back(s.data());
    cargv.push_back(nullptr);
    ::execv(cargv[0], cargv.data());
    ::_exit(127);
}

} // namespace perfsweep::test
