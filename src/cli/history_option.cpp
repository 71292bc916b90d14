#include "cli/history_option.hpp"

#include "util/error.hpp"

namespace perfsweep::cli {

std::unique_ptr<ports::HistoryStore> open_history_option(const ports::Adapters& a,
                                                         const std::string& spec) {
    if (spec.empty())
        return nullptr;
    return a.histories.open(spec);
}

} // namespace perfsweep::cli
