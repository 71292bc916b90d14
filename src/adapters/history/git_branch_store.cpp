#include "adapters/history/git_branch_store.hpp"

#include "adapters/compat/library_compat.hpp"
#include "adapters/git/credentials.hpp"
#include "adapters/git/git_handles.hpp"
#include "adapters/git/libgit2_repo.hpp"
#include "adapters/history/side_files.hpp"
#include "adapters/json/measurement_json.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

#include <git2.h>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <random>
#include <set>
#include <thread>

namespace perfsweep::adapters {
namespace {

using namespace git; // owning libgit2 handles

/// A git_transaction owned by unique_ptr (freeing it releases the locks it still holds).
using TxPtr = std::unique_ptr<git_transaction, Free<git_transaction, git_transaction_free>>;

std::string strip_userinfo(const std::string& url) {
    const auto scheme = url.find("://");
    if (scheme == std::string::npos)
        return url;
    const auto at = url.find('@', scheme + 3);
    const auto slash = url.find('/', scheme + 3);
    if (at == std::string::npos || (slash != std::string::npos && at > slash))
        return url;
    return url.substr(0, scheme + 3) + url.substr(at + 1);
}

std::string fnv_hex(const std::string& s) {
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char c : s) {
        h ^= c;
        h *= 1099511628211ull;
    }
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    return buf;
}

/// Holds an exclusive flock on a file for its lifetime.
class FileLock {
public:
    explicit FileLock(const std::string& path) {
        m_fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (m_fd < 0)
            throw_infra("history cache lock '" + path + "': cannot open");
        while (::flock(m_fd, LOCK_EX) != 0) {
            if (errno != EINTR) {
                ::close(m_fd);
                throw_infra("history cache lock '" + path + "': flock failed");
            }
        }
    }
    ~FileLock() {
        if (m_fd >= 0)
            ::close(m_fd); // closing releases the lock
    }
    FileLock(const FileLock&) = delete;
    FileLock& operator=(const FileLock&) = delete;

private:
    int m_fd = -1;
};

/// Shared payload of the libgit2 remote callbacks (the credentials first: token_credentials
/// reads its payload as TokenCredentials).
struct CallbackState {
    TokenCredentials cred;
    bool rejected = false;
};

int branch_store_credentials(git_credential** out, const char* url, const char* user,
                             unsigned int allowed, void* payload) {
    auto* st = static_cast<CallbackState*>(payload);
    return token_credentials(out, url, user, allowed, st ? &st->cred : nullptr);
}

int push_update_cb(const char*, const char* status, void* payload) {
    if (status)
        static_cast<CallbackState*>(payload)->rejected = true;
    return 0;
}

} // namespace

bool is_git_history_spec(const std::string& spec) {
    return spec.rfind("git:", 0) == 0 || spec.rfind("git+", 0) == 0;
}

GitHistorySpec parse_git_history_spec(const std::string& spec, const std::string& start_dir) {
    GitHistorySpec s;
    auto valid_branch = [&](const std::string& b) {
        ensure_libgit2();
        const bool valid = compat::reference_name_is_valid("refs/heads/" + b);
        if (b.empty() || !valid)
            throw_usage("--history '" + strip_userinfo(spec) + "': '" + b +
                        "' is not a valid branch name");
    };
    if (spec.rfind("git:", 0) == 0) {
        s.branch = spec.substr(4);
        s.repo_path = start_dir;
        valid_branch(s.branch);
        return s;
    }
    if (spec.rfind("git+", 0) == 0) {
        const auto hash = spec.rfind('#');
        if (hash == std::string::npos)
            throw_usage(
                "--history '" + strip_userinfo(spec) +
                "': expected git+URL#BRANCH (e.g. git+https://github.com/o/r.git#perfsweep-data)");
        s.remote_url = spec.substr(4, hash - 4);
        s.branch = spec.substr(hash + 1);
        valid_branch(s.branch);
        if (s.remote_url.rfind("file://", 0) == 0) {
            s.repo_path = s.remote_url.substr(7);
        } else if (s.remote_url.rfind("https://", 0) != 0 &&
                   s.remote_url.rfind("http://", 0) != 0) {
            throw_usage("--history '" + strip_userinfo(spec) +
                        "': expected a git+https://, git+http:// or git+file:// URL");
        }
        return s;
    }
    throw_usage("--history '" + spec + "': expected git:BRANCH or git+URL#BRANCH");
}

