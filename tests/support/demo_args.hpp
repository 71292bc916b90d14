#pragma once
// The investigate command line that runs the whole pipeline on a `perfsweep demo` world.

#include <string>
#include <vector>

namespace perfsweep::test {

/// `investigate` over the demo world in `demo` (made by `perfsweep demo --output-dir DEMO`): its
/// history, nightlies, repos and the demo benchmark, narrowed to the commit, state in DEMO/state.
/// Callers append their own output flags.
inline std::vector<std::string> demo_investigate_args(const std::string& demo) {
    const std::string exe = PERFSWEEP_EXE;
    return {"investigate",
            "--history",
            demo + "/history.jsonl",
            "--benchmark",
            "MLUPS3d.py 256 200 (demo)",
            "--threshold",
            "1.5%",
            "--image",
            demo + "/world/nightlies/{date}",
            "--test",
            "'" + exe +
                "' demo-bench measure --deterministic --nightly {image} --label {date} --repeat "
                "{repeat}",
            "--commits-probe",
            "cat {image}/manifest.txt",
            "--repo",
            "framework=" + demo + "/world/repos/framework",
            "--repo",
            "compiler=" + demo + "/world/repos/compiler",
            "--build",
            "'" + exe + "' demo-bench build --compiler {path:compiler}",
            "--hourly-test",
            "'" + exe +
                "' demo-bench measure --deterministic --framework {path:framework} "
                "--compiler {path:compiler} --label {time} --repeat {repeat}",
            "--to-commit",
            "--state",
            demo + "/state"};
}

} // namespace perfsweep::test
