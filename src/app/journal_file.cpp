#include "app/journal_file.hpp"

#include "util/error.hpp"

namespace perfsweep::app {

std::unique_ptr<ports::DirLock> hold_state(ports::Files& files, const std::string& dir) {
    if (dir.empty())
        return nullptr;
    return files.lock_dir(dir, "--state " + dir);
}

JournalFile::JournalFile(ports::Files& files, std::string dir, std::string stage,
                         std::string settings)
    : m_files(files) {
    if (dir.empty())
        return;
    // State files of perfsweep versions before the one journal format.
    for (const char* old : {"/sweep.txt", "/run-000001.json", "/hourly-state.tsv"})
        if (files.exists(dir + old))
            throw_usage("--state " + dir + ": it holds state files of an older perfsweep (" + dir +
                        old +
                        "); finish that sweep with that version or use a fresh --state "
                        "directory");
    files.make_dirs(dir);
    m_path = dir + "/journal.tsv";
    const std::string header = core::journal_header(stage, settings);
    if (!files.exists(m_path)) {
        m_text = header;
        files.write_atomic(m_path, m_text);
        return;
    }
    m_text = files.read_text(m_path);
    auto journal = core::parse_journal(m_text, m_path);
    if (journal.stage != stage)
        throw_usage("--state " + dir + ": " + m_path + " holds a different sweep (stage '" +
                    core::journal_escape(journal.stage) + "', this one is stage '" +
                    core::journal_escape(stage) +
                    "'); use a fresh --state directory or the same flags");
    if (journal.settings != settings) // the settings can hold a whole build script: the change
        throw_usage("--state " + dir + ": " + m_path + " holds a different sweep (its " + stage +
                    " settings differ " +
                    core::describe_settings_difference(settings, journal.settings) +
                    "); use a fresh --state directory or the same flags");
    m_resumed = std::move(journal.events);
}

void JournalFile::append(const std::string& record) {
    if (m_path.empty())
        return;
    m_text += record;
    m_files.write_atomic(m_path, m_text);
}

} // namespace perfsweep::app