struct GitBranchStore::Impl {
    GitHistorySpec spec;
    GitStoreOptions opt;
    RepoPtr repo;
    bool network = false;   ///< fetch and push through a remote
    std::string remote_url; ///< for network mode
    std::string lock_path;  ///< serialises processes sharing one cache
    std::string tip_ref;    ///< ref holding the tip we read and build on

    std::string where() const {
        return spec.remote_url.empty()
                   ? "git:" + spec.branch
                   : "git+" + strip_userinfo(spec.remote_url) + "#" + spec.branch;
    }
    [[noreturn]] void fail(const std::string& what) const {
        const git_error* e = git_error_last();
        std::string msg = e && e->message ? e->message : "unknown libgit2 error";
        if (!opt.token.empty())
            msg = util::replace_all(msg, opt.token, "***");
        throw_infra("history '" + where() + "': " + what + ": " + msg);
    }
    void check(int rc, const std::string& what) const {
        if (rc < 0)
            fail(what);
    }

    /// The tip `tip_ref` points to; nullopt when the ref does not exist (any other error throws).
    std::optional<git_oid> tip() const {
        git_oid oid;
        const int rc = git_reference_name_to_id(&oid, repo.get(), tip_ref.c_str());
        if (rc == GIT_ENOTFOUND)
            return std::nullopt;
        check(rc, "reading " + tip_ref);
        return oid;
    }

    std::string read_file_at(const std::optional<git_oid>& at) const {
        if (!at)
            return "";
        git_commit* c = nullptr;
        check(git_commit_lookup(&c, repo.get(), &*at), "reading the branch tip");
        CommitPtr commit(c);
        git_tree* t = nullptr;
        check(git_commit_tree(&t, commit.get()), "reading the tip's tree");
        TreePtr tree(t);
        git_tree_entry* e = nullptr;
        if (git_tree_entry_bypath(&e, tree.get(), spec.file.c_str()) != 0)
            return "";
        TreeEntryPtr entry(e);
        git_blob* b = nullptr;
        check(git_blob_lookup(&b, repo.get(), git_tree_entry_id(entry.get())),
              "reading " + spec.file);
        BlobPtr blob(b);
        return std::string(static_cast<const char*>(git_blob_rawcontent(blob.get())),
                           static_cast<std::size_t>(git_blob_rawsize(blob.get())));
    }

    /// Create a commit on `parent` whose file is `content`; no index, no worktree.
    git_oid make_commit(const std::optional<git_oid>& parent, const std::string& content,
                        std::size_t n) const {
        git_oid blob_id;
        check(git_blob_create_from_buffer(&blob_id, repo.get(), content.data(), content.size()),
              "writing the history blob");
        CommitPtr parent_commit;
        TreePtr parent_tree;
        if (parent) {
            git_commit* c = nullptr;
            check(git_commit_lookup(&c, repo.get(), &*parent), "reading the branch tip");
            parent_commit.reset(c);
            git_tree* t = nullptr;
            check(git_commit_tree(&t, c), "reading the tip's tree");
            parent_tree.reset(t);
        }
        git_treebuilder* tb = nullptr;
        check(git_treebuilder_new(&tb, repo.get(), parent_tree.get()), "building the tree");
        TbPtr builder(tb);
        check(git_treebuilder_insert(nullptr, tb, spec.file.c_str(), &blob_id, GIT_FILEMODE_BLOB),
              "building the tree");
        git_oid tree_id;
        check(git_treebuilder_write(&tree_id, tb), "writing the tree");
        git_tree* t = nullptr;
        check(git_tree_lookup(&t, repo.get(), &tree_id), "reading the new tree");
        TreePtr tree(t);
        git_signature* s = nullptr;
        check(git_signature_now(&s, "perfsweep", "perfsweep@users.noreply.github.com"),
              "signature");
        SigPtr sig(s);
        const git_commit* parents[1] = {parent_commit.get()};
        git_oid commit_id;
        const std::string msg =
            "perfsweep: append " + std::to_string(n) + " record" + (n == 1 ? "" : "s") + "\n";
        check(git_commit_create(&commit_id, repo.get(), nullptr, sig.get(), sig.get(), nullptr,
                                msg.c_str(), tree.get(), parent ? 1 : 0, parents),
              "creating the commit");
        return commit_id;
    }

