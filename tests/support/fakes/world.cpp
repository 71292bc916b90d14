#include "support/fakes/world.hpp"

#include "util/error.hpp"

namespace perfsweep::fakes {

ports::DemoWorld NoDemoWorld::create(const std::string& root) {
    throw_infra("demo world '" + root + "': the in-memory world has no demo");
}

} // namespace perfsweep::fakes
