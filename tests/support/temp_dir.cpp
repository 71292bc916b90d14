#include "support/temp_dir.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

extern char** environ;

namespace perfsweep::test {

TempDir::TempDir(const std::string& prefix) {
    std::random_device rd;
    for (int i = 0; i < 100; ++i) {
        auto p = std::filesystem::temp_directory_path() /
                 (prefix + "-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
        if (std::filesystem::create_directory(p)) {
            m_path = p;
            return;
        }
    }
    throw std::runtime_error("cannot create a temp dir");
}

TempDir::~TempDir() {
    if (std::getenv("PERFSWEEP_KEEP_TEST_DIRS"))
        return;
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec);
}

void write_file(const std::string& path, const std::string& content) {
    std::filesystem::path p(path);
    if (p.has_parent_path())
        std::filesystem::create_directories(p.parent_path());
    std::ofstream out(path, std::ios::binary);
    out << content;
    if (!out)
        throw std::runtime_error("cannot write " + path);
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw std::runtime_error("cannot read " + path);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

namespace {
std::string drain(int fd) {
    std::string s;
    char buf[65536];
    for (;;) {
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n <= 0)
            break;
        s.append(buf, static_cast<size_t>(n));
    }
    ::close(fd);
    return s;
}
} // namespace

CommandResult run_command(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                          const std::string& input) {
    int in_pipe[2], out_pipe[2], err_pipe[2];
    if (::pipe(in_pipe) || ::pipe(out_pipe) || ::pipe(err_pipe))
        throw std::runtime_error("pipe failed");
    pid_t pid = ::fork();
    if (pid < 0)
        throw std::runtime_error("fork failed");
    if (pid == 0) {
        ::dup2(in_pipe[0], 0);
        ::dup2(out_pipe[1], 1);
        ::dup2(err_pipe[1], 2);
        for (int fd : {in_pipe[0], in_pipe[1], out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]})
            ::close(fd);
        for (const auto& kv : env)
            ::putenv(const_cast<char*>(kv.c_str()));
        std::vector<char*> args;
        for (const auto& a : argv)
            args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        ::execvp(args[0], args.data());
        ::_exit(127);
    }
    ::close(in_pipe[0]);
    ::close(out_pipe[1]);
    ::close(err_pipe[1]);
    std::thread writer([&] {
        size_t off = 0;
        while (off < input.size()) {
            ssize_t n = ::write(in_pipe[1], input.data() + off, input.size() - off);
            if (n <= 0)
                break;
            off += static_cast<size_t>(n);
        }
        ::close(in_pipe[1]);
    });
    CommandResult r;
    std::thread err_reader([&] { r.err = drain(err_pipe[0]); });
    r.out = drain(out_pipe[0]);
    err_reader.join();
    writer.join();
    int status = 0;
    ::waitpid(pid, &status, 0);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return r;
}

CommandResult run_perfsweep(const std::vector<std::string>& args,
                            const std::vector<std::string>& env, const std::string& input) {
    std::vector<std::string> argv{PERFSWEEP_EXE};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_command(argv, env, input);
}

} // namespace perfsweep::test
