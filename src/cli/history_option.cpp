#include "cli/history_option.hpp"

#include "util/error.hpp"

namespace perfsweep::cli {

std::unique_ptr<ports::HistoryStore> open_history_option(const ports::Adapters& a,
                                                         const std::string& spec) {
    if (spec.empty())
        return nullptr;
    if (!a.open_history)
        throw_infra("no history store is available in this build");
    return a.open_history(spec);
}

} // namespace perfsweep::cli
