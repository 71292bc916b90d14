#pragma once
// A per-test temporary directory, removed at the end unless PERFSWEEP_KEEP_TEST_DIRS is set.

#include <filesystem>
#include <string>
#include <vector>

namespace perfsweep::test {

/// A fresh directory under the system temp dir.
class TempDir {
public:
    /// Create a directory whose name starts with `prefix`.
    explicit TempDir(const std::string& prefix = "perfsweep-test");
    /// Remove it (unless kept).
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    /// The directory.
    const std::filesystem::path& path() const { return m_path; }
    /// `path() / name` as a string.
    std::string file(const std::string& name) const { return (m_path / name).string(); }

private:
    std::filesystem::path m_path;
};

/// Write `content` to `path` (creating parents).
void write_file(const std::string& path, const std::string& content);
/// Read the whole file at `path`.
std::string read_file(const std::string& path);

/// Result of running a child command.
struct CommandResult {
    int exit_code = -1;
    std::string out; ///< stdout
    std::string err; ///< stderr
};
/// Run `argv` (no shell) with extra environment `env` ("K=V"), optional stdin text; capture output.
CommandResult run_command(const std::vector<std::string>& argv,
                          const std::vector<std::string>& env = {}, const std::string& input = "");
/// Run perfsweep with `args`: in a forked child that calls perfsweep_main() without exec (the
/// whole program, minus the cost of starting a 200 MB sanitized binary), or the built binary itself
/// for `demo` (it records its own path) and when PERFSWEEP_TEST_EXEC=1.
CommandResult run_perfsweep(const std::vector<std::string>& args,
                            const std::vector<std::string>& env = {},
                            const std::string& input = "");

/// In a forked child: run perfsweep with `args` as run_perfsweep does, then exit with its status.
[[noreturn]] void become_perfsweep(const std::vector<std::string>& args);
/// In a forked child: exec the built perfsweep binary with `args`, always. Never returns.
[[noreturn]] void exec_perfsweep_binary(const std::vector<std::string>& args);
/// Whether PERFSWEEP_TEST_EXEC=1 asks for the built binary instead of an exec-free child.
bool perfsweep_runs_exec();

} // namespace perfsweep::test
