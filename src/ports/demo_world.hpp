#pragma once
// Port: create the offline demo's world (two source repos, dated nightly snapshots).

#include <map>
#include <string>
#include <vector>

namespace perfsweep::ports {

/// What the demo world generator made, all paths absolute.
struct DemoWorld {
    std::string root;                         ///< the directory holding everything
    std::map<std::string, std::string> repos; ///< repo name ("framework", "compiler") → worktree
    std::string nightlies;                    ///< directory with one snapshot dir per nightly date
    std::vector<std::string> nightly_dates;   ///< every nightly date, ascending (YYYY-MM-DD)
    std::string broken_nightly;               ///< the date whose nightly crashes
    std::string self_exe;                     ///< absolute path of the running perfsweep binary
};

/// Builds the demo world.
class DemoWorldMaker {
public:
    virtual ~DemoWorldMaker() = default;
    /// Create the world under `root` (which must not exist or be empty). Throws on failure.
    virtual DemoWorld create(const std::string& root) = 0;
};

} // namespace perfsweep::ports
