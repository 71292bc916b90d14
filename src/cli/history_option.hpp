#pragma once
// The optional --history SPEC of run, daily, plan, merge and probe.

#include "ports/adapters.hpp"

#include <memory>
#include <string>

namespace perfsweep::cli {

/// The history store named by `spec` (file.jsonl, git:BRANCH, git+URL#BRANCH); nullptr when
/// `spec` is empty. An infrastructure error when this build has no history store.
std::unique_ptr<ports::HistoryStore> open_history_option(const ports::Adapters& a,
                                                         const std::string& spec);

} // namespace perfsweep::cli
