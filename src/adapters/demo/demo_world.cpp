#include "adapters/demo/demo_world.hpp"

#include "adapters/git/git_handles.hpp"
#include "adapters/git/libgit2_repo.hpp"
#include "core/demo/script.hpp"
#include "util/error.hpp"

#include <climits>
#include <git2.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>

namespace perfsweep::adapters {

namespace fs = std::filesystem;

namespace {

void check(int rc, const std::string& what) {
    if (rc >= 0)
        return;
    const git_error* e = git_error_last();
    throw_infra("demo world: " + what + ": " + (e && e->message ? e->message : "libgit2 error"));
}

using namespace git; // owning libgit2 handles
using BuilderPtr = TbPtr;

using Files = std::map<std::string, std::string>;

struct Branch {
    git_oid tip{};
    Files files;
    Files changed; ///< for PR branches: what the PR changes
};

struct MainPoint {
    util::UnixSeconds time;
    git_oid oid;
    Files files;
};

struct RepoState {
    RepoPtr repo;
    Branch main;
    std::map<std::string, Branch> prs;
    std::vector<MainPoint> history; ///< first-parent main line, oldest first
};

git_oid write_tree(git_repository* repo, const Files& files) {
    git_treebuilder* raw = nullptr;
    check(git_treebuilder_new(&raw, repo, nullptr), "treebuilder");
    BuilderPtr b(raw);
    for (const auto& [name, content] : files) {
        git_oid blob;
        check(git_blob_create_from_buffer(&blob, repo, content.data(), content.size()), "blob");
        check(git_treebuilder_insert(nullptr, b.get(), name.c_str(), &blob, GIT_FILEMODE_BLOB),
              "tree entry");
    }
    git_oid tree;
    check(git_treebuilder_write(&tree, b.get()), "tree");
    return tree;
}

SigPtr signature(const std::string& who, util::UnixSeconds t) {
    const auto lt = who.find('<');
    const std::string name = who.substr(0, lt == std::string::npos ? who.size() : lt - 1);
    const std::string email =
        lt == std::string::npos ? "dev@example.com" : who.substr(lt + 1, who.size() - lt - 2);
    git_signature* raw = nullptr;
    check(git_signature_new(&raw, name.c_str(), email.c_str(), t, 0), "signature");
    return SigPtr(raw);
}

git_oid commit(git_repository* repo, const std::string& who, util::UnixSeconds t,
               const std::string& message, const Files& files,
               const std::vector<git_oid>& parents) {
    const git_oid tree_id = write_tree(repo, files);
    git_tree* traw = nullptr;
    check(git_tree_lookup(&traw, repo, &tree_id), "tree lookup");
    TreePtr tree(traw);
    std::vector<CommitPtr> owned;
    std::vector<const git_commit*> ptrs;
    for (const auto& p : parents) {
        git_commit* c = nullptr;
        check(git_commit_lookup(&c, repo, &p), "parent lookup");
        owned.emplace_back(c);
        ptrs.push_back(c);
    }
    auto sig = signature(who, t);
    git_oid id;
    check(git_commit_create(&id, repo, nullptr, sig.get(), sig.get(), nullptr, message.c_str(),
                            tree.get(), ptrs.size(), ptrs.data()),
          "commit");
    return id;
}

void set_ref(git_repository* repo, const std::string& name, const git_oid& id) {
    git_reference* r = nullptr;
    check(git_reference_create(&r, repo, name.c_str(), &id, 1, "perfsweep demo"), "ref " + name);
    git_reference_free(r);
}

void write_text(const fs::path& p, const std::string& content) {
    fs::create_directories(p.parent_path());
    std::ofstream out(p, std::ios::binary);
    out << content;
    if (!out)
        throw_infra("demo world: cannot write " + p.string());
}

std::string self_exe() {
    char buf[PATH_MAX];
    ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0)
        throw_infra("demo world: cannot resolve /proc/self/exe");
    return std::string(buf, static_cast<size_t>(n));
}

} // namespace

