#include "support/fakes/code_host.hpp"

#include "util/error.hpp"

#include <algorithm>

namespace perfsweep::fakes {

namespace {

class FakeCodeHost final : public ports::CodeHost {
public:
    explicit FakeCodeHost(HostData& d) : m_d(d) {}
    std::optional<std::string> current_user() override {
        ++m_d.requests;
        return m_d.login;
    }
    std::vector<ports::HostComment> list_comments(const std::string& repo,
                                                  long long number) override {
        return at(repo, number).comments;
    }
    std::optional<ports::HostComment> create_comment(const std::string& repo, long long number,
                                                     const std::string& body) override {
        auto& i = at(repo, number);
        ports::HostComment c;
        c.id = ++m_d.next_id;
        c.body = body;
        c.author = m_d.login;
        c.url = "https://github.test/" + repo + "/issues/" + std::to_string(number) +
                "#issuecomment-" + std::to_string(c.id);
        i.comments.push_back(c);
        return c;
    }
    ports::HostComment update_comment(const std::string& repo, long long id,
                                      const std::string& body) override {
        ++m_d.requests;
        for (auto& [n, i] : m_d.repos[repo])
            for (auto& c : i.comments)
                if (c.id == id) {
                    c.body = body;
                    return c;
                }
        throw_infra("GitHub: PATCH comment " + std::to_string(id) + " of " + repo +
                    ": 404 Not Found");
    }
    std::vector<ports::HostIssue> list_issues(const std::string& repo, const std::string& label,
                                              const std::string& state) override {
        ++m_d.requests;
        std::vector<ports::HostIssue> out;
        for (const auto& [n, i] : m_d.repos[repo]) {
            if (!label.empty() &&
                std::find(i.labels.begin(), i.labels.end(), label) == i.labels.end())
                continue;
            if (state != "all" && i.issue.state != state)
                continue;
            out.push_back(i.issue);
        }
        std::reverse(out.begin(), out.end()); // newest first
        return out;
    }
    ports::HostIssue update_issue(const std::string& repo, long long number,
                                  const ports::IssueUpdate& u) override {
        auto& i = at(repo, number);
        if (u.body)
            i.issue.body = *u.body;
        if (u.state)
            i.issue.state = *u.state;
        return i.issue;
    }
    std::optional<ports::HostIssue> create_issue(const std::string& repo, const std::string& title,
                                                 const std::string& body,
                                                 const std::vector<std::string>& labels) override {
        ++m_d.requests;
        auto& issues = m_d.repos[repo];
        const long long number = issues.empty() ? 1 : issues.rbegin()->first + 1;
        auto& i = issues[number];
        i.issue.number = number;
        i.issue.title = title;
        i.issue.body = body;
        i.issue.author = m_d.login;
        i.issue.url = "https://github.test/" + repo + "/issues/" + std::to_string(number);
        i.labels = labels;
        return i.issue;
    }
    std::string collaborator_permission(const std::string& repo,
                                        const std::string& login) override {
        ++m_d.requests;
        const auto it = m_d.permissions.find(repo + " " + login);
        return it == m_d.permissions.end() ? "none" : it->second;
    }

private:
    HostData::Issue& at(const std::string& repo, long long number) {
        ++m_d.requests;
        auto& issues = m_d.repos[repo];
        const auto it = issues.find(number);
        if (it == issues.end())
            throw_infra("GitHub: issue " + repo + "#" + std::to_string(number) + ": 404 Not Found");
        return it->second;
    }
    HostData& m_d;
};

} // namespace

std::unique_ptr<ports::CodeHost> FakeCodeHosts::open(const std::string& token_env) {
    const auto it = tokens.find(token_env);
    if (it == tokens.end() || it->second.empty())
        throw_usage("--token-env " + token_env + ": the environment variable is empty or not set");
    return std::make_unique<FakeCodeHost>(data);
}

} // namespace perfsweep::fakes