    /// Compare-and-swap `ref` from `old` (nullopt: the ref must not exist) to `now`; false when
    /// someone else moved it first or holds its lock. The ref's lock file is taken first and the
    /// ref is compared with `old` while it is held, so no other writer (libgit2 or git) can move
    /// it between the comparison and the update. (git_reference_create with force=0 is not such
    /// a CAS: it checks that the ref is absent before it takes the lock, so two writers creating
    /// the branch at once could both succeed, the second overwriting the first one's commit.)
    bool cas(const std::string& ref, const std::optional<git_oid>& old, const git_oid& now,
             std::string& why) const {
        git_transaction* t = nullptr;
        check(git_transaction_new(&t, repo.get()), "updating " + ref);
        TxPtr tx(t);
        int rc = git_transaction_lock_ref(t, ref.c_str());
        if (rc == GIT_ELOCKED) {
            why = "another writer holds the lock of " + ref + " (" +
                  git_repository_commondir(repo.get()) + ref +
                  ".lock; remove it if no writer is running)";
            return false;
        }
        check(rc, "locking " + ref);
        git_oid current;
        rc = git_reference_name_to_id(&current, repo.get(), ref.c_str());
        if (rc != 0 && rc != GIT_ENOTFOUND)
            fail("reading " + ref);
        const bool exists = rc == 0;
        if (exists != old.has_value() || (exists && !git_oid_equal(&current, &*old))) {
            why = "another writer moved " + ref;
            return false; // freeing the transaction releases the lock, ref untouched
        }
        git_signature* s = nullptr;
        check(git_signature_now(&s, "perfsweep", "perfsweep@users.noreply.github.com"),
              "signature");
        SigPtr sig(s);
        check(git_transaction_set_target(t, ref.c_str(), &now, sig.get(), "perfsweep: append"),
              "updating " + ref);
        check(git_transaction_commit(t), "updating " + ref);
        return true;
    }

    /// The callbacks' state: the token, for the remote's origin only.
    CallbackState state() const {
        CallbackState st;
        st.cred.token = opt.token;
        st.cred.origin = url_origin(remote_url);
        return st;
    }

    git_remote_callbacks callbacks(CallbackState& st) const {
        git_remote_callbacks cb;
        git_remote_init_callbacks(&cb, GIT_REMOTE_CALLBACKS_VERSION);
        cb.credentials = branch_store_credentials;
        cb.push_update_reference = push_update_cb;
        cb.payload = &st;
        return cb;
    }

    RemotePtr remote() const {
        git_remote* r = nullptr;
        git_remote_create_options ro;
        git_remote_create_options_init(&ro, GIT_REMOTE_CREATE_OPTIONS_VERSION);
        ro.repository = repo.get();
        // Explicit URL: no url.*.insteadOf rewriting (which also leaks in libgit2 1.5's regex
        // code).
        ro.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF | GIT_REMOTE_CREATE_SKIP_DEFAULT_FETCHSPEC;
        check(git_remote_create_with_opts(&r, remote_url.c_str(), &ro), "opening the remote");
        return RemotePtr(r);
    }

