#include "support/fake_github.hpp"

#include "support/temp_dir.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
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
        // The server dies with the test process, also when it ends without destructors (the
        // GitHub faults suite's watchdog).
        prctl(PR_SET_PDEATHSIG, SIGKILL);
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

std::string FakeGitHub::control(const std::string& what, const std::string& json_arg) const {
    // "@PATH": the body is that file's content (as with curl's --data-binary @PATH).
    const std::string json = json_arg.rfind('@', 0) == 0 ? read_file(json_arg.substr(1)) : json_arg;
    // A plain HTTP/1.0 exchange over loopback (node then neither chunks nor keeps the connection
    // open): the suites call this hundreds of times, and a curl process a call cost a third of a
    // suite's CPU time.
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return "";
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(m_port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    std::string reply;
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0) {
        std::string req = std::string(json.empty() ? "GET" : "POST") + " /_control/" + what +
                          " HTTP/1.0\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
                          "Content-Length: " + std::to_string(json.size()) + "\r\n\r\n" + json;
        bool sent = true;
        for (size_t off = 0; sent && off < req.size();) {
            const ssize_t n = ::send(fd, req.data() + off, req.size() - off, MSG_NOSIGNAL);
            sent = n > 0;
            off += sent ? static_cast<size_t>(n) : 0;
        }
        char buf[65536];
        ssize_t n = 0;
        while (sent && (n = ::read(fd, buf, sizeof buf)) > 0)
            reply.append(buf, static_cast<size_t>(n));
    }
    ::close(fd);
    const size_t body = reply.find("\r\n\r\n");
    return body == std::string::npos ? "" : reply.substr(body + 4);
}

} // namespace perfsweep::test
