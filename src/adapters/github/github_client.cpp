#include "adapters/github/github_client.hpp"

#include "adapters/compat/library_compat.hpp"
#include "adapters/json/json_parse.hpp"
#include "adapters/process/secrets.hpp"
#include "util/error.hpp"
#include "util/secret_text.hpp"
#include "util/strings.hpp"

#include <curl/curl.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

namespace perfsweep::adapters {
namespace {

/// Where a reply goes while it arrives, with the caps that stop a reply that never ends.
struct Sink {
    HttpReply* reply;
    std::size_t max_body;
    std::size_t header_bytes = 0;
};
constexpr std::size_t k_max_header_bytes = 1 << 20; ///< all header lines of one reply

std::size_t on_body(char* data, std::size_t size, std::size_t n, void* user) {
    auto* sink = static_cast<Sink*>(user);
    if (sink->reply->body.size() + size * n > sink->max_body) {
        sink->reply->too_large = true;
        return 0; // libcurl stops: CURLE_WRITE_ERROR
    }
    sink->reply->body.append(data, size * n);
    return size * n;
}

std::size_t on_header(char* data, std::size_t size, std::size_t n, void* user) {
    auto* sink = static_cast<Sink*>(user);
    sink->header_bytes += size * n;
    if (sink->header_bytes > k_max_header_bytes) {
        sink->reply->too_large = true;
        return 0;
    }
    auto* headers = &sink->reply->headers;
    const std::string line(data, size * n);
    const auto colon = line.find(':');
    if (colon != std::string::npos) {
        std::string name = util::to_lower(util::trim(line.substr(0, colon)));
        (*headers)[name] = std::string(util::trim(line.substr(colon + 1)));
    } else if (line.rfind("HTTP/", 0) == 0) {
        headers->clear(); // a new response (after 100-continue or a redirect)
    }
    return size * n;
}

std::string json_string(const std::string& key, const std::string& value) {
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    w.StartObject();
    w.Key(key.c_str());
    w.String(value.c_str(), static_cast<rapidjson::SizeType>(value.size()));
    w.EndObject();
    return buf.GetString();
}

std::string str_field(const rapidjson::Value& v, const char* name) {
    auto it = v.FindMember(name);
    return it != v.MemberEnd() && it->value.IsString() ? it->value.GetString() : "";
}

/// Text from the server made safe to show or store: every secret of this process (the token, the
/// protected variables, `--env` secrets) masked, token-shaped words masked, one line, at most
/// `max` bytes (util::scrub_server_text).
std::string server_text(std::string_view text, const std::string& token,
                        std::size_t max = util::k_max_server_text) {
    auto secrets = secret_values();
    secrets.push_back(token);
    return util::scrub_server_text(text, secrets, max);
}

/// The `message` of an API error reply, exactly as sent ("" when there is none): for comparisons
/// only, never shown (server_text shows it).
std::string raw_api_message(const std::string& body) {
    rapidjson::Document d;
    if (!parse_json(d, body) && d.IsObject() && d.HasMember("message") && d["message"].IsString())
        return d["message"].GetString();
    return "";
}

/// What an error message shows of a reply: the API's `message` and every `errors[]` entry
/// (`message`, or `code` and `field`), else the start of the body. Server text: scrubbed of every
/// secret and bounded (util::scrub_server_text): a proxy or GHES may echo the Authorization
/// header into it.
std::string api_message(const std::string& body, const std::string& token) {
    rapidjson::Document d;
    if (parse_json(d, body) || !d.IsObject() || !d.HasMember("message") || !d["message"].IsString())
        return server_text(body.substr(0, 4 * util::k_max_server_text), token, 200);
    std::string text = d["message"].GetString();
    if (auto e = d.FindMember("errors"); e != d.MemberEnd() && e->value.IsArray()) {
        std::vector<std::string> parts;
        for (const auto& x : e->value.GetArray()) {
            if (parts.size() == 20) { // the message is cut at 512 bytes anyway
                parts.emplace_back("...");
                break;
            }
            if (x.IsString())
                parts.emplace_back(x.GetString());
            else if (x.IsObject() && !str_field(x, "message").empty())
                parts.push_back(str_field(x, "message"));
            else if (x.IsObject())
                parts.push_back(str_field(x, "code") + " " + str_field(x, "field"));
        }
        if (!parts.empty())
            text += " (" + util::join(parts, "; ") + ")";
    }
    return server_text(text, token);
}

long long int_field(const rapidjson::Value& v, const char* name) {
    auto it = v.FindMember(name);
    return it != v.MemberEnd() && it->value.IsInt64() ? it->value.GetInt64() : 0;
}

// Bodies stay as sent (only compared with ours, never shown); the URL is printed and stored as
// the comment-url output: server text.
ports::HostComment to_comment(const rapidjson::Value& v, const std::string& token) {
    ports::HostComment c;
    c.id = int_field(v, "id");
    c.body = str_field(v, "body");
    c.url = server_text(str_field(v, "html_url"), token, 2048);
    auto u = v.FindMember("user");
    if (u != v.MemberEnd() && u->value.IsObject())
        c.author = str_field(u->value, "login");
    return c;
}

ports::HostIssue to_issue(const rapidjson::Value& v, const std::string& token) {
    ports::HostIssue i;
    i.number = int_field(v, "number");
    i.title = server_text(str_field(v, "title"), token);
    i.body = str_field(v, "body");
    i.url = server_text(str_field(v, "html_url"), token, 2048);
    i.state = str_field(v, "state");
    auto u = v.FindMember("user");
    if (u != v.MemberEnd() && u->value.IsObject())
        i.author = str_field(u->value, "login");
    return i;
}

rapidjson::Document parse(const std::string& body, const std::string& what) {
    rapidjson::Document d;
    if (const auto err = parse_json(d, body))
        throw_infra("GitHub API " + what + ": reply is not JSON (" + err->message + " at offset " +
                    std::to_string(err->offset) + ")");
    return d;
}

// The reply of a successful POST; an unparsable one yields a null document (the outcome is then
// unknown to the caller, not an error: the resource was created).
rapidjson::Document parse_created(const std::string& body) {
    rapidjson::Document d;
    if (parse_json(d, body))
        d.SetNull();
    return d;
}

struct CurlGlobal {
    CurlGlobal() { curl_global_init(CURL_GLOBAL_DEFAULT); }
    ~CurlGlobal() { curl_global_cleanup(); }
};

} // namespace

std::string next_link(const std::string& link) {
    // <https://api.github.com/...&page=2>; rel="next", <...>; rel="last"
    for (const auto& part : util::split(link, ',')) {
        const auto lt = part.find('<'), gt = part.find('>');
        if (lt == std::string::npos || gt == std::string::npos || gt < lt)
            continue;
        if (part.find("rel=\"next\"", gt) != std::string::npos)
            return part.substr(lt + 1, gt - lt - 1);
    }
    return "";
}

void check_repo_name(const std::string& repo, const std::string& flag) {
    const auto parts = util::split(repo, '/');
    auto ok_part = [](const std::string& s) {
        return !s.empty() && s != "." && s != ".." && std::all_of(s.begin(), s.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
        });
    };
    if (parts.size() != 2 || !ok_part(parts[0]) || !ok_part(parts[1]))
        throw_usage(flag + " '" + repo + "': expected OWNER/NAME");
}

