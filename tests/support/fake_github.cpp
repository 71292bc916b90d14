#include "support/fake_github.hpp"

#include "support/temp_dir.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace perfsweep::test {

bool have_node() {
    return run_command({"sh", "-c", "command -v node"}).exit_code == 0;
}

FakeGitHub::FakeGitHub() {
    if (!have_node())
        return;
    int fds[2];
    if (pipe(fds) != 0)
        return;
    const std::string script =
        std::string(PERFSWEEP_SOURCE_DIR) + "/tests/support/fake_github/server.js";
    m_pid = fork();
    if (m_pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        execlp("node", "node", script.c_str(), static_cast<char*>(nullptr));
        _exit(127);
    }
    close(fds[1]);
    std::string line;
    char c;
    while (read(fds[0], &c, 1) == 1 && c != '\n')
        line += c;
    close(fds[0]);
    if (line.rfind("PORT ", 0) == 0)
        m_port = std::atoi(line.c_str() + 5);
}

FakeGitHub::~FakeGitHub() {
    if (m_pid > 0) {
        kill(m_pid, SIGTERM);
        int status = 0;
        waitpid(m_pid, &status, 0);
    }
}

std::string FakeGitHub::control(const std::string& what, const std::string& json) const {
    std::vector<std::string> argv = {"curl", "-s", url() + "/_control/" + what};
    if (!json.empty()) {
        argv.push_back("--data-binary");
        argv.push_back(json);
    }
    return run_command(argv).out;
}

} // namespace perfsweep::test
