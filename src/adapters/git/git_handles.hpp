#pragma once
// Owning handles for libgit2 objects (adapters only), shared by every libgit2 adapter.

#include <git2.h>

#include <memory>

namespace perfsweep::adapters::git {

/// Deleter calling libgit2's free function `F`; null-safe.
template <class T, void (*F)(T*)> struct Free {
    /// Release `p` if it is set.
    void operator()(T* p) const {
        if (p)
            F(p);
    }
};

/// A git_repository owned by unique_ptr.
using RepoPtr = std::unique_ptr<git_repository, Free<git_repository, git_repository_free>>;
/// A git_reference owned by unique_ptr.
using RefPtr = std::unique_ptr<git_reference, Free<git_reference, git_reference_free>>;
/// A git_commit owned by unique_ptr.
using CommitPtr = std::unique_ptr<git_commit, Free<git_commit, git_commit_free>>;
/// A git_tree owned by unique_ptr.
using TreePtr = std::unique_ptr<git_tree, Free<git_tree, git_tree_free>>;
/// A git_blob owned by unique_ptr.
using BlobPtr = std::unique_ptr<git_blob, Free<git_blob, git_blob_free>>;
/// A git_treebuilder owned by unique_ptr.
using TbPtr = std::unique_ptr<git_treebuilder, Free<git_treebuilder, git_treebuilder_free>>;
/// A git_signature owned by unique_ptr.
using SigPtr = std::unique_ptr<git_signature, Free<git_signature, git_signature_free>>;
/// A git_remote owned by unique_ptr.
using RemotePtr = std::unique_ptr<git_remote, Free<git_remote, git_remote_free>>;
/// A git_tree_entry owned by unique_ptr.
using TreeEntryPtr = std::unique_ptr<git_tree_entry, Free<git_tree_entry, git_tree_entry_free>>;

} // namespace perfsweep::adapters::git