GitHubOptions github_options_from_env(const std::function<std::string(const std::string&)>& get,
                                      const std::string& token_env) {
    GitHubOptions opt;
    opt.token = get(token_env);
    if (opt.token.empty())
        throw_usage("--token-env " + token_env + ": the environment variable is empty or not set");
    if (!get("GITHUB_API_URL").empty())
        opt.api_url = get("GITHUB_API_URL");
    auto num = [&](const char* n, double& out) {
        const std::string v = get(n);
        if (v.empty())
            return;
        auto d = util::parse_double(v);
        if (!d || *d < 0)
            throw_usage(std::string(n) + " '" + v + "': expected a number >= 0");
        out = *d;
    };
    num("PERFSWEEP_GITHUB_TIMEOUT_S", opt.timeout_s);
    num("PERFSWEEP_GITHUB_BACKOFF_S", opt.backoff_s);
    num("PERFSWEEP_GITHUB_MAX_WAIT_S", opt.max_wait_s);
    return opt;
}

GitHubClient::GitHubClient(GitHubOptions options, ports::Clock& clock)
    : m_opt(std::move(options)), m_clock(clock) {
    static CurlGlobal global;
    while (!m_opt.api_url.empty() && m_opt.api_url.back() == '/')
        m_opt.api_url.pop_back();
    if (m_opt.api_url.rfind("https://", 0) != 0 && m_opt.api_url.rfind("http://", 0) != 0)
        throw_usage("GITHUB_API_URL '" + m_opt.api_url + "': expected an http(s) URL");
    if (m_opt.token.empty())
        throw_usage("GitHub token: empty");
}

