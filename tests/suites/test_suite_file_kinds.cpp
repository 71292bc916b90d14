// Suite "file kinds": `record --history` pointed at things that are not a plain private file.
// Before, an append rewrote the history into a temp file and renamed it over the path: as root a
// device node (/dev/null) became a regular file, a hard link kept the old content, another
// user's file became root's, and every `HISTORY.tmp.*` file next to it was deleted (a user's
// `perf.jsonl.tmp.backup`). Now a history must be a regular file (anything else: exit 2 naming
// what it is), an append writes at its end in place (inode, owner, mode and links kept), and
// nothing else in the directory is touched. (The device here is a private copy of /dev/null made
// with mknod: the real one is never at risk.)
// Figure: cases, refused as expected, devices replaced, hard links broken, owners changed, user
// files deleted (goal 0 for the last four).

#include "support/figures.hpp"
#include "support/temp_dir.hpp"

#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

using namespace perfsweep::test;
namespace fs = std::filesystem;

namespace {

CommandResult record_into(const std::string& history, const std::string& label) {
    return run_perfsweep(
        {"record", "--history", history, "--metric", "MLUPS", "--label", label, "--value", "500"});
}

struct KindTally {
    int cases = 0;
    int refused = 0;
    int devices_replaced = 0;
    int links_broken = 0;
    int owners_changed = 0;
    int user_files_deleted = 0;
};

/// `record` into something that is not a regular file: exit 2 naming its kind, left as it was.
void refused_kind(KindTally& t, const std::string& path, const std::string& kind, mode_t type) {
    ++t.cases;
    const auto r = record_into(path, "2024-01-01");
    INFO(path << ": " << r.err);
    const bool ok = r.exit_code == 2 && r.err.find("is " + kind) != std::string::npos;
    CHECK(ok);
    t.refused += ok ? 1 : 0;
    struct stat st {};
    const bool kept = ::lstat(path.c_str(), &st) == 0 && (st.st_mode & S_IFMT) == type;
    CHECK(kept);
    t.devices_replaced += kept ? 0 : 1;
}

} // namespace

TEST_CASE("file kinds: a history must be a regular file, and an append keeps its inode, owner "
          "and neighbours",
          "[suites][file-kinds]") {
    KindTally t;
    TempDir dir("perfsweep-file-kinds");
    const bool root = ::geteuid() == 0;

    // Not regular files: a character device (as root), a named pipe, a directory.
    if (root) {
        const auto dev = dir.file("null");
        REQUIRE(::mknod(dev.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0);
        refused_kind(t, dev, "a character device", S_IFCHR);
    }
    const auto fifo = dir.file("fifo");
    REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
    refused_kind(t, fifo, "a named pipe", S_IFIFO);
    fs::create_directories(dir.file("adir"));
    refused_kind(t, dir.file("adir"), "a directory", S_IFDIR);

    // A hard-linked history: both names see the new record.
    {
        ++t.cases;
        const auto h = dir.file("h.jsonl"), other = dir.file("h-link.jsonl");
        REQUIRE(record_into(h, "2024-01-01").exit_code == 0);
        fs::create_hard_link(h, other);
        REQUIRE(record_into(h, "2024-01-02").exit_code == 0);
        const bool same = read_file(other) == read_file(h) &&
                          read_file(other).find("2024-01-02") != std::string::npos;
        CHECK(same);
        t.links_broken += same ? 0 : 1;
    }
    // Another user's history (root appends for it): owner and mode stay.
    if (root) {
        ++t.cases;
        const auto h = dir.file("theirs.jsonl");
        REQUIRE(record_into(h, "2024-01-01").exit_code == 0);
        REQUIRE(::chown(h.c_str(), 65534, 65534) == 0);
        REQUIRE(::chmod(h.c_str(), 0640) == 0);
        REQUIRE(record_into(h, "2024-01-02").exit_code == 0);
        struct stat st {};
        REQUIRE(::stat(h.c_str(), &st) == 0);
        const bool kept = st.st_uid == 65534 && st.st_gid == 65534 && (st.st_mode & 0777) == 0640;
        CHECK(kept);
        t.owners_changed += kept ? 0 : 1;
    }
    // A symbolic link to the history: the target grows, the link stays a link.
    {
        ++t.cases;
        const auto target = dir.file("real.jsonl"), link = dir.file("via-link.jsonl");
        REQUIRE(record_into(target, "2024-01-01").exit_code == 0);
        fs::create_symlink(target, link);
        REQUIRE(record_into(link, "2024-01-02").exit_code == 0);
        const bool ok =
            fs::is_symlink(link) && read_file(target).find("2024-01-02") != std::string::npos;
        CHECK(ok);
        t.links_broken += ok ? 0 : 1;
    }
    // The user's files next to the history, whatever their names.
    {
        ++t.cases;
        const auto h = dir.file("perf.jsonl");
        REQUIRE(record_into(h, "2024-01-01").exit_code == 0);
        const std::vector<std::string> theirs = {h + ".tmp.backup", h + ".tmp.1", h + ".bak"};
        for (const auto& f : theirs)
            write_file(f, "keep me\n");
        REQUIRE(record_into(h, "2024-01-02").exit_code == 0);
        for (const auto& f : theirs) {
            const bool kept = fs::exists(f) && read_file(f) == "keep me\n";
            CHECK(kept);
            t.user_files_deleted += kept ? 0 : 1;
        }
        CHECK_FALSE(fs::exists(h + ".perfsweep-pending"));
    }
    report_figure("file-kinds", {{"cases", std::to_string(t.cases)},
                                 {"refused", std::to_string(t.refused)},
                                 {"devices_replaced", std::to_string(t.devices_replaced)},
                                 {"links_broken", std::to_string(t.links_broken)},
                                 {"owners_changed", std::to_string(t.owners_changed)},
                                 {"user_files_deleted", std::to_string(t.user_files_deleted)}});
}
