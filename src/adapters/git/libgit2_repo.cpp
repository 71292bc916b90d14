#include "adapters/git/libgit2_repo.hpp"

#include "adapters/compat/library_compat.hpp"
#include "adapters/git/credentials.hpp"
#include "adapters/system/path_lock.hpp"
#include "util/crash_point.hpp"
#include "util/error.hpp"

#include <git2.h>

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string_view>

namespace perfsweep::adapters {

void ensure_libgit2() {
    // Destroyed at exit, after every repo object.
    static const struct Libgit2 {
        Libgit2() { git_libgit2_init(); }
        ~Libgit2() { git_libgit2_shutdown(); }
    } once;
}

namespace {

/// Write this process's pid to `path` (best effort: without it a stale lock needs a manual
/// `rm`, as with git itself).
void write_marker(const std::string& path) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    const std::string pid = std::to_string(::getpid()) + "\n";
    const ssize_t n = ::write(fd, pid.data(), pid.size());
    (void)n;
    ::close(fd);
}

/// If `marker` names a perfsweep process that is gone (killed mid-checkout), remove the lock
/// files it left in `gitdir`.
void clear_stale_locks(const std::string& gitdir, const std::string& marker) {
    std::ifstream in(marker);
    long pid = 0;
    if (!(in >> pid) || pid <= 0)
        return;
    if (pid != ::getpid() && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH))
        return; // that process still runs (or cannot be checked): not ours to clear
    for (const char* lock : {"index.lock", "HEAD.lock"})
        ::unlink((gitdir + lock).c_str());
}

template <typename T, void (*Free)(T*)> struct Handle {
    T* p = nullptr;
    Handle() = default;
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    ~Handle() {
        if (p)
            Free(p);
    }
};
using RepoHandle = Handle<git_repository, git_repository_free>;
using CommitHandle = Handle<git_commit, git_commit_free>;
using ObjectHandle = Handle<git_object, git_object_free>;
using WalkHandle = Handle<git_revwalk, git_revwalk_free>;
using RemoteHandle = Handle<git_remote, git_remote_free>;
using OdbHandle = Handle<git_odb, git_odb_free>;
using ReferenceHandle = Handle<git_reference, git_reference_free>;
using ConfigHandle = Handle<git_config, git_config_free>;
using OdbObjectHandle = Handle<git_odb_object, git_odb_object_free>;

std::string last_error() {
    const git_error* e = git_error_last();
    return e && e->message ? e->message : "unknown libgit2 error";
}

std::string oid_str(const git_oid* oid) {
    char buf[GIT_OID_HEXSZ + 1];
    git_oid_tostr(buf, sizeof buf, oid);
    return buf;
}

core::CommitInfo info_of(const git_commit* c) {
    core::CommitInfo info;
    info.sha = oid_str(git_commit_id(c));
    info.time = static_cast<util::UnixSeconds>(git_commit_time(c));
    if (const git_signature* a = git_commit_author(c))
        info.author = std::string(a->name ? a->name : "") + " <" + (a->email ? a->email : "") + ">";
    if (const char* s = git_commit_summary(const_cast<git_commit*>(c)))
        info.subject = s;
    const unsigned n = git_commit_parentcount(c);
    for (unsigned i = 0; i < n; ++i)
        info.parents.push_back(oid_str(git_commit_parent_id(c, i)));
    return info;
}

