// Suite "redirects": a token goes only to the host it is for. LoopbackHttp HTTP servers stand in
// for a git host that answers 302 to another host (127.0.0.1 → 127.0.0.2, another port) and for one
// that keeps answering 401; the second host records every Authorization header that reaches it.
// - `hourly --fetch` (libgit2 fetch of a --repo clone with PERFSWEEP_GIT_TOKEN): before, libgit2
//   followed the redirect and sent the token there, and sent it 13 times to a host that refused
//   it.
// - a git+http(s) history (record and detect fetch it with GITHUB_TOKEN): before, the token
//   went to the other host too.
// - the GitHub client answered 307: never followed (the request is refused with where it moved).
// Figure: cases, tokens that reached another host (goal 0), requests that followed a redirect
// off-site (goal 0), most times one host was sent the token (goal 1).

#include "adapters/git/libgit2_repo.hpp"
#include "adapters/github/github_client.hpp"
#include "adapters/history/git_branch_store.hpp"
#include "support/env_guard.hpp"
#include "support/fakes/memory.hpp"
#include "support/figures.hpp"
#include "support/git_repo.hpp"
#include "support/temp_dir.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using namespace perfsweep;
using namespace perfsweep::test;

namespace {

/// An HTTP/1.1 server on `host`:port for the life of the object: one request a connection,
/// answered by `answer(request)`, every request text kept.
class LoopbackHttp {
public:
    LoopbackHttp(const std::string& host, std::function<std::string(const std::string&)> answer)
        : m_answer(std::move(answer)) {
        m_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        REQUIRE(m_fd >= 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_port = 0;
        REQUIRE(::inet_pton(AF_INET, host.c_str(), &a.sin_addr) == 1);
        REQUIRE(::bind(m_fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
        REQUIRE(::listen(m_fd, 16) == 0);
        socklen_t len = sizeof a;
        ::getsockname(m_fd, reinterpret_cast<sockaddr*>(&a), &len);
        m_url = "http://" + host + ":" + std::to_string(ntohs(a.sin_port));
        m_thread = std::thread([this] { serve(); });
    }
    ~LoopbackHttp() {
        m_stop = true;
        m_thread.join();
        ::close(m_fd);
    }
    LoopbackHttp(const LoopbackHttp&) = delete;
    LoopbackHttp& operator=(const LoopbackHttp&) = delete;
    const std::string& url() const { return m_url; }
    std::vector<std::string> requests() const {
        std::lock_guard<std::mutex> lock(m_mutex);
        return m_requests;
    }
    /// Requests that carried an Authorization header.
    int authorized() const {
        int n = 0;
        for (const auto& r : requests())
            n += r.find("\r\nAuthorization:") != std::string::npos ||
                         r.find("\r\nauthorization:") != std::string::npos
                     ? 1
                     : 0;
        return n;
    }

private:
    void serve() {
        while (!m_stop) {
            pollfd p{m_fd, POLLIN, 0};
            if (::poll(&p, 1, 50) <= 0)
                continue;
            const int c = ::accept4(m_fd, nullptr, nullptr, SOCK_CLOEXEC);
            if (c < 0)
                continue;
            std::string req;
            char buf[4096];
            while (req.find("\r\n\r\n") == std::string::npos) {
                pollfd q{c, POLLIN, 0};
                if (::poll(&q, 1, 2000) <= 0)
                    break;
                const ssize_t n = ::read(c, buf, sizeof buf);
                if (n <= 0)
                    break;
                req.append(buf, static_cast<std::size_t>(n));
            }
            {
                std::lock_guard<std::mutex> lock(m_mutex);
                m_requests.push_back(req);
            }
            const std::string reply = m_answer(req);
            for (std::size_t off = 0; off < reply.size();) {
                const ssize_t n = ::write(c, reply.data() + off, reply.size() - off);
                if (n <= 0)
                    break;
                off += static_cast<std::size_t>(n);
            }
            ::shutdown(c, SHUT_WR);
            ::close(c);
        }
    }
    int m_fd = -1;
    std::string m_url;
    std::function<std::string(const std::string&)> m_answer;
    std::atomic<bool> m_stop{false};
    std::thread m_thread;
    mutable std::mutex m_mutex;
    std::vector<std::string> m_requests;
};

std::string answer_401(const std::string&) {
    return "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"git\"\r\n"
           "Content-Length: 0\r\nConnection: close\r\n\r\n";
}

/// A redirect of every request to the same path at `to`.
std::function<std::string(const std::string&)> answer_redirect(const std::string& to, int status) {
    return [to, status](const std::string& req) {
        const auto sp = req.find(' '), sp2 = req.find(' ', sp + 1);
        const std::string path = req.substr(sp + 1, sp2 - sp - 1);
        return "HTTP/1.1 " + std::to_string(status) + " Moved\r\nLocation: " + to + path +
               "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
    };
}

struct RedirectTally {
    int cases = 0;
    int token_offsite = 0;
    int followed_offsite = 0;
    int most_sent = 0;
};

const std::string k_redirect_token = "ghs_redirectsuitetoken0123456789";

/// A new repository at `path` whose origin is `origin_url` + "/jax.git", opened through libgit2.
std::unique_ptr<ports::SourceRepo> clone_of(const std::string& path,
                                            const std::string& origin_url) {
    std::filesystem::create_directories(path);
    git_at(path, {"init", "-q"}, 1692835200);
    git_at(path, {"remote", "add", "origin", origin_url + "/jax.git"}, 1692835200);
    return adapters::open_libgit2_repo("jax", path);
}

} // namespace

TEST_CASE("redirects: a git fetch or a history fetch never sends its token to another host, and "
          "a refused token is sent once",
          "[suites][redirects]") {
    RedirectTally t;
    TempDir dir("perfsweep-redirects");

    // 1. hourly --fetch: the clone's origin answers 302 to another host, which asks for a login.
    {
        LoopbackHttp other("127.0.0.2", answer_401);
        LoopbackHttp origin("127.0.0.1", answer_redirect(other.url(), 302));
        EnvGuard token("PERFSWEEP_GIT_TOKEN", k_redirect_token);
        auto repo = clone_of(dir.file("clone"), origin.url());
        CHECK_THROWS_AS(repo->fetch("origin", "PERFSWEEP_GIT_TOKEN"), Error);
        ++t.cases;
        t.token_offsite += other.authorized();
        t.followed_offsite += other.requests().empty() ? 0 : 1;
        CHECK(other.authorized() == 0);
    }
    // 2. The same origin refusing the token: asked for it again and again, it is sent once.
    {
        LoopbackHttp origin("127.0.0.1", answer_401);
        EnvGuard token("PERFSWEEP_GIT_TOKEN", k_redirect_token);
        auto repo = clone_of(dir.file("clone2"), origin.url());
        try {
            repo->fetch("origin", "PERFSWEEP_GIT_TOKEN");
            FAIL("expected an error");
        } catch (const Error& e) {
            CHECK(std::string(e.what()).find(k_redirect_token) == std::string::npos);
        }
        ++t.cases;
        t.most_sent = std::max(t.most_sent, origin.authorized());
        CHECK(origin.authorized() <= 1);
    }
    // 3. A git+http history (record, detect): its remote answers 302 to another host.
    {
        LoopbackHttp other("127.0.0.2", answer_401);
        LoopbackHttp origin("127.0.0.1", answer_redirect(other.url(), 302));
        adapters::GitStoreOptions opt;
        opt.cache_dir = dir.file("cache");
        opt.token = k_redirect_token;
        adapters::GitBranchStore store(
            adapters::parse_git_history_spec("git+" + origin.url() + "/data.git#perfsweep-data",
                                             dir.path().string()),
            opt);
        try {
            store.load();
            FAIL("expected an error");
        } catch (const Error& e) {
            CHECK(std::string(e.what()).find(k_redirect_token) == std::string::npos);
        }
        ++t.cases;
        t.token_offsite += other.authorized();
        t.followed_offsite += other.requests().empty() ? 0 : 1;
        CHECK(other.authorized() == 0);
    }
    // 4. The GitHub API answering 307 to another host: not followed, the error says where.
    {
        LoopbackHttp other("127.0.0.2", answer_401);
        LoopbackHttp api("127.0.0.1", answer_redirect(other.url(), 307));
        fakes::ManualClock clock;
        adapters::GitHubOptions opt;
        opt.api_url = api.url();
        opt.token = k_redirect_token;
        adapters::GitHubClient client(opt, clock);
        CHECK_THROWS_WITH(client.list_comments("acme/lbm", 1),
                          Catch::Contains("307 moved to " + other.url()));
        ++t.cases;
        t.token_offsite += other.authorized();
        t.followed_offsite += other.requests().empty() ? 0 : 1;
    }
    report_figure("redirects", {{"cases", std::to_string(t.cases)},
                                {"token_sent_offsite", std::to_string(t.token_offsite)},
                                {"followed_offsite", std::to_string(t.followed_offsite)},
                                {"most_sends_to_one_host", std::to_string(t.most_sent)}});
    CHECK(t.token_offsite == 0);
    CHECK(t.followed_offsite == 0);
    CHECK(t.most_sent <= 1);
}
