#pragma once
// A JAX/XLA world with a planted culprit and stand-in JAX-Toolbox nightlies of it
// (tests/support/jax_toolbox/make-world.sh, laid out once per build directory and copied per test
// by world.sh), served by the fake docker on PATH.

#include "support/env_guard.hpp"
#include "support/temp_dir.hpp"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace perfsweep::test {

/// The world of make-world.sh for one image generation, with `docker` (tests/support/fake_docker)
/// first on PATH and FAKE_DOCKER_STATE/LOG pointing at it for the scope of the object.
class JaxToolboxWorld {
public:
    /// Lay out the world for "jax" or "nightly" images.
    explicit JaxToolboxWorld(const std::string& generation);
    /// Why the image emulation cannot run here (not root, no mount namespaces); "" when it can.
    static std::string unavailable();
    /// A value of world.env (GOOD_TIME, CULPRIT, ...); the test fails for an unknown key.
    const std::string& operator[](const std::string& key) const;
    /// The image of `date` (IMAGE_TEMPLATE with {date} filled in).
    std::string image(const std::string& date) const;
    /// The host clone of `repo` (jax, xla).
    std::string clone(const std::string& repo) const;
    /// `dir/name`.
    std::string file(const std::string& name) const { return m_dir.file(name); }
    /// Every fake docker call, one argv per entry.
    std::vector<std::vector<std::string>> docker_calls() const;

private:
    TempDir m_dir{"perfsweep-jtb-world"};
    std::map<std::string, std::string> m_env;
    std::unique_ptr<EnvGuard> m_path, m_log, m_state;
};

} // namespace perfsweep::test