    void fetch() const {
        RemotePtr r = remote();
        CallbackState cred = state();
        git_fetch_options fo;
        git_fetch_options_init(&fo, GIT_FETCH_OPTIONS_VERSION);
        fo.callbacks = callbacks(cred);
        fo.prune = GIT_FETCH_NO_PRUNE;
        fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
        compat::refuse_offsite_redirects(fo); // the token stays with the remote's host
        const std::string refspec = "+refs/heads/" + spec.branch + ":" + tip_ref;
        char* specs[] = {const_cast<char*>(refspec.c_str())};
        git_strarray arr{specs, 1};
        const int rc = git_remote_fetch(r.get(), &arr, &fo, nullptr);
        if (rc < 0 && !cred.cred.refused.empty())
            throw_infra("history '" + where() + "': fetching " + spec.branch + ": " +
                        cred.cred.refused);
        check(rc, "fetching " + spec.branch);
    }

    /// Push `commit` to the branch; false when rejected because the branch moved.
    bool push(const git_oid& commit, std::string& why) const {
        why = "the remote rejected the push of " + spec.branch + " (another writer pushed first)";
        const std::string out_ref = "refs/perfsweep/out/" + spec.branch;
        git_reference* r = nullptr;
        check(git_reference_create(&r, repo.get(), out_ref.c_str(), &commit, 1, nullptr),
              "staging the push");
        RefPtr keep(r);
        RemotePtr rem = remote();
        CallbackState st = state();
        git_push_options po;
        git_push_options_init(&po, GIT_PUSH_OPTIONS_VERSION);
        po.callbacks = callbacks(st);
        compat::refuse_offsite_redirects(po);
        const std::string refspec = out_ref + ":refs/heads/" + spec.branch;
        char* specs[] = {const_cast<char*>(refspec.c_str())};
        git_strarray arr{specs, 1};
        const int rc = git_remote_push(rem.get(), &arr, &po);
        if (rc < 0 && !st.cred.refused.empty())
            throw_infra("history '" + where() + "': pushing " + spec.branch + ": " +
                        st.cred.refused);
        if (rc == GIT_ENONFASTFORWARD)
            return false;
        if (rc < 0) {
            const git_error* e = git_error_last();
            const std::string m = e && e->message ? e->message : "";
            if (m.find("non-fast") != std::string::npos ||
                m.find("fetch first") != std::string::npos ||
                m.find("rejected") != std::string::npos)
                return false;
            fail("pushing " + spec.branch);
        }
        return !st.rejected;
    }
};

namespace {

/// Publish a commit that `build` makes on a fresh read of the tip (nullopt: nothing to write),
/// by a compare-and-swap of the branch (or a push); when another writer moved the branch first,
/// back off with jitter and build again on the new tip. Returns whether a commit was published;
/// throws after `max_attempts`, `what` naming what was not written.
template <class Build>
bool publish_on_tip(GitBranchStore::Impl& im, int& reapplied, const std::string& what,
                    const Build& build) {
    std::mt19937 rng(std::random_device{}());
    std::string why;
    for (int attempt = 1; attempt <= im.opt.max_attempts; ++attempt) {
        if (im.network)
            im.fetch();
        const auto parent = im.tip();
        const std::optional<git_oid> commit = build(parent);
        if (!commit)
            return false;
        if (im.opt.before_swap)
            im.opt.before_swap(attempt);
        if (im.network ? im.push(*commit, why) : im.cas(im.tip_ref, parent, *commit, why)) {
            if (im.network) {
                git_reference* r = nullptr;
                git_reference_create(&r, im.repo.get(), im.tip_ref.c_str(), &*commit, 1, nullptr);
                git_reference_free(r);
            }
            return true;
        }
        // Another writer got there first: back off with jitter, then re-apply on the new tip.
        ++reapplied;
        std::uniform_int_distribution<int> ms(1, 10 * std::min(attempt, 10));
        std::this_thread::sleep_for(std::chrono::milliseconds(ms(rng)));
    }
    throw_infra("history '" + im.where() + "': gave up after " +
                std::to_string(im.opt.max_attempts) + " attempts (last: " + why + "); " + what);
}

} // namespace