ports::DemoWorld GitDemoWorldMaker::create(const std::string& root_arg) {
    ensure_libgit2();
    const core::DemoScript script = core::demo_script();
    std::error_code ec;
    const fs::path root = fs::absolute(root_arg);
    if (fs::exists(root, ec) && !fs::is_empty(root, ec))
        throw_usage("demo directory '" + root.string() +
                    "' exists and is not empty; name a new one");
    fs::create_directories(root);

    std::map<std::string, RepoState> repos;
    const util::UnixSeconds first = script.commits.front().time - 3600;
    for (const auto& [name, files] : script.initial_files) {
        git_repository* raw = nullptr;
        check(git_repository_init(&raw, (root / "repos" / name).c_str(), 0), "init " + name);
        RepoState st;
        st.repo.reset(raw);
        st.main.files = files;
        st.main.tip =
            commit(raw, "Perfsweep Demo <demo@example.com>", first, "Initial import", files, {});
        st.history.push_back({first, st.main.tip, files});
        repos.emplace(name, std::move(st));
    }
    for (const auto& c : script.commits) {
        RepoState& st = repos.at(c.repo);
        git_repository* repo = st.repo.get();
        if (c.kind == core::DemoCommit::Kind::pr_commit) {
            Branch& pr = st.prs[c.pr];
            if (pr.files.empty()) { // branch off the main tip
                pr.files = st.main.files;
                pr.tip = st.main.tip;
            }
            for (const auto& [f, v] : c.files) {
                pr.files[f] = v;
                pr.changed[f] = v;
            }
            pr.tip = commit(repo, c.author, c.time, c.message, pr.files, {pr.tip});
            set_ref(repo, "refs/heads/" + c.pr, pr.tip);
            continue;
        }
        Files next = st.main.files;
        std::vector<git_oid> parents{st.main.tip};
        if (c.kind == core::DemoCommit::Kind::merge) {
            const Branch& pr = st.prs.at(c.pr);
            for (const auto& [f, v] : pr.changed)
                next[f] = v;
            parents.push_back(pr.tip);
        }
        for (const auto& [f, v] : c.files)
            next[f] = v;
        st.main.tip = commit(repo, c.author, c.time, c.message, next, parents);
        st.main.files = std::move(next);
        st.history.push_back({c.time, st.main.tip, st.main.files});
    }

    ports::DemoWorld world;
    world.root = root.string();
    world.nightlies = (root / "nightlies").string();
    world.nightly_dates = script.nightly_dates;
    world.broken_nightly = script.broken_nightly;
    world.self_exe = self_exe();
    for (auto& [name, st] : repos) {
        git_repository* repo = st.repo.get();
        set_ref(repo, "refs/heads/main", st.main.tip);
        set_ref(repo, "refs/remotes/origin/main", st.main.tip);
        check(git_repository_set_head(repo, "refs/heads/main"), "set HEAD");
        git_remote* remote = nullptr;
        const std::string url = "https://github.com/perfsweep-demo/" + name + ".git";
        git_remote_create_options ro;
        git_remote_create_options_init(&ro, GIT_REMOTE_CREATE_OPTIONS_VERSION);
        ro.repository = repo;
        ro.name = "origin";
        // No url.*.insteadOf rewriting: the URL is ours (and that path leaks in libgit2 1.5).
        ro.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF;
        check(git_remote_create_with_opts(&remote, url.c_str(), &ro), "remote");
        RemotePtr keep(remote);
        git_checkout_options opts = GIT_CHECKOUT_OPTIONS_INIT;
        opts.checkout_strategy = GIT_CHECKOUT_FORCE;
        check(git_checkout_head(repo, &opts), "checkout " + name);
        world.repos[name] = (root / "repos" / name).string();
    }
    // Nightly snapshots: main as of D 00:00Z + offset, like a container built from both repos.
    for (const auto& date : script.nightly_dates) {
        const auto build_time =
            *util::parse_iso8601(date + "T00:00:00Z") + script.nightly_build_offset;
        const fs::path dir = root / "nightlies" / date;
        std::string manifest;
        for (const auto& [name, st] : repos) {
            const MainPoint* at = &st.history.front();
            for (const auto& p : st.history)
                if (p.time <= build_time)
                    at = &p;
            for (const auto& [f, v] : at->files)
                write_text(dir / name / f, v);
            char sha[GIT_OID_HEXSZ + 1];
            git_oid_tostr(sha, sizeof sha, &at->oid);
            manifest += name + " " + sha + " " + util::format_iso8601(at->time) + "\n";
        }
        write_text(dir / "manifest.txt", manifest);
        if (date == script.broken_nightly)
            write_text(dir / "CRASH", "this nightly segfaults at start-up\n");
    }
    return world;
}

} // namespace perfsweep::adapters