/// Parse a raw commit object: parents, committer time, author and subject.
core::CommitInfo parse_raw_commit(std::string sha, std::string_view raw) {
    core::CommitInfo info;
    info.sha = std::move(sha);
    std::size_t pos = 0;
    while (pos < raw.size()) {
        auto end = raw.find('\n', pos);
        if (end == std::string_view::npos)
            end = raw.size();
        const auto line = raw.substr(pos, end - pos);
        pos = end + 1;
        if (line.empty())
            break; // the message follows
        if (line.rfind("parent ", 0) == 0) {
            info.parents.emplace_back(line.substr(7));
        } else if (line.rfind("author ", 0) == 0) {
            const auto gt = line.rfind('>');
            if (gt != std::string_view::npos)
                info.author = std::string(line.substr(7, gt - 6));
        } else if (line.rfind("committer ", 0) == 0) {
            // "committer NAME <EMAIL> SECONDS ZONE"
            const auto gt = line.rfind('>');
            if (gt != std::string_view::npos) {
                const auto rest = line.substr(gt + 1);
                info.time = std::strtoll(std::string(rest).c_str(), nullptr, 10);
            }
        }
    }
    // Subject: the first paragraph of the message, lines joined by spaces (git's summary).
    while (pos < raw.size() && raw[pos] == '\n')
        ++pos;
    std::string subject;
    while (pos < raw.size()) {
        auto end = raw.find('\n', pos);
        if (end == std::string_view::npos)
            end = raw.size();
        auto line = raw.substr(pos, end - pos);
        pos = end + 1;
        while (!line.empty() && (line.back() == ' ' || line.back() == '\r'))
            line.remove_suffix(1);
        if (line.empty())
            break;
        if (!subject.empty())
            subject += ' ';
        subject += line;
    }
    info.subject = std::move(subject);
    return info;
}

class Libgit2Repo final : public ports::SourceRepo {
public:
    Libgit2Repo(std::string name, std::string path)
        : m_name(std::move(name)), m_path(std::move(path)) {
        if (git_repository_open_ext(&m_repo.p, m_path.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH,
                                    nullptr) != 0)
            throw_usage("--repo " + m_name + "=" + m_path + ": not a git repository (" +
                        last_error() + ")");
        if (git_repository_is_bare(m_repo.p))
            throw_usage("--repo " + m_name + "=" + m_path +
                        ": a bare repository; expected a clone with a worktree");
        // The worktree is checked out, built and measured state by state: one perfsweep at a
        // time (a second one would measure states the first had checked out, and blame the
        // wrong commit). The lock is per worktree (a linked worktree has its own git dir).
        m_lock = hold_dir_lock(git_repository_path(m_repo.p), "--repo " + m_name + "=" + m_path,
                               "wait for it to finish, or give this search its own clone or "
                               "worktree (git worktree add): two searches checking out one "
                               "worktree measure each other's states");
    }

    const std::string& name() const override { return m_name; }
    const std::string& path() const override { return m_path; }

    bool is_shallow() override { return git_repository_is_shallow(m_repo.p) == 1; }

    std::string resolve(const std::string& ref) override {
        git_oid oid = resolve_oid(ref);
        return oid_str(&oid);
    }

    std::vector<core::CommitInfo> first_parent_history(const std::string& ref,
                                                       util::UnixSeconds since) override {
        // Raw object reads parsed here are several times faster than git_commit_lookup for the
        // long walks from the tip down to a window in the past.
        git_oid oid = resolve_oid(ref);
        OdbHandle odb;
        if (git_repository_odb(&odb.p, m_repo.p) != 0)
            fail("open the object database");
        std::vector<core::CommitInfo> out;
        for (;;) {
            OdbObjectHandle obj;
            if (git_odb_read(&obj.p, odb.p, &oid) != 0)
                fail("read commit " + oid_str(&oid) +
                     (out.empty() ? "" : " (a shallow or damaged clone?)"));
            if (git_odb_object_type(obj.p) != GIT_OBJECT_COMMIT)
                fail("read commit " + oid_str(&oid) + ": not a commit");
            const std::string_view raw(static_cast<const char*>(git_odb_object_data(obj.p)),
                                       git_odb_object_size(obj.p));
            out.push_back(parse_raw_commit(oid_str(&oid), raw));
            if (out.back().time <= since || out.back().parents.empty())
                break;
            if (git_oid_fromstr(&oid, out.back().parents.front().c_str()) != 0)
                fail("parse the parent of " + out.back().sha);
        }
        return out;
    }