GitBranchStore::GitBranchStore(GitHistorySpec spec, GitStoreOptions options)
    : m_impl(std::make_unique<Impl>()) {
    ensure_libgit2();
    // Durable, not only atomic: the history's objects and the branch ref are fsynced when written
    // (libgit2 leaves fsync off by default; the setting is process-wide, so in a process that
    // opened a git history hourly's checkouts also fsync what they write under .git).
    git_libgit2_opts(GIT_OPT_ENABLE_FSYNC_GITDIR, 1);
    auto& im = *m_impl;
    im.spec = std::move(spec);
    im.opt = std::move(options);
    git_repository* r = nullptr;
    if (!im.spec.remote_url.empty() && im.spec.repo_path.empty()) {
        // Network remote: a private bare cache repository.
        im.network = true;
        im.remote_url = im.spec.remote_url;
        if (im.opt.cache_dir.empty())
            throw_usage("history '" + im.where() + "': no cache directory");
        const std::string dir =
            im.opt.cache_dir + "/git-history/" + fnv_hex(strip_userinfo(im.remote_url)) + ".git";
        std::error_code ec;
        std::filesystem::create_directories(im.opt.cache_dir + "/git-history", ec);
        im.lock_path = dir + ".lock";
        FileLock lock(im.lock_path);
        if (git_repository_open_bare(&r, dir.c_str()) != 0)
            im.check(git_repository_init(&r, dir.c_str(), 1), "creating the cache " + dir);
        im.tip_ref = "refs/perfsweep/remote/" + im.spec.branch;
    } else if (!im.spec.remote_url.empty()) {
        // git+file:// — write straight into that repository with a compare-and-swap ref update
        // (libgit2's local push transport force-updates refs, which could drop a concurrent
        // append).
        im.check(git_repository_open_bare(&r, im.spec.repo_path.c_str()),
                 "opening the bare repository " + im.spec.repo_path);
        im.tip_ref = "refs/heads/" + im.spec.branch;
    } else {
        im.check(git_repository_open_ext(&r, im.spec.repo_path.c_str(), 0, nullptr),
                 "finding a git repository from " + im.spec.repo_path);
        im.tip_ref = "refs/heads/" + im.spec.branch;
    }
    im.repo.reset(r);
}

GitBranchStore::~GitBranchStore() {
    m_impl->repo.reset();
}

std::string GitBranchStore::describe() const {
    return m_impl->where();
}

ports::HistoryLoad GitBranchStore::load() {
    auto& im = *m_impl;
    std::unique_ptr<FileLock> lock;
    if (im.network) {
        lock = std::make_unique<FileLock>(im.lock_path);
        im.fetch();
    }
    const std::string text = im.read_file_at(im.tip());
    ports::HistoryLoad out;
    std::size_t line_no = 0;
    for (const auto& line : util::split(text, '\n')) {
        ++line_no;
        if (util::trim(line).empty())
            continue;
        const std::string where = im.where() + ":" + im.spec.file + ":" + std::to_string(line_no);
        try {
            out.records.push_back(measurement_from_json(line, where));
        } catch (const Error& e) {
            out.warnings.push_back(e.what());
        }
    }
    return out;
}

void GitBranchStore::append(const std::vector<core::Measurement>& records) {
    write_batch(records, false);
}

std::size_t GitBranchStore::append_missing(const std::vector<core::Measurement>& records) {
    return write_batch(records, true);
}

std::size_t GitBranchStore::write_batch(const std::vector<core::Measurement>& records,
                                        bool only_missing) {
    if (records.empty())
        return 0;
    auto& im = *m_impl;
    std::vector<std::string> encoded;
    for (const auto& m : records)
        encoded.push_back(measurement_to_json(m));
    std::unique_ptr<FileLock> lock;
    if (im.network)
        lock = std::make_unique<FileLock>(im.lock_path);
    std::size_t written = 0;
    // Every attempt starts from a fresh read of the tip and re-applies only `records`.
    publish_on_tip(im, m_reapplied, "nothing was written",
                   [&](const std::optional<git_oid>& parent) -> std::optional<git_oid> {
                       std::string content = im.read_file_at(parent);
                       // Only the lines the tip lacks (counted: k copies against j stored
                       // append k - j).
                       std::multiset<std::string> stored;
                       if (only_missing)
                           for (const auto& line : util::split(content, '\n'))
                               stored.insert(line.empty() || line.back() != '\r'
                                                 ? line
                                                 : line.substr(0, line.size() - 1));
                       std::string lines;
                       std::size_t count = 0;
                       for (const auto& line : encoded) {
                           if (auto it = stored.find(line); it != stored.end()) {
                               stored.erase(it);
                               continue;
                           }
                           lines += line + "\n";
                           ++count;
                       }
                       written = count;
                       if (count == 0)
                           return std::nullopt;
                       if (!content.empty() && content.back() != '\n')
                           content += '\n';
                       content += lines;
                       return im.make_commit(parent, content, count);
                   });
    return written;
}