GitHubClient::~GitHubClient() = default;

HttpReply GitHubClient::perform(const std::string& method, const std::string& url,
                                const std::string& body) {
    HttpReply reply;
    std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), curl_easy_cleanup);
    if (!curl)
        throw_infra("libcurl: cannot create a handle");
    CURL* c = curl.get();
    struct curl_slist* h = nullptr;
    const std::string auth = "Authorization: Bearer " + m_opt.token;
    h = curl_slist_append(h, auth.c_str());
    h = curl_slist_append(h, "Accept: application/vnd.github+json");
    h = curl_slist_append(h, "X-GitHub-Api-Version: 2022-11-28");
    if (!body.empty())
        h = curl_slist_append(h, "Content-Type: application/json; charset=utf-8");
    h = curl_slist_append(h, "Expect:");
    std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> headers(h, curl_slist_free_all);
    char errbuf[CURL_ERROR_SIZE] = {0};
    curl_easy_setopt(c, CURLOPT_URL, url.c_str());
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method.c_str());
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
    curl_easy_setopt(c, CURLOPT_USERAGENT, m_opt.user_agent.c_str());
    curl_easy_setopt(c, CURLOPT_VERBOSE, 0L); // never: it would print the Authorization header
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(m_opt.timeout_s * 1000));
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
                     static_cast<long>(m_opt.connect_timeout_s * 1000));
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L); // the token must not follow redirects
    if (compat::restrict_to_http(c) != CURLE_OK)     // fail closed: never send the token elsewhere
        throw_infra("libcurl: cannot restrict requests to http and https");
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
    Sink sink{&reply, m_opt.max_reply_bytes};
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &sink);
    // A reply that announces more than the cap is refused before its body is read.
    curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(m_opt.max_reply_bytes));
    if (!body.empty() || method == "POST" || method == "PATCH") {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.c_str());
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
    }
    const CURLcode rc = curl_easy_perform(c);
    if (rc == CURLE_FILESIZE_EXCEEDED)
        reply.too_large = true;
    if (rc != CURLE_OK) {
        reply.status = 0;
        if (reply.too_large) {
            reply.body.clear();
            reply.headers.clear();
        }
        reply.transport_error =
            server_text(errbuf[0] ? errbuf : curl_easy_strerror(rc), m_opt.token);
        return reply;
    }
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &reply.status);
    return reply;
}

