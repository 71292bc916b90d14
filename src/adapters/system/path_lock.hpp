#pragma once
// Exclusive locks between perfsweep processes on a directory: a flock(2) of the directory itself
// (nothing is written into it), held for the life of the returned object and so released by the
// kernel however the process ends: no stale lock after a SIGKILL. Another process that finds it
// held is told who holds it (pid and start time, from /proc/locks). Where a directory cannot be
// flocked (NFS emulates flock with write locks, which a directory cannot take), the lock is a
// file `DIR/perfsweep.lock` instead. Within one process the same directory may be held more than
// once (the holds share one lock): a stage that an investigation runs takes what the
// investigation holds already.

#include <memory>
#include <string>

namespace perfsweep::adapters {

/// One hold of a directory's lock; the lock is released when the last hold of this process ends.
class PathLock {
public:
    virtual ~PathLock() = default;
};

/// Hold the directory `dir` (created, with its parents, if missing) for `what` ("--state DIR",
/// "--repo NAME=PATH"). Never waits: when another process holds it, throws an infrastructure
/// error "another perfsweep (pid N, running since T) holds WHAT; `advice`".
std::unique_ptr<PathLock> hold_dir_lock(const std::string& dir, const std::string& what,
                                        const std::string& advice);

} // namespace perfsweep::adapters