    std::vector<core::CommitInfo> reachable(const std::string& ref) override {
        git_oid oid = resolve_oid(ref);
        WalkHandle walk;
        if (git_revwalk_new(&walk.p, m_repo.p) != 0)
            fail("start a revision walk");
        git_revwalk_sorting(walk.p, GIT_SORT_NONE);
        if (git_revwalk_push(walk.p, &oid) != 0)
            fail("walk from '" + ref + "'");
        std::vector<core::CommitInfo> out;
        git_oid next;
        int rc;
        while ((rc = git_revwalk_next(&next, walk.p)) == 0) {
            CommitHandle c;
            if (git_commit_lookup(&c.p, m_repo.p, &next) != 0)
                fail("read commit " + oid_str(&next));
            out.push_back(info_of(c.p));
        }
        if (rc != GIT_ITEROVER)
            fail("walk from '" + ref + "'");
        return out;
    }

    core::CommitInfo commit(const std::string& sha) override {
        git_oid oid = resolve_oid(sha);
        CommitHandle c;
        if (git_commit_lookup(&c.p, m_repo.p, &oid) != 0)
            fail("read commit " + sha);
        return info_of(c.p);
    }

    std::string head() override {
        git_oid oid;
        if (git_reference_name_to_id(&oid, m_repo.p, "HEAD") != 0)
            return "";
        return oid_str(&oid);
    }

    void checkout(const std::string& sha) override {
        git_oid oid = resolve_oid(sha);
        CommitHandle c;
        if (git_commit_lookup(&c.p, m_repo.p, &oid) != 0)
            fail("read commit " + sha);
        git_checkout_options opts = GIT_CHECKOUT_OPTIONS_INIT;
        // FORCE makes the worktree match the tree, but libgit2 still writes only files whose
        // content differs, so untouched files keep their mtimes and builds stay incremental.
        opts.checkout_strategy = GIT_CHECKOUT_FORCE;
        // Test hook: a kill after some files of the new tree were written (util/crash_point.hpp).
        opts.progress_cb = [](const char* path, size_t, size_t, void*) {
            if (path)
                util::crash_point("git.mid_checkout");
        };
        // A marker naming this process stays while the checkout runs: a lock file that a killed
        // perfsweep left behind (index.lock, HEAD.lock) is recognised by it and removed on the
        // next checkout; a lock of a live git process is never touched.
        const std::string gitdir = git_repository_path(m_repo.p);
        const std::string marker = gitdir + "perfsweep-checkout.pid";
        clear_stale_locks(gitdir, marker);
        write_marker(marker);
        if (git_checkout_tree(m_repo.p, reinterpret_cast<const git_object*>(c.p), &opts) != 0)
            fail("check out " + sha);
        util::crash_point("git.before_set_head"); // worktree at `sha`, HEAD still the old commit
        if (git_repository_set_head_detached(m_repo.p, &oid) != 0)
            fail("detach HEAD at " + sha);
        ::unlink(marker.c_str());
    }

    std::string remote_url(const std::string& remote) override {
        // Read the config directly: git_remote_lookup in libgit2 1.5 leaks regex match data
        // while scanning url.*.insteadOf entries.
        ConfigHandle cfg;
        if (git_repository_config_snapshot(&cfg.p, m_repo.p) != 0)
            return "";
        const char* url = nullptr;
        if (git_config_get_string(&url, cfg.p, ("remote." + remote + ".url").c_str()) != 0 || !url)
            return "";
        return url;
    }