// Files beside the history: blobs in the branch's tree next to the history file, written as one
// commit on the tip and published like an append (compare-and-swap or push, re-applied on a
// fresh tip when another writer moved the branch first).

namespace {

/// The folder of the history file inside the branch ("" at the root), with a trailing '/'.
std::string side_prefix(const GitHistorySpec& spec) {
    const auto slash = spec.file.rfind('/');
    return slash == std::string::npos ? "" : spec.file.substr(0, slash + 1);
}

/// The tree `base` (null: empty) with the blob `blob` at `parts[at..]`, written; its id.
git_oid tree_with_blob(const GitBranchStore::Impl& im, const git_tree* base,
                       const std::vector<std::string>& parts, std::size_t at, const git_oid& blob) {
    git_treebuilder* tb = nullptr;
    im.check(git_treebuilder_new(&tb, im.repo.get(), base), "building a tree");
    TbPtr builder(tb);
    const std::string& name = parts[at];
    if (at + 1 == parts.size()) {
        im.check(git_treebuilder_insert(nullptr, tb, name.c_str(), &blob, GIT_FILEMODE_BLOB),
                 "building a tree");
    } else {
        TreePtr sub;
        const git_tree_entry* e = base ? git_tree_entry_byname(base, name.c_str()) : nullptr;
        if (e && git_tree_entry_type(e) == GIT_OBJECT_TREE) {
            git_tree* t = nullptr;
            im.check(git_tree_lookup(&t, im.repo.get(), git_tree_entry_id(e)), "reading a tree");
            sub.reset(t);
        }
        const git_oid sub_id = tree_with_blob(im, sub.get(), parts, at + 1, blob);
        im.check(git_treebuilder_insert(nullptr, tb, name.c_str(), &sub_id, GIT_FILEMODE_TREE),
                 "building a tree");
    }
    git_oid id;
    im.check(git_treebuilder_write(&id, tb), "writing a tree");
    return id;
}

/// A commit on `parent` (none: a root commit) whose tree is the parent's with `files` set.
git_oid commit_side_files(const GitBranchStore::Impl& im, const std::optional<git_oid>& parent,
                          const std::vector<ports::SideFile>& files) {
    CommitPtr parent_commit;
    git_oid tree_id{};
    bool have_tree = false;
    if (parent) {
        git_commit* c = nullptr;
        im.check(git_commit_lookup(&c, im.repo.get(), &*parent), "reading the branch tip");
        parent_commit.reset(c);
        tree_id = *git_commit_tree_id(c);
        have_tree = true;
    }
    for (const auto& f : files) {
        git_oid blob;
        im.check(
            git_blob_create_from_buffer(&blob, im.repo.get(), f.content.data(), f.content.size()),
            "writing " + f.path);
        TreePtr base;
        if (have_tree) {
            git_tree* t = nullptr;
            im.check(git_tree_lookup(&t, im.repo.get(), &tree_id), "reading the tree");
            base.reset(t);
        }
        tree_id = tree_with_blob(im, base.get(), util::split(side_prefix(im.spec) + f.path, '/'), 0,
                                 blob);
        have_tree = true;
    }
    git_tree* t = nullptr;
    im.check(git_tree_lookup(&t, im.repo.get(), &tree_id), "reading the new tree");
    TreePtr tree(t);
    git_signature* s = nullptr;
    im.check(git_signature_now(&s, "perfsweep", "perfsweep@users.noreply.github.com"), "signature");
    SigPtr sig(s);
    const git_commit* parents[1] = {parent_commit.get()};
    const std::string msg = "perfsweep: write " + std::to_string(files.size()) + " file" +
                            (files.size() == 1 ? "" : "s") + " (" +
                            files.front().path.substr(0, 80) + (files.size() > 1 ? ", ..." : "") +
                            ")\n";
    git_oid id;
    im.check(git_commit_create(&id, im.repo.get(), nullptr, sig.get(), sig.get(), nullptr,
                               msg.c_str(), tree.get(), parent ? 1 : 0, parents),
             "creating the commit");
    return id;
}

/// Every blob under `tree` into `out`, named `prefix` + its path.
void collect_blobs(const GitBranchStore::Impl& im, const git_tree* tree, const std::string& prefix,
                   std::vector<ports::SideFile>& out) {
    for (std::size_t i = 0; i < git_tree_entrycount(tree); ++i) {
        const git_tree_entry* e = git_tree_entry_byindex(tree, i);
        const std::string name = prefix + git_tree_entry_name(e);
        if (git_tree_entry_type(e) == GIT_OBJECT_TREE) {
            git_tree* t = nullptr;
            im.check(git_tree_lookup(&t, im.repo.get(), git_tree_entry_id(e)), "reading " + name);
            TreePtr sub(t);
            collect_blobs(im, sub.get(), name + "/", out);
        } else if (git_tree_entry_type(e) == GIT_OBJECT_BLOB &&
                   git_tree_entry_filemode(e) != GIT_FILEMODE_LINK) {
            git_blob* b = nullptr;
            im.check(git_blob_lookup(&b, im.repo.get(), git_tree_entry_id(e)), "reading " + name);
            BlobPtr blob(b);
            out.push_back({name, std::string(static_cast<const char*>(git_blob_rawcontent(b)),
                                             static_cast<std::size_t>(git_blob_rawsize(b)))});
        }
    }
}

} // namespace

