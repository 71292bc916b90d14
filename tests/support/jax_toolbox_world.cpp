#include "support/jax_toolbox_world.hpp"

#include "support/json_doc.hpp"
#include "util/strings.hpp"

#include <catch2/catch.hpp>

#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

namespace perfsweep::test {

JaxToolboxWorld::JaxToolboxWorld(const std::string& generation) {
    const std::string src = std::string(PERFSWEEP_SOURCE_DIR) + "/tests/support";
    // Laid out once per build directory and content of the stand-in scripts, copied per test.
    const auto cache = std::filesystem::path(PERFSWEEP_EXE).parent_path() / "jax-toolbox-worlds";
    auto r = run_command(
        {"bash", src + "/jax_toolbox/world.sh", cache.string(), file("world"), generation});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    for (const auto& line : util::split(read_file(file("world/world.env")), '\n')) {
        const auto eq = line.find('=');
        if (eq != std::string::npos)
            m_env[line.substr(0, eq)] = line.substr(eq + 1);
    }
    std::filesystem::create_directories(file("bin"));
    std::filesystem::create_symlink(src + "/fake_docker", file("bin/docker"));
    m_path = std::make_unique<EnvGuard>("PATH", file("bin") + ":" + std::getenv("PATH"));
    m_log = std::make_unique<EnvGuard>("FAKE_DOCKER_LOG", file("docker-calls.jsonl"));
    m_state = std::make_unique<EnvGuard>("FAKE_DOCKER_STATE", file("world/docker"));
}

std::string JaxToolboxWorld::unavailable() {
    if (::geteuid() != 0)
        return "the stand-in image needs root (chroot and bind mounts in a mount namespace)";
    const pid_t pid = ::fork();
    if (pid == 0)
        ::_exit(::unshare(CLONE_NEWNS) == 0 ? 0 : 1);
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return "mount namespaces are not available (unshare(CLONE_NEWNS) failed)";
    return "";
}

const std::string& JaxToolboxWorld::operator[](const std::string& key) const {
    const auto it = m_env.find(key);
    INFO("world.env key " << key);
    REQUIRE(it != m_env.end());
    return it->second;
}

std::string JaxToolboxWorld::image(const std::string& date) const {
    return util::replace_all((*this)["IMAGE_TEMPLATE"], "{date}", date);
}

std::string JaxToolboxWorld::clone(const std::string& repo) const {
    return m_dir.file("world/clones/" + repo);
}

std::vector<std::vector<std::string>> JaxToolboxWorld::docker_calls() const {
    std::vector<std::vector<std::string>> out;
    if (!std::filesystem::exists(file("docker-calls.jsonl")))
        return out;
    for (const auto& line : util::split(read_file(file("docker-calls.jsonl")), '\n')) {
        if (line.empty())
            continue;
        rapidjson::Document d;
        d.Parse(line.c_str());
        REQUIRE(d.IsArray());
        std::vector<std::string> argv;
        for (const auto& v : d.GetArray())
            argv.emplace_back(v.GetString());
        out.push_back(std::move(argv));
    }
    return out;
}

} // namespace perfsweep::test
