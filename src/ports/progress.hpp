#pragma once
// Port: progress lines for humans (stderr, or the GitHub Actions job log).

#include <string>
#include <string_view>

namespace perfsweep::ports {

/// Receives progress text. Implementations decide where it goes and how it is escaped.
class Progress {
public:
    virtual ~Progress() = default;
    /// One line of progress, e.g. "2023-08-24  577.3 MLUPS  12.1s  (3/12, ETA 2m10s)".
    virtual void line(std::string_view text) = 0;
    /// Echo untrusted text (benchmark output) so that it can never act as a workflow command.
    virtual void untrusted_block(std::string_view title, std::string_view text) = 0;
};

} // namespace perfsweep::ports