void GitBranchStore::write_beside(const std::vector<ports::SideFile>& files) {
    auto& im = *m_impl;
    const std::string prefix = side_prefix(im.spec);
    check_side_files(files, im.spec.file.substr(prefix.size()), im.where());
    if (files.empty())
        return;
    std::unique_ptr<FileLock> lock;
    if (im.network)
        lock = std::make_unique<FileLock>(im.lock_path);
    publish_on_tip(im, m_reapplied, "no file beside it was written",
                   [&](const std::optional<git_oid>& parent) -> std::optional<git_oid> {
                       return commit_side_files(im, parent, files);
                   });
}

std::vector<ports::SideFile> GitBranchStore::read_beside(const std::string& folder) {
    if (const std::string why = side_path_problem(folder); !why.empty())
        throw_usage("folder '" + folder.substr(0, 80) + "' beside history '" + m_impl->where() +
                    "': " + why);
    auto& im = *m_impl;
    std::unique_ptr<FileLock> lock;
    if (im.network) {
        lock = std::make_unique<FileLock>(im.lock_path);
        im.fetch();
    }
    const auto at = im.tip();
    if (!at)
        return {};
    git_commit* c = nullptr;
    im.check(git_commit_lookup(&c, im.repo.get(), &*at), "reading the branch tip");
    CommitPtr commit(c);
    git_tree* t = nullptr;
    im.check(git_commit_tree(&t, commit.get()), "reading the tip's tree");
    TreePtr root(t);
    const std::string prefix = side_prefix(im.spec);
    git_tree_entry* e = nullptr;
    if (git_tree_entry_bypath(&e, root.get(), (prefix + folder).c_str()) != 0)
        return {};
    TreeEntryPtr entry(e);
    if (git_tree_entry_type(e) != GIT_OBJECT_TREE)
        return {};
    git_tree* sub = nullptr;
    im.check(git_tree_lookup(&sub, im.repo.get(), git_tree_entry_id(e)), "reading " + folder);
    TreePtr tree(sub);
    std::vector<ports::SideFile> out;
    collect_blobs(im, tree.get(), folder + "/", out);
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
    return out;
}

} // namespace perfsweep::adapters