    void fetch(const std::string& remote, const std::string& token_env) override {
        const std::string url = remote_url(remote);
        if (url.empty())
            throw_usage("repo '" + m_name + "' (" + m_path + "): --fetch needs a remote '" +
                        remote + "' with a URL");
        // An anonymous remote with the standard refspec (see remote_url for why no lookup).
        RemoteHandle r;
        git_remote_create_options ro = GIT_REMOTE_CREATE_OPTIONS_INIT;
        ro.repository = m_repo.p;
        ro.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF | GIT_REMOTE_CREATE_SKIP_DEFAULT_FETCHSPEC;
        if (git_remote_create_with_opts(&r.p, url.c_str(), &ro) != 0)
            fail("set up remote '" + remote + "' for --fetch");
        TokenCredentials cred;
        if (!token_env.empty())
            if (const char* v = std::getenv(token_env.c_str()))
                cred.token = v;
        const std::string& token = cred.token;
        cred.origin = url_origin(url);
        git_fetch_options fo = GIT_FETCH_OPTIONS_INIT;
        fo.callbacks.credentials = token_credentials;
        fo.callbacks.payload = &cred;
        compat::refuse_offsite_redirects(fo); // the token stays with the remote's host
        std::string spec = "+refs/heads/*:refs/remotes/" + remote + "/*";
        char* specs[] = {spec.data()};
        git_strarray refspecs{specs, 1};
        if (git_remote_fetch(r.p, &refspecs, &fo, nullptr) != 0) {
            std::string msg = cred.refused.empty() ? last_error() : cred.refused;
            if (!token.empty())
                for (auto pos = msg.find(token); pos != std::string::npos; pos = msg.find(token))
                    msg.replace(pos, token.size(), "***");
            throw_infra("repo '" + m_name + "' (" + m_path + "): fetch from '" + remote +
                        "' failed: " + msg);
        }
    }

private:
    [[noreturn]] void fail(const std::string& what) {
        throw_infra("repo '" + m_name + "' (" + m_path + "): cannot " + what + ": " + last_error());
    }

    git_oid resolve_oid(const std::string& ref) {
        // Full shas and ref names are resolved directly; git_revparse_single in libgit2 1.5 leaks
        // regex match data for every spec that is not `git describe` output, so it is only the
        // fallback for other revision syntax (HEAD~3, v1.0^{commit}, short shas, ...).
        ObjectHandle peeled;
        git_oid oid;
        if (ref.size() == GIT_OID_HEXSZ && git_oid_fromstr(&oid, ref.c_str()) == 0) {
            ObjectHandle obj;
            if (git_object_lookup(&obj.p, m_repo.p, &oid, GIT_OBJECT_ANY) == 0 &&
                git_object_peel(&peeled.p, obj.p, GIT_OBJECT_COMMIT) == 0)
                return *git_object_id(peeled.p);
            throw_usage("repo '" + m_name + "' (" + m_path + "): unknown commit '" + ref + "'" +
                        (is_shallow() ? " (the clone is shallow)" : ""));
        }
        ReferenceHandle r;
        if (git_reference_dwim(&r.p, m_repo.p, ref.c_str()) == 0) {
            if (git_reference_peel(&peeled.p, r.p, GIT_OBJECT_COMMIT) != 0)
                throw_usage("repo '" + m_name + "' (" + m_path + "): '" + ref +
                            "' does not name a commit");
            return *git_object_id(peeled.p);
        }
        ObjectHandle obj;
        if (git_revparse_single(&obj.p, m_repo.p, ref.c_str()) != 0)
            throw_usage("repo '" + m_name + "' (" + m_path + "): unknown ref or commit '" + ref +
                        "'" + (is_shallow() ? " (the clone is shallow)" : ""));
        if (git_object_peel(&peeled.p, obj.p, GIT_OBJECT_COMMIT) != 0)
            throw_usage("repo '" + m_name + "' (" + m_path + "): '" + ref +
                        "' does not name a commit");
        return *git_object_id(peeled.p);
    }

    std::string m_name;
    std::string m_path;
    RepoHandle m_repo;
    std::unique_ptr<PathLock> m_lock;
};

} // namespace

std::unique_ptr<ports::SourceRepo> open_libgit2_repo(const std::string& name,
                                                     const std::string& path) {
    ensure_libgit2();
    return std::make_unique<Libgit2Repo>(name, path);
}

} // namespace perfsweep::adapters
