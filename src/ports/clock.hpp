#pragma once
// Port: wall-clock time and sleeping, so retries and budgets are testable.

#include "util/time.hpp"

namespace perfsweep::ports {

/// Source of time.
class Clock {
public:
    virtual ~Clock() = default;
    /// Current UTC time in seconds (fractional).
    virtual double now() = 0;
    /// Block for `seconds`.
    virtual void sleep(double seconds) = 0;
};

} // namespace perfsweep::ports
