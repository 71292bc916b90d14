#pragma once
// The one resume journal of every stage (daily, hourly, commit, record): a text file of
// tab-separated records, one per line, each field escaped (\\ \t \n \r), so any string survives
// and a line can never be split. The first line names the format, the stage and the settings the
// journal belongs to; every following line is one finished thing (a run of a point, a build
// started or finished). Pure: formatting and parsing only, no file access (the use cases write the
// file atomically after each record, so a journal is never torn).
//
//   journal <TAB> 1 <TAB> STAGE <TAB> SETTINGS
//   run <TAB> POINT <TAB> RUNS <TAB> NAME <TAB> VALUE ...   (the measurement's fields)
//   building <TAB> POINT
//   build <TAB> POINT <TAB> ok|failed <TAB> REASON

#include "core/model.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace perfsweep::core {

/// The journal format version this build writes and reads.
inline constexpr int k_journal_version = 1;

/// One finished thing recorded in a journal.
struct JournalEvent {
    /// What happened.
    enum class Kind {
        run,      ///< a runner call for `point` finished with `measurement`, costing `runs` runs
        building, ///< a build of `point` started (the build output belongs to no state now)
        build,    ///< a build of `point` finished (`ok`, or failed with `reason`)
        restored, ///< a kept build of `point` was put back instead of a build (`ok`, or why not)
    };
    Kind kind = Kind::run;   ///< see Kind
    std::string point;       ///< the point: a date label, or a source state key
    long runs = 0;           ///< run: benchmark runs it cost (0 for a missing image)
    Measurement measurement; ///< run: the measurement, every field
    bool ok = false;         ///< build, restored: it succeeded
    std::string reason;      ///< build, restored: why it failed
    std::size_t line = 0;    ///< 1-based line of the record in its journal
};

/// A parsed journal.
struct Journal {
    std::string stage;                ///< e.g. "daily", "hourly"
    std::string settings;             ///< what the journal belongs to (flags that change results)
    std::vector<JournalEvent> events; ///< in the order they happened
};

/// The first line of a journal for `stage` with `settings` (newline included).
std::string journal_header(std::string_view stage, std::string_view settings);
/// The record of `e` (newline included): run, building, build or restored by its kind. Throws a
/// usage error for a measurement that cannot be stored (a value that is not a finite number).
std::string journal_record(const JournalEvent& e);

/// Parse `text` (a whole journal). Every problem is a usage error naming `where`:LINE, the field
/// and what was expected; an empty text is refused too (a journal always has its header).
Journal parse_journal(std::string_view text, const std::string& where);

/// Escape one field: backslash, tab, newline and carriage return become \\ \t \n \r.
std::string journal_escape(std::string_view field);
/// Undo journal_escape on one raw field; false (with `bad` saying why) on a bad escape.
bool journal_unescape(std::string_view raw, std::string& out, std::string& bad);

/// Where two settings texts first differ, short enough for an error message whatever their
/// length (a build command can embed a whole script): "at character N: 'A' here, 'B' there",
/// each side at most `context` characters either side of the difference, escaped like a journal
/// field, with "…" where cut. "" when they are equal.
std::string describe_settings_difference(std::string_view here, std::string_view there,
                                         std::size_t context = 40);

} // namespace perfsweep::core