std::optional<HttpReply> GitHubClient::request(const std::string& method, const std::string& url,
                                               const std::string& body, bool idempotent,
                                               bool return_403_404) {
    // What the messages show: the method and the path (never the token, never the query).
    std::string shown = url.substr(0, url.find('?'));
    if (shown.rfind(m_opt.api_url, 0) == 0)
        shown = shown.substr(m_opt.api_url.size());
    const std::string what = method + " " + shown;
    double backoff = m_opt.backoff_s;
    for (int attempt = 1;; ++attempt) {
        HttpReply r = perform(method, url, body);
        if (r.too_large) // a reply that never ends is not retried
            throw_infra("GitHub API " + what + ": the reply is larger than " +
                        std::to_string(m_opt.max_reply_bytes >> 20) +
                        " MiB (or its headers than 1 MiB); not read further (a proxy or server "
                        "that does not end its reply?)");
        const bool last = attempt >= m_opt.max_attempts;
        if (r.status == 0 || r.status >= 500) {
            if (!idempotent) {
                // It may have happened: the caller re-checks. A write whose reply never came may
                // still be in flight on the server: give it one more timeout to land first.
                if (r.status == 0)
                    m_clock.sleep(m_opt.timeout_s);
                return std::nullopt;
            }
            if (last)
                throw_infra("GitHub API " + what + ": " +
                            (r.status
                                 ? std::to_string(r.status) + " " + api_message(r.body, m_opt.token)
                                 : r.transport_error) +
                            " (after " + std::to_string(attempt) + " attempts)");
            m_clock.sleep(backoff);
            backoff *= 2;
            continue;
        }
        // A secondary rate limit may come as a 403 with nothing but its message: GitHub then
        // asks for at least a minute's wait, longer after each refusal (the backoff below).
        const bool limited =
            r.status == 429 ||
            (r.status == 403 &&
             (r.headers.count("retry-after") ||
              (r.headers.count("x-ratelimit-remaining") &&
               r.headers["x-ratelimit-remaining"] == "0") ||
              util::to_lower(raw_api_message(r.body)).find("secondary rate limit") !=
                  std::string::npos));
        if (limited) {
            double wait = backoff * 60;
            if (auto ra = r.headers.find("retry-after"); ra != r.headers.end()) {
                if (auto v = util::parse_double(ra->second))
                    wait = *v;
            } else if (auto reset = r.headers.find("x-ratelimit-reset"); reset != r.headers.end()) {
                if (auto v = util::parse_double(reset->second))
                    wait = std::max(0.0, *v - m_clock.now()) + 1;
            }
            if (wait > m_opt.max_wait_s)
                throw_infra("GitHub API " + what + ": rate limited (" + std::to_string(r.status) +
                            " " + api_message(r.body, m_opt.token) + "); the wait of " +
                            std::to_string(std::lround(wait)) + " s exceeds the cap of " +
                            std::to_string(std::lround(m_opt.max_wait_s)) + " s");
            if (last)
                throw_infra("GitHub API " + what + ": still rate limited after " +
                            std::to_string(attempt) + " attempts");
            m_clock.sleep(wait);
            backoff *= 2;
            continue;
        }
        if (r.status >= 300 && r.status < 400) {
            // Never followed: the token must not go to another URL, and a write answered with a
            // redirect did not happen. GitHub answers so for a renamed or transferred repository.
            const auto to = r.headers.find("location");
            throw_infra("GitHub API " + what + ": " + std::to_string(r.status) + " moved" +
                        (to == r.headers.end()
                             ? std::string(" (no Location)")
                             : " to " + server_text(to->second, m_opt.token, 300)) +
                        "; nothing was changed. The repository was probably renamed or "
                        "transferred: use its new OWNER/NAME (perfsweep does not follow "
                        "redirects with the token)");
        }
        if (return_403_404 && (r.status == 403 || r.status == 404))
            return r;
        if (r.status >= 400) {
            std::string hint;
            if (r.status == 401)
                hint = " (check the token)";
            if (r.status == 403 || r.status == 404)
                hint = " (check the repository name and the token's permissions: "
                       "issues/pull-requests write)";
            throw_infra("GitHub API " + what + ": " + std::to_string(r.status) + " " +
                        api_message(r.body, m_opt.token) + hint);
        }
        return r;
    }
}

std::vector<std::string> GitHubClient::get_all_pages(const std::string& first) {
    std::vector<std::string> pages;
    std::set<std::string> seen;
    std::string url = first;
    for (int n = 0; !url.empty(); ++n) {
        if (!seen.insert(url).second)
            throw_infra("GitHub API: the Link header of " + first.substr(0, first.find('?')) +
                        " loops back to a page already read (rel=\"next\" page " +
                        std::to_string(n + 1) + "); not following it");
        if (n > 1000)
            throw_infra("GitHub API: more than 1000 pages at " + first.substr(0, first.find('?')));
        if (url.rfind(m_opt.api_url + "/", 0) != 0)
            throw_infra("GitHub API: a Link header points outside " + m_opt.api_url +
                        "; not following it");
        auto r = request("GET", url, "", true);
        pages.push_back(r->body);
        url = r->headers.count("link") ? next_link(r->headers["link"]) : "";
    }
    return pages;
}

std::optional<std::string> GitHubClient::current_user() {
    const std::string url = m_opt.api_url + "/user";
    // An installation token (an Actions GITHUB_TOKEN) may not read /user (403, not a rate
    // limit): the author is then github-actions[bot], which the caller handles.
    const HttpReply r = *request("GET", url, "", true, true);
    // Only the documented answer for an installation token means "no user"; any other 403/404
    // is an error (guessing the wrong author would post a second sticky comment).
    if (r.status == 403 && raw_api_message(r.body) == "Resource not accessible by integration")
        return std::nullopt;
    if (r.status == 403 || r.status == 404)
        throw_infra("GitHub API GET /user: " + std::to_string(r.status) + " " +
                    api_message(r.body, m_opt.token) +
                    " (check the token; an Actions GITHUB_TOKEN gets 403 'Resource not "
                    "accessible by integration')");
    auto d = parse(r.body, "GET /user");
    if (!d.IsObject())
        return std::nullopt;
    const std::string login = str_field(d, "login");
    return login.empty() ? std::nullopt : std::optional<std::string>(login);
}

std::vector<ports::HostComment> GitHubClient::list_comments(const std::string& repo,
                                                            long long number) {
    check_repo_name(repo, "--repo");
    std::vector<ports::HostComment> out;
    const std::string what =
        "GET /repos/" + repo + "/issues/" + std::to_string(number) + "/comments";
    for (const auto& page : get_all_pages(m_opt.api_url + "/repos/" + repo + "/issues/" +
                                          std::to_string(number) + "/comments?per_page=100")) {
        auto d = parse(page, what);
        if (!d.IsArray())
            throw_infra("GitHub API " + what + ": expected a JSON array");
        for (const auto& v : d.GetArray())
            if (v.IsObject())
                out.push_back(to_comment(v, m_opt.token));
    }
    return out;
}

std::optional<ports::HostComment>
GitHubClient::create_comment(const std::string& repo, long long number, const std::string& body) {
    check_repo_name(repo, "--repo");
    auto r = request("POST",
                     m_opt.api_url + "/repos/" + repo + "/issues/" + std::to_string(number) +
                         "/comments",
                     json_string("body", body), false);
    if (!r)
        return std::nullopt;
    auto d = parse_created(r->body);
    if (!d.IsObject() || int_field(d, "id") == 0)
        return std::nullopt; // created, but the reply is unreadable: the caller re-lists
    return to_comment(d, m_opt.token);
}

ports::HostComment GitHubClient::update_comment(const std::string& repo, long long id,
                                                const std::string& body) {
    check_repo_name(repo, "--repo");
    // PATCH with the full body is idempotent: retried like a read.
    auto r = request("PATCH",
                     m_opt.api_url + "/repos/" + repo + "/issues/comments/" + std::to_string(id),
                     json_string("body", body), true);
    auto d = parse(r->body, "PATCH comment");
    return to_comment(d, m_opt.token);
}

std::vector<ports::HostIssue> GitHubClient::list_issues(const std::string& repo,
                                                        const std::string& label,
                                                        const std::string& state) {
    check_repo_name(repo, "--repo");
    if (state != "open" && state != "closed" && state != "all")
        throw_usage("issue state '" + state + "': expected open, closed or all");
    std::string url = m_opt.api_url + "/repos/" + repo + "/issues?state=" + state + "&per_page=100";
    if (!label.empty()) {
        std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> c(curl_easy_init(), curl_easy_cleanup);
        char* esc = curl_easy_escape(c.get(), label.c_str(), static_cast<int>(label.size()));
        url += std::string("&labels=") + esc;
        curl_free(esc);
    }
    std::vector<ports::HostIssue> out;
    for (const auto& page : get_all_pages(url)) {
        auto d = parse(page, "GET /repos/" + repo + "/issues");
        if (!d.IsArray())
            throw_infra("GitHub API GET /repos/" + repo + "/issues: expected a JSON array");
        for (const auto& v : d.GetArray())
            if (v.IsObject() && !v.HasMember("pull_request"))
                out.push_back(to_issue(v, m_opt.token));
    }
    return out;
}

std::optional<ports::HostIssue> GitHubClient::create_issue(const std::string& repo,
                                                           const std::string& title,
                                                           const std::string& body,
                                                           const std::vector<std::string>& labels) {
    check_repo_name(repo, "--repo");
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    w.StartObject();
    w.Key("title");
    w.String(title.c_str(), static_cast<rapidjson::SizeType>(title.size()));
    w.Key("body");
    w.String(body.c_str(), static_cast<rapidjson::SizeType>(body.size()));
    if (!labels.empty()) {
        w.Key("labels");
        w.StartArray();
        for (const auto& l : labels)
            w.String(l.c_str(), static_cast<rapidjson::SizeType>(l.size()));
        w.EndArray();
    }
    w.EndObject();
    auto r = request("POST", m_opt.api_url + "/repos/" + repo + "/issues", buf.GetString(), false);
    if (!r)
        return std::nullopt;
    auto d = parse_created(r->body);
    if (!d.IsObject() || int_field(d, "number") == 0)
        return std::nullopt; // created, but the reply is unreadable: the caller re-lists
    return to_issue(d, m_opt.token);
}

ports::HostIssue GitHubClient::update_issue(const std::string& repo, long long number,
                                            const ports::IssueUpdate& update) {
    check_repo_name(repo, "--repo");
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    w.StartObject();
    auto field = [&w](const char* key, const std::optional<std::string>& v) {
        if (!v)
            return;
        w.Key(key);
        w.String(v->c_str(), static_cast<rapidjson::SizeType>(v->size()));
    };
    field("body", update.body);
    field("state", update.state);
    field("state_reason", update.state_reason);
    w.EndObject();
    // PATCH with full values is idempotent: retried like a read.
    const std::string path = "/repos/" + repo + "/issues/" + std::to_string(number);
    auto r = request("PATCH", m_opt.api_url + path, buf.GetString(), true);
    auto d = parse(r->body, "PATCH " + path);
    if (!d.IsObject())
        throw_infra("GitHub API PATCH " + path + ": expected a JSON object");
    return to_issue(d, m_opt.token);
}

std::string GitHubClient::collaborator_permission(const std::string& repo,
                                                  const std::string& login) {
    check_repo_name(repo, "--repo");
    const bool plain =
        !login.empty() && login.size() <= 64 && std::all_of(login.begin(), login.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '[' ||
                   c == ']' || c == '_';
        });
    if (!plain)
        throw_usage("collaborator permission: the login is not a GitHub login");
    std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> c(curl_easy_init(), curl_easy_cleanup);
    char* esc = curl_easy_escape(c.get(), login.c_str(), static_cast<int>(login.size()));
    const std::string user = esc ? esc : "";
    curl_free(esc);
    const std::string what = "GET /repos/" + repo + "/collaborators/{username}/permission";
    auto r =
        request("GET", m_opt.api_url + "/repos/" + repo + "/collaborators/" + user + "/permission",
                "", true, true);
    if (r->status == 404)
        return "none"; // not a user (or not visible to the token): no access
    if (r->status == 403)
        throw_infra("GitHub API " + what + ": 403 " + api_message(r->body, m_opt.token) +
                    " (the token needs read access to the repository's metadata)");
    auto d = parse(r->body, what);
    if (!d.IsObject())
        throw_infra("GitHub API " + what + ": expected a JSON object");
    // role_name tells maintain and triage apart; the legacy `permission` folds them into
    // write and read.
    std::string role = str_field(d, "role_name");
    if (role.empty())
        role = str_field(d, "permission");
    for (const char* known : {"admin", "maintain", "write", "triage", "read", "none"})
        if (role == known)
            return role;
    return "none"; // custom roles and unknown values grant nothing here
}

} // namespace perfsweep::adapters
